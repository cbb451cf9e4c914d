/* ew_avx2.c - the flat elementwise loops with AVX2 (see elementwise.h), 8 elements per
** vector (int8, int16 and float32 alike); the last few go through a zero-padded copy.
** Built with -mavx2 -mfma (and -ffp-contract=off); run only when the CPU has them. */
#include <immintrin.h>
#include <stdbool.h>
#include <string.h>

#include "fast/elementwise.h"
#include "fast/inline.h"
#include "fast/x86/rescale_avx2.h"

enum { L = 8 };

typedef struct scale8 {
    __m256i mult, left, right;
} scale8;

typedef struct q8 {
    __m256i off1, off2, left_shift, out_offset, act_min, act_max;
    scale8 in1, in2, out;
    __m256 qa, qb, qc, limit; /* the int8 quick form (elementwise.h) */
} q8;

static scale8 splat_scale(const pl_ew_scale *s)
{
    return (scale8){_mm256_set1_epi32(s->mult), _mm256_set1_epi32(s->left),
                    _mm256_set1_epi32(s->right)};
}

static q8 splat(const pl_ew_q *q)
{
    return (q8){_mm256_set1_epi32(q->off1), _mm256_set1_epi32(q->off2),
                _mm256_set1_epi32(q->left_shift), _mm256_set1_epi32(q->out_offset),
                _mm256_set1_epi32(q->act_min), _mm256_set1_epi32(q->act_max),
                splat_scale(&q->in1), splat_scale(&q->in2), splat_scale(&q->out),
                _mm256_set1_ps(q->quick.qa), _mm256_set1_ps(q->quick.qb),
                _mm256_set1_ps(q->quick.qc), _mm256_set1_ps(q->quick.limit)};
}

static inline __m256i rescale(__m256i x, const scale8 *s)
{
    return pl_rescale_avx2(x, s->mult, s->left, s->right);
}

static inline __m256i load_s8(const int8_t *p)
{
    int64_t v;
    memcpy(&v, p, sizeof v);
    return _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(v));
}

static inline __m256i load_s16(const int16_t *p)
{
    return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p));
}

/* The lanes are clamped to the activation range, so the saturating packs keep them. */
static inline void store_s8(int8_t *p, __m256i v)
{
    __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    int64_t bytes = _mm_cvtsi128_si64(_mm_packs_epi16(words, words));
    memcpy(p, &bytes, sizeof bytes);
}

static inline void store_s16(int16_t *p, __m256i v)
{
    __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storeu_si128((__m128i *)p, words);
}

static inline __m256i finish(const q8 *v, __m256i raw)
{
    raw = _mm256_add_epi32(raw, v->out_offset);
    return _mm256_min_epi32(_mm256_max_epi32(raw, v->act_min), v->act_max);
}

static inline __m256i add8(const q8 *v, __m256i a, __m256i b)
{
    __m256i x = _mm256_sllv_epi32(_mm256_add_epi32(a, v->off1), v->left_shift);
    __m256i y = _mm256_sllv_epi32(_mm256_add_epi32(b, v->off2), v->left_shift);
    __m256i sum = _mm256_add_epi32(rescale(x, &v->in1), rescale(y, &v->in2));
    return finish(v, rescale(sum, &v->out));
}

static inline __m256i mul8(const q8 *v, __m256i a, __m256i b)
{
    __m256i x = _mm256_add_epi32(a, v->off1), y = _mm256_add_epi32(b, v->off2);
    return finish(v, rescale(_mm256_mullo_epi32(x, y), &v->out));
}

/* y's rounding, clamped; the vector's exact form (exact(v, a, b)) where a lane lies nearer a
** tie than the limit allows (ew_avx512.c; the MXCSR's rounding stays inside the window's
** margin). */
#define QUICK(y, exact)                                                                     \
    do {                                                                                    \
        __m256 n = _mm256_round_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);       \
        __m256 off = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), _mm256_sub_ps(y, n));          \
        if (__builtin_expect(_mm256_movemask_ps(_mm256_cmp_ps(off, v->limit, _CMP_GT_OQ)), 0)) \
            return exact(v, a, b);                                                          \
        __m256i q = _mm256_cvttps_epi32(n);                                                 \
        return _mm256_min_epi32(_mm256_max_epi32(q, v->act_min), v->act_max);               \
    } while (0)

