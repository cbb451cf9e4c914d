/* ew_avx512.c - the flat elementwise loops with AVX-512 (see elementwise.h), 16 elements
** per vector (int8, int16 and float32 alike), the last few through masked loads and
** stores. Built with -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vnni -mfma (and
** -ffp-contract=off); run only when the CPU has them. */
#include <immintrin.h>

#include "fast/elementwise.h"
#include "fast/inline.h"
#include "fast/x86/rescale_avx512.h"

enum { L = 16 };

typedef struct scale16 {
    __m512i mult, left, right;
} scale16;

typedef struct q16 {
    __m512i off1, off2, left_shift, out_offset, act_min, act_max;
    scale16 in1, in2, out;
    __m512 qa, qb, qc, limit; /* the int8 quick form (elementwise.h) */
    __m512 tilt;              /* MUL's tilted quick form (pl_ew_mul_tilted) */
} q16;

static scale16 splat_scale(const pl_ew_scale *s)
{
    return (scale16){_mm512_set1_epi32(s->mult), _mm512_set1_epi32(s->left),
                     _mm512_set1_epi32(s->right)};
}

static q16 splat(const pl_ew_q *q)
{
    return (q16){_mm512_set1_epi32(q->off1), _mm512_set1_epi32(q->off2),
                 _mm512_set1_epi32(q->left_shift), _mm512_set1_epi32(q->out_offset),
                 _mm512_set1_epi32(q->act_min), _mm512_set1_epi32(q->act_max),
                 splat_scale(&q->in1), splat_scale(&q->in2), splat_scale(&q->out),
                 _mm512_set1_ps(q->quick.qa), _mm512_set1_ps(q->quick.qb),
                 _mm512_set1_ps(q->quick.qc), _mm512_set1_ps(q->quick.limit),
                 _mm512_set1_ps(q->quick.tilt)};
}

static inline __m512i rescale(__m512i x, const scale16 *s)
{
    return pl_rescale_avx512(x, s->mult, s->left, s->right);
}

static inline __m512i load_s8(const int8_t *p, __mmask16 m)
{
    return _mm512_cvtepi8_epi32(m == 0xFFFF ? _mm_loadu_si128((const __m128i *)(const void *)p)
                                            : _mm_maskz_loadu_epi8(m, p));
}

static inline __m512i load_s16(const int16_t *p, __mmask16 m)
{
    return _mm512_cvtepi16_epi32(m == 0xFFFF
                                     ? _mm256_loadu_si256((const __m256i *)(const void *)p)
                                     : _mm256_maskz_loadu_epi16(m, p));
}

/* The lanes are clamped to the activation range, so the truncating narrows keep them. */
static inline void store_s8(int8_t *p, __mmask16 m, __m512i v)
{
    _mm_mask_storeu_epi8(p, m, _mm512_cvtepi32_epi8(v));
}

/* The lanes narrowed with saturation: the clamp to int8's whole range. */
static inline void store_s8_sat(int8_t *p, __mmask16 m, __m512i v)
{
    _mm_mask_storeu_epi8(p, m, _mm512_cvtsepi32_epi8(v));
}

static inline void store_s16(int16_t *p, __mmask16 m, __m512i v)
{
    _mm256_mask_storeu_epi16(p, m, _mm512_cvtepi32_epi16(v));
}

static inline __m512i finish(const q16 *v, __m512i raw)
{
    raw = _mm512_add_epi32(raw, v->out_offset);
    return _mm512_min_epi32(_mm512_max_epi32(raw, v->act_min), v->act_max);
}

static inline __m512i add16(const q16 *v, __m512i a, __m512i b)
{
    __m512i x = _mm512_sllv_epi32(_mm512_add_epi32(a, v->off1), v->left_shift);
    __m512i y = _mm512_sllv_epi32(_mm512_add_epi32(b, v->off2), v->left_shift);
    __m512i sum = _mm512_add_epi32(rescale(x, &v->in1), rescale(y, &v->in2));
    return finish(v, rescale(sum, &v->out));
}

