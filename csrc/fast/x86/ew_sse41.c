/* ew_sse41.c - the flat elementwise loops with SSE4.1 (see elementwise.h), 4 elements per
** vector (int8, int16 and float32 alike); the last few go through a zero-padded copy. Every
** lane of a loop shares its scales, so SSE's shifts by one count serve the rescale. Built
** with -msse4.1 (and -ffp-contract=off); run only when the CPU has it. */
#include <smmintrin.h>
#include <stdbool.h>
#include <string.h>

#include "fast/elementwise.h"
#include "fast/inline.h"

enum { L = 4 };

/* One rescale: multiplier, shift counts and the rounding mask 2^right - 1. */
typedef struct scale4 {
    __m128i mult, left, right, mask;
} scale4;

typedef struct q4 {
    __m128i off1, off2, left_shift, out_offset, act_min, act_max;
    scale4 in1, in2, out;
} q4;

static scale4 splat_scale(const pl_ew_scale *s)
{
    /* counts past 31 shift every bit out, as the reference's wrap does (right is <= 31) */
    return (scale4){_mm_set1_epi32(s->mult), _mm_cvtsi32_si128(s->left),
                    _mm_cvtsi32_si128(s->right), _mm_set1_epi32((int32_t)((1u << s->right) - 1u))};
}

static q4 splat(const pl_ew_q *q)
{
    return (q4){_mm_set1_epi32(q->off1), _mm_set1_epi32(q->off2),
                _mm_cvtsi32_si128(q->left_shift), _mm_set1_epi32(q->out_offset),
                _mm_set1_epi32(q->act_min), _mm_set1_epi32(q->act_max),
                splat_scale(&q->in1), splat_scale(&q->in2), splat_scale(&q->out)};
}

/* TFLite's MultiplyByQuantizedMultiplier on 4 lanes (multipliers are never INT32_MIN): the
** doubling high multiply as floor((x * m + 2^30) / 2^31), then the rounding right shift,
** half away from zero. */
static inline __m128i rescale(__m128i x, const scale4 *s)
{
    const __m128i half = _mm_set1_epi64x(1LL << 30);
    x = _mm_sll_epi32(x, s->left);
    __m128i even = _mm_mul_epi32(x, s->mult);
    __m128i odd = _mm_mul_epi32(_mm_srli_epi64(x, 32), s->mult);
    even = _mm_srli_epi64(_mm_add_epi64(even, half), 31);
    odd = _mm_slli_epi64(_mm_srli_epi64(_mm_add_epi64(odd, half), 31), 32);
    __m128i high = _mm_blend_epi16(even, odd, 0xCC);
    __m128i threshold = _mm_sub_epi32(_mm_srai_epi32(s->mask, 1), _mm_srai_epi32(high, 31));
    __m128i up = _mm_cmpgt_epi32(_mm_and_si128(high, s->mask), threshold);
    return _mm_sub_epi32(_mm_sra_epi32(high, s->right), up);
}

static inline __m128i load_s8(const int8_t *p)
{
    int32_t v;
    memcpy(&v, p, sizeof v);
    return _mm_cvtepi8_epi32(_mm_cvtsi32_si128(v));
}

static inline __m128i load_s16(const int16_t *p)
{
    return _mm_cvtepi16_epi32(_mm_loadl_epi64((const __m128i *)p));
}

/* The lanes are clamped to the activation range, so the saturating packs keep them. */
static inline void store_s8(int8_t *p, __m128i v)
{
    __m128i words = _mm_packs_epi32(v, v);
    int32_t bytes = _mm_cvtsi128_si32(_mm_packs_epi16(words, words));
    memcpy(p, &bytes, sizeof bytes);
}

static inline void store_s16(int16_t *p, __m128i v)
{
    _mm_storel_epi64((__m128i *)p, _mm_packs_epi32(v, v));
}

static inline __m128i finish(const q4 *v, __m128i raw)
{
    raw = _mm_add_epi32(raw, v->out_offset);
    return _mm_min_epi32(_mm_max_epi32(raw, v->act_min), v->act_max);
}

static inline __m128i add4(const q4 *v, __m128i a, __m128i b)
{
    __m128i x = _mm_sll_epi32(_mm_add_epi32(a, v->off1), v->left_shift);
    __m128i y = _mm_sll_epi32(_mm_add_epi32(b, v->off2), v->left_shift);
    __m128i sum = _mm_add_epi32(rescale(x, &v->in1), rescale(y, &v->in2));
    return finish(v, rescale(sum, &v->out));
}

static inline __m128i mul4(const q4 *v, __m128i a, __m128i b)
{
    __m128i x = _mm_add_epi32(a, v->off1), y = _mm_add_epi32(b, v->off2);
    return finish(v, rescale(_mm_mullo_epi32(x, y), &v->out));
}

/* Runs OP4 on every whole vector of T, then on a zero-padded copy of the rest. */
#define FLAT(T, LOAD, STORE, OP4)                                                           \
    do {                                                                                    \
        const q4 v = splat(q);                                                              \
        size_t i = 0;                                                                       \
        for (; n - i >= L; i += L)                                                          \
            STORE(out + i, OP4(&v, LOAD(a + i), LOAD(b + i)));                              \
        if (i < n) {                                                                        \
            T ta[L] = {0}, tb[L] = {0}, to[L];                                              \
            memcpy(ta, a + i, sizeof(T) * (n - i));                                         \
            memcpy(tb, b + i, sizeof(T) * (n - i));                                         \
            STORE(to, OP4(&v, LOAD(ta), LOAD(tb)));                                         \
            memcpy(out + i, to, sizeof(T) * (n - i));                                       \
        }                                                                                   \
    } while (0)