/* ADD and SUB's quick form: y = a qa + b qb + qc. */
static inline __m256i add8_quick(const q8 *v, __m256i a, __m256i b)
{
    __m256 y = _mm256_fmadd_ps(_mm256_cvtepi32_ps(b), v->qb, v->qc);
    y = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a), v->qa, y);
    QUICK(y, add8);
}

/* MUL's: y = (a + off1)(b + off2) qa + qc, the product exact in float. */
static inline __m256i mul8_quick(const q8 *v, __m256i a, __m256i b)
{
    __m256 x = _mm256_cvtepi32_ps(_mm256_add_epi32(a, v->off1));
    __m256 p = _mm256_mul_ps(x, _mm256_cvtepi32_ps(_mm256_add_epi32(b, v->off2)));
    QUICK(_mm256_fmadd_ps(p, v->qa, v->qc), mul8);
}

/* Runs OP8 on every whole vector of T, then on a zero-padded copy of the rest. */
#define FLAT(T, LOAD, STORE, OP8)                                                           \
    do {                                                                                    \
        const q8 v = splat(q);                                                              \
        size_t i = 0;                                                                       \
        for (; n - i >= L; i += L)                                                          \
            STORE(out + i, OP8(&v, LOAD(a + i), LOAD(b + i)));                              \
        if (i < n) {                                                                        \
            T ta[L] = {0}, tb[L] = {0}, to[L];                                              \
            memcpy(ta, a + i, sizeof(T) * (n - i));                                         \
            memcpy(tb, b + i, sizeof(T) * (n - i));                                         \
            STORE(to, OP8(&v, LOAD(ta), LOAD(tb)));                                         \
            memcpy(out + i, to, sizeof(T) * (n - i));                                       \
        }                                                                                   \
    } while (0)

static void add_s8(const pl_ew_q *q, const int8_t *a, const int8_t *b, size_t n, int8_t *out)
{
    if (q->quick.limit >= 0.0f)
        FLAT(int8_t, load_s8, store_s8, add8_quick);
    else
        FLAT(int8_t, load_s8, store_s8, add8);
}

static void mul_s8(const pl_ew_q *q, const int8_t *a, const int8_t *b, size_t n, int8_t *out)
{
    if (q->quick.limit >= 0.0f)
        FLAT(int8_t, load_s8, store_s8, mul8_quick);
    else
        FLAT(int8_t, load_s8, store_s8, mul8);
}

static void add_s16(const pl_ew_q *q, const int16_t *a, const int16_t *b, size_t n,
                    int16_t *out)
{
    FLAT(int16_t, load_s16, store_s16, add8);
}

static void mul_s16(const pl_ew_q *q, const int16_t *a, const int16_t *b, size_t n,
                    int16_t *out)
{
    FLAT(int16_t, load_s16, store_s16, mul8);
}

/* One vector: the operation, then the reference's clamp (MAXPS/MINPS give their second
** operand on NaN or equal values: x < lo ? lo : x, then y > hi ? hi : y). */
static inline __m256 f32_one(pl_ew_f32_op op, __m256 x, __m256 y, __m256 lo, __m256 hi)
{
    __m256 r;
    switch (op) {
    case PL_EW_ADD: r = _mm256_add_ps(x, y); break;
    case PL_EW_SUB: r = _mm256_sub_ps(x, y); break;
    case PL_EW_MUL: r = _mm256_mul_ps(x, y); break;
    case PL_EW_DIV: r = _mm256_div_ps(x, y); break;
    case PL_EW_MAX: r = _mm256_max_ps(x, y); break;
    case PL_EW_MIN: r = _mm256_min_ps(x, y); break;
    default: r = _mm256_sub_ps(x, y), r = _mm256_mul_ps(r, r); break;
    }
    if (op == PL_EW_ADD || op == PL_EW_MUL) /* the portable a op b: of two NaNs, a's */
        r = _mm256_blendv_ps(r, _mm256_add_ps(x, x), _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
    return _mm256_min_ps(hi, _mm256_max_ps(lo, r));
}

/* f32 for one operation (a constant: the switch leaves the loop). */
PL_FAST_INLINE void f32_run(pl_ew_f32_op op, const float *a, const float *b, size_t n,
                            __m256 lo, __m256 hi, float *out)
{
    size_t i = 0;
    for (; n - i >= L; i += L)
        _mm256_storeu_ps(out + i, f32_one(op, _mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i),
                                          lo, hi));
    if (i < n) {
        float ta[L] = {0}, tb[L] = {0}, to[L];
        memcpy(ta, a + i, sizeof(float) * (n - i));
        memcpy(tb, b + i, sizeof(float) * (n - i));
        _mm256_storeu_ps(to, f32_one(op, _mm256_loadu_ps(ta), _mm256_loadu_ps(tb), lo, hi));
        memcpy(out + i, to, sizeof(float) * (n - i));
    }
}