static inline __m512i mul16(const q16 *v, __m512i a, __m512i b)
{
    __m512i x = _mm512_add_epi32(a, v->off1), y = _mm512_add_epi32(b, v->off2);
    return finish(v, rescale(_mm512_mullo_epi32(x, y), &v->out));
}

enum { NEAREST = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC };

/* y's rounding, clamped; the vector's exact form (exact(v, a, b)) where a lane lies nearer a
** tie than the limit allows. */
#define QUICK(y, exact)                                                                     \
    do {                                                                                    \
        __m512 n = _mm512_roundscale_ps(y, NEAREST);                                        \
        __mmask16 near = _mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_sub_ps(y, n)), v->limit,   \
                                            _CMP_GT_OQ);                                    \
        if (__builtin_expect(near != 0, 0))                                                 \
            return exact(v, a, b);                                                          \
        __m512i q = _mm512_cvtt_roundps_epi32(n, _MM_FROUND_NO_EXC);                        \
        return _mm512_min_epi32(_mm512_max_epi32(q, v->act_min), v->act_max);               \
    } while (0)

/* ADD and SUB's quick form: y = a qa + b qb + qc. */
static inline __m512i add16_quick(const q16 *v, __m512i a, __m512i b)
{
    __m512 y = _mm512_fmadd_round_ps(_mm512_cvt_roundepi32_ps(b, NEAREST), v->qb, v->qc,
                                     NEAREST);
    y = _mm512_fmadd_round_ps(_mm512_cvt_roundepi32_ps(a, NEAREST), v->qa, y, NEAREST);
    QUICK(y, add16);
}

/* MUL's: y = (a + off1)(b + off2) qa + qc, the product exact in float. */
static inline __m512i mul16_quick(const q16 *v, __m512i a, __m512i b)
{
    __m512 x = _mm512_cvt_roundepi32_ps(_mm512_add_epi32(a, v->off1), NEAREST);
    __m512 p = _mm512_mul_ps(x, _mm512_cvt_roundepi32_ps(_mm512_add_epi32(b, v->off2), NEAREST));
    QUICK(_mm512_fmadd_round_ps(p, v->qa, v->qc, NEAREST), mul16);
}

/* MUL's tilted form (rescale_avx512.h's pl_quick16_tilted, the product for the sum); clamp:
** an activation narrower than int8 (else store_s8_sat's saturation is the clamp). */
PL_FAST_INLINE __m512i mul16_tilted(const q16 *v, __m512i a, __m512i b, bool clamp)
{
    __m512i p = _mm512_mullo_epi32(_mm512_add_epi32(a, v->off1), _mm512_add_epi32(b, v->off2));
    __m512i q;
    if (__builtin_expect(pl_quick16_tilted(p, v->qa, v->tilt, v->qc, &q) != 0, 0))
        return mul16(v, a, b);
    return clamp ? _mm512_min_epi32(_mm512_max_epi32(q, v->act_min), v->act_max) : q;
}

static inline __m512i mul16_tilted_clamped(const q16 *v, __m512i a, __m512i b)
{
    return mul16_tilted(v, a, b, true);
}

static inline __m512i mul16_tilted_saturated(const q16 *v, __m512i a, __m512i b)
{
    return mul16_tilted(v, a, b, false);
}

static inline __mmask16 tail(size_t left)
{
    return left >= L ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
}

/* Runs OP16 on every vector, the last one masked. */
#define FLAT(LOAD, STORE, OP16)                                                             \
    do {                                                                                    \
        const q16 v = splat(q);                                                             \
        size_t i = 0;                                                                       \
        for (; n - i >= L; i += L) /* a constant mask: the loads widen from memory */       \
            STORE(out + i, 0xFFFF, OP16(&v, LOAD(a + i, 0xFFFF), LOAD(b + i, 0xFFFF)));     \
        if (i < n) {                                                                        \
            __mmask16 m = tail(n - i);                                                      \
            STORE(out + i, m, OP16(&v, LOAD(a + i, m), LOAD(b + i, m)));                    \
        }                                                                                   \
    } while (0)