static void add_s8(const pl_ew_q *q, const int8_t *a, const int8_t *b, size_t n, int8_t *out)
{
    FLAT(int8_t, load_s8, store_s8, add4);
}

static void mul_s8(const pl_ew_q *q, const int8_t *a, const int8_t *b, size_t n, int8_t *out)
{
    FLAT(int8_t, load_s8, store_s8, mul4);
}

static void add_s16(const pl_ew_q *q, const int16_t *a, const int16_t *b, size_t n,
                    int16_t *out)
{
    FLAT(int16_t, load_s16, store_s16, add4);
}

static void mul_s16(const pl_ew_q *q, const int16_t *a, const int16_t *b, size_t n,
                    int16_t *out)
{
    FLAT(int16_t, load_s16, store_s16, mul4);
}

/* One vector: the operation, then the reference's clamp (MAXPS/MINPS give their second
** operand on NaN or equal values: x < lo ? lo : x, then y > hi ? hi : y). */
static inline __m128 f32_one(pl_ew_f32_op op, __m128 x, __m128 y, __m128 lo, __m128 hi)
{
    __m128 r;
    switch (op) {
    case PL_EW_ADD: r = _mm_add_ps(x, y); break;
    case PL_EW_SUB: r = _mm_sub_ps(x, y); break;
    case PL_EW_MUL: r = _mm_mul_ps(x, y); break;
    case PL_EW_DIV: r = _mm_div_ps(x, y); break;
    case PL_EW_MAX: r = _mm_max_ps(x, y); break;
    case PL_EW_MIN: r = _mm_min_ps(x, y); break;
    default: r = _mm_sub_ps(x, y), r = _mm_mul_ps(r, r); break;
    }
    if (op == PL_EW_ADD || op == PL_EW_MUL) /* the portable a op b: of two NaNs, a's */
        r = _mm_blendv_ps(r, _mm_add_ps(x, x), _mm_cmpunord_ps(x, x));
    return _mm_min_ps(hi, _mm_max_ps(lo, r));
}

/* f32 for one operation (a constant: the switch leaves the loop). */
PL_FAST_INLINE void f32_run(pl_ew_f32_op op, const float *a, const float *b, size_t n,
                            __m128 lo, __m128 hi, float *out)
{
    size_t i = 0;
    for (; n - i >= L; i += L)
        _mm_storeu_ps(out + i, f32_one(op, _mm_loadu_ps(a + i), _mm_loadu_ps(b + i), lo, hi));
    if (i < n) {
        float ta[L] = {0}, tb[L] = {0}, to[L];
        memcpy(ta, a + i, sizeof(float) * (n - i));
        memcpy(tb, b + i, sizeof(float) * (n - i));
        _mm_storeu_ps(to, f32_one(op, _mm_loadu_ps(ta), _mm_loadu_ps(tb), lo, hi));
        memcpy(out + i, to, sizeof(float) * (n - i));
    }
}

#define EW_F32_VEC __m128
#define EW_F32_SPLAT _mm_set1_ps
#include "fast/x86/ew_f32_entry.h"

/* MAXPS(r, 0) is 0 < r ? r : 0 and MINPS(r, 6) is r < 6 ? r : 6, NaN and zeros included. */
static inline __m128 hard_swish_one(__m128 x)
{
    const __m128 six = _mm_set1_ps(6.0f);
    __m128 r = _mm_min_ps(_mm_max_ps(_mm_add_ps(x, _mm_set1_ps(3.0f)), _mm_setzero_ps()), six);
    return _mm_div_ps(_mm_mul_ps(x, r), six);
}

static void hard_swish_f32(const float *in, float *out, size_t n)
{
    size_t i = 0;
    for (; n - i >= L; i += L)
        _mm_storeu_ps(out + i, hard_swish_one(_mm_loadu_ps(in + i)));
    if (i < n) {
        float t[L] = {0};
        memcpy(t, in + i, sizeof(float) * (n - i));
        _mm_storeu_ps(t, hard_swish_one(_mm_loadu_ps(t)));
        memcpy(out + i, t, sizeof(float) * (n - i));
    }
}

enum { U_LANES = L };
typedef __m128 vf;
static inline vf u_load(const float *p) { return _mm_loadu_ps(p); }
static inline void u_store(float *p, vf v) { _mm_storeu_ps(p, v); }
static inline vf u_set(float x) { return _mm_set1_ps(x); }
static inline vf u_floor(vf x) { return _mm_round_ps(x, _MM_FROUND_TO_NEG_INF); }
static inline vf u_ceil(vf x) { return _mm_round_ps(x, _MM_FROUND_TO_POS_INF); }
static inline vf u_neg(vf x) { return _mm_xor_ps(x, _mm_set1_ps(-0.0f)); }
static inline vf u_sqrt(vf x) { return _mm_sqrt_ps(x); }
static inline vf u_div(vf x, vf y) { return _mm_div_ps(x, y); }
static inline vf u_mul(vf x, vf y) { return _mm_mul_ps(x, y); }
static inline vf u_positive_or(vf x, vf y)
{
    return _mm_blendv_ps(y, x, _mm_cmpgt_ps(x, _mm_setzero_ps()));
}
static inline bool u_any_nan(vf x) { return _mm_movemask_ps(_mm_cmpunord_ps(x, x)) != 0; }

#include "fast/unary_body.h"

#include "fast/minmax_body.h"

const pl_ew pl_ew_sse41 = {add_s8,         mul_s8, add_s16,   mul_s16, f32,
                           hard_swish_f32, NULL,   unary_f32, minmax_int, false, false};