#define EW_F32_VEC __m256
#define EW_F32_SPLAT _mm256_set1_ps
#include "fast/x86/ew_f32_entry.h"

/* MAXPS(r, 0) is 0 < r ? r : 0 and MINPS(r, 6) is r < 6 ? r : 6, NaN and zeros included. */
static inline __m256 hard_swish_one(__m256 x)
{
    const __m256 six = _mm256_set1_ps(6.0f);
    __m256 r = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(x, _mm256_set1_ps(3.0f)), _mm256_setzero_ps()), six);
    return _mm256_div_ps(_mm256_mul_ps(x, r), six);
}

static void hard_swish_f32(const float *in, float *out, size_t n)
{
    size_t i = 0;
    for (; n - i >= L; i += L)
        _mm256_storeu_ps(out + i, hard_swish_one(_mm256_loadu_ps(in + i)));
    if (i < n) {
        float t[L] = {0};
        memcpy(t, in + i, sizeof(float) * (n - i));
        _mm256_storeu_ps(t, hard_swish_one(_mm256_loadu_ps(t)));
        memcpy(out + i, t, sizeof(float) * (n - i));
    }
}

/* 8 table entries per VPGATHERDD (4 bytes read at each byte offset, the low one kept). */
static void pairs_s8(const int8_t *pairs, const int8_t *a, const int8_t *b, size_t n,
                     int8_t *out)
{
    const __m256i low_bytes = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                               -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1,
                                               -1, -1, -1, -1, -1, -1);
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        __m256i x = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(a + i)));
        __m256i y = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(b + i)));
        __m256i at = _mm256_or_si256(_mm256_slli_epi32(x, 8), y);
        __m256i v = _mm256_shuffle_epi8(_mm256_i32gather_epi32((const int *)pairs, at, 1),
                                        low_bytes);
        int32_t lo = _mm256_extract_epi32(v, 0), hi = _mm256_extract_epi32(v, 4);
        memcpy(out + i, &lo, 4);
        memcpy(out + i + 4, &hi, 4);
    }
    for (; i < n; i++)
        out[i] = pairs[(size_t)(uint8_t)a[i] << 8 | (uint8_t)b[i]];
}

enum { U_LANES = L };
typedef __m256 vf;
static inline vf u_load(const float *p) { return _mm256_loadu_ps(p); }
static inline void u_store(float *p, vf v) { _mm256_storeu_ps(p, v); }
static inline vf u_set(float x) { return _mm256_set1_ps(x); }
static inline vf u_floor(vf x)
{
    return _mm256_round_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}
static inline vf u_ceil(vf x)
{
    return _mm256_round_ps(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
}
static inline vf u_neg(vf x) { return _mm256_xor_ps(x, _mm256_set1_ps(-0.0f)); }
static inline vf u_sqrt(vf x) { return _mm256_sqrt_ps(x); }
static inline vf u_div(vf x, vf y) { return _mm256_div_ps(x, y); }
static inline vf u_mul(vf x, vf y) { return _mm256_mul_ps(x, y); }
static inline vf u_positive_or(vf x, vf y)
{
    return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ));
}
static inline bool u_any_nan(vf x)
{
    return _mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)) != 0;
}

#include "fast/unary_body.h"

#include "fast/minmax_body.h"

const pl_ew pl_ew_avx2 = {add_s8,         mul_s8,   add_s16,  mul_s16, f32,
                          hard_swish_f32, pairs_s8, unary_f32, minmax_int, false, false};