static void add_s8(const pl_ew_q *q, const int8_t *a, const int8_t *b, size_t n, int8_t *out)
{
    if (q->quick.limit >= 0.0f)
        FLAT(load_s8, store_s8, add16_quick);
    else
        FLAT(load_s8, store_s8, add16);
}

static void mul_s8(const pl_ew_q *q, const int8_t *a, const int8_t *b, size_t n, int8_t *out)
{
    if (pl_ew_mul_tilted(q) && q->act_min == INT8_MIN && q->act_max == INT8_MAX)
        FLAT(load_s8, store_s8_sat, mul16_tilted_saturated);
    else if (pl_ew_mul_tilted(q))
        FLAT(load_s8, store_s8, mul16_tilted_clamped);
    else if (q->quick.limit >= 0.0f)
        FLAT(load_s8, store_s8, mul16_quick);
    else
        FLAT(load_s8, store_s8, mul16);
}

static void add_s16(const pl_ew_q *q, const int16_t *a, const int16_t *b, size_t n,
                    int16_t *out)
{
    FLAT(load_s16, store_s16, add16);
}

static void mul_s16(const pl_ew_q *q, const int16_t *a, const int16_t *b, size_t n,
                    int16_t *out)
{
    FLAT(load_s16, store_s16, mul16);
}

/* The operation, then the reference's clamp (VMAXPS/VMINPS give their second operand on
** NaN or equal values: x < lo ? lo : x, then y > hi ? hi : y; no activation clamps to
** +-FLT_MAX, which turns infinities finite, so it always runs). */
PL_FAST_INLINE __m512 f32_one(pl_ew_f32_op op, __m512 x, __m512 y, __m512 lo, __m512 hi)
{
    __m512 r;
    switch (op) {
    case PL_EW_ADD: r = _mm512_add_ps(x, y); break;
    case PL_EW_SUB: r = _mm512_sub_ps(x, y); break;
    case PL_EW_MUL: r = _mm512_mul_ps(x, y); break;
    case PL_EW_DIV: r = _mm512_div_ps(x, y); break;
    case PL_EW_MAX: r = _mm512_max_ps(x, y); break;
    case PL_EW_MIN: r = _mm512_min_ps(x, y); break;
    default: r = _mm512_sub_ps(x, y), r = _mm512_mul_ps(r, r); break;
    }
    if (op == PL_EW_ADD || op == PL_EW_MUL) /* the portable a op b: of two NaNs, a's */
        r = _mm512_mask_add_ps(r, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x, x);
    return _mm512_min_ps(hi, _mm512_max_ps(lo, r));
}

/* f32 for one operation (a constant: the switch leaves the loop), two vectors a step. */
PL_FAST_INLINE void f32_run(pl_ew_f32_op op, const float *a, const float *b, size_t n,
                            __m512 lo, __m512 hi, float *out)
{
    size_t i = 0;
    for (; n - i >= 2 * L; i += 2 * L) {
        __m512 r0 = f32_one(op, _mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), lo, hi);
        __m512 r1 = f32_one(op, _mm512_loadu_ps(a + i + L), _mm512_loadu_ps(b + i + L), lo, hi);
        _mm512_storeu_ps(out + i, r0);
        _mm512_storeu_ps(out + i + L, r1);
    }
    for (; i < n; i += L) {
        __mmask16 m = tail(n - i);
        __m512 x = _mm512_maskz_loadu_ps(m, a + i), y = _mm512_maskz_loadu_ps(m, b + i);
        _mm512_mask_storeu_ps(out + i, m, f32_one(op, x, y, lo, hi));
    }
}

#define EW_F32_VEC __m512
#define EW_F32_SPLAT _mm512_set1_ps
#include "fast/x86/ew_f32_entry.h"

/* MAXPS(r, 0) is 0 < r ? r : 0 and MINPS(r, 6) is r < 6 ? r : 6, NaN and zeros included. */
static void hard_swish_f32(const float *in, float *out, size_t n)
{
    const __m512 three = _mm512_set1_ps(3.0f), six = _mm512_set1_ps(6.0f);
    for (size_t i = 0; i < n; i += L) {
        __mmask16 m = tail(n - i);
        __m512 x = _mm512_maskz_loadu_ps(m, in + i);
        __m512 r = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(x, three), _mm512_setzero_ps()),
                                 six);
        _mm512_mask_storeu_ps(out + i, m, _mm512_div_ps(_mm512_mul_ps(x, r), six));
    }
}

/* 16 table entries per VPGATHERDD (4 bytes read at each byte offset, the low one kept). */
static void pairs_s8(const int8_t *pairs, const int8_t *a, const int8_t *b, size_t n,
                     int8_t *out)
{
    for (size_t i = 0; i < n; i += L) {
        __mmask16 m = tail(n - i);
        __m512i x = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, a + i));
        __m512i y = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, b + i));
        __m512i at = _mm512_or_si512(_mm512_slli_epi32(x, 8), y);
        __m512i v = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, at, pairs, 1);
        _mm_mask_storeu_epi8(out + i, m, _mm512_cvtepi32_epi8(v));
    }
}

/* One loop per operation (a switch in the loop would be taken at every vector); FLOOR and
** CEIL hand a vector with NaN lanes to pl_ew_unary_nans. */
#define EACH(expr)                                                                          \
    for (size_t i = 0; i < n; i += L) {                                                     \
        __mmask16 m = tail(n - i);                                                          \
        __m512 x = _mm512_maskz_loadu_ps(m, in + i);                                        \
        _mm512_mask_storeu_ps(out + i, m, (expr));                                          \
        if (op <= PL_EW_CEIL && _mm512_mask_cmp_ps_mask(m, x, x, _CMP_UNORD_Q) != 0)        \
            pl_ew_unary_nans(op, in + i, out + i, n - i < L ? n - i : L);                   \
    }                                                                                       \
    return

static void unary_f32(pl_ew_unary op, float alpha, const float *in, float *out, size_t n)
{
    const __m512 a = _mm512_set1_ps(alpha), zero = _mm512_setzero_ps();
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512i sign = _mm512_set1_epi32(INT32_MIN);
    switch (op) {
    case PL_EW_FLOOR: EACH(_mm512_roundscale_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
    case PL_EW_CEIL: EACH(_mm512_roundscale_ps(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
    case PL_EW_NEG:
        EACH(_mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), sign)));
    case PL_EW_SQRT: EACH(_mm512_sqrt_ps(x));
    case PL_EW_RSQRT: EACH(_mm512_div_ps(one, _mm512_sqrt_ps(x)));
    case PL_EW_SQUARE: EACH(_mm512_mul_ps(x, x));
    case PL_EW_LEAKY:
        EACH(_mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, zero, _CMP_GT_OQ), _mm512_mul_ps(x, a), x));
    }
}
#undef EACH

/* 64 int8 or 32 int16 lanes a step, the last ones masked. */
static void minmax_int(bool max, size_t es, const void *a, const void *b, size_t n, void *out)
{
    const size_t lanes = 64 / es;
    for (size_t i = 0; i < n; i += lanes) {
        const size_t left = n - i < lanes ? n - i : lanes;
        const __mmask64 m = left == 64 ? ~(__mmask64)0 : ((__mmask64)1 << left) - 1;
        if (es == 1) {
            __m512i x = _mm512_maskz_loadu_epi8(m, (const int8_t *)a + i);
            __m512i y = _mm512_maskz_loadu_epi8(m, (const int8_t *)b + i);
            _mm512_mask_storeu_epi8((int8_t *)out + i, m,
                                    max ? _mm512_max_epi8(x, y) : _mm512_min_epi8(x, y));
        } else {
            __m512i x = _mm512_maskz_loadu_epi16((__mmask32)m, (const int16_t *)a + i);
            __m512i y = _mm512_maskz_loadu_epi16((__mmask32)m, (const int16_t *)b + i);
            _mm512_mask_storeu_epi16((int16_t *)out + i, (__mmask32)m,
                                     max ? _mm512_max_epi16(x, y) : _mm512_min_epi16(x, y));
        }
    }
}

const pl_ew pl_ew_avx512 = {add_s8,         mul_s8,   add_s16,  mul_s16, f32,
                            hard_swish_f32, pairs_s8, unary_f32, minmax_int, true, true};
