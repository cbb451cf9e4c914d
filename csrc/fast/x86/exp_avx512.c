/* exp_avx512.c - exp.h's kernels with AVX-512F: 16 floats per vector, widened to two vectors
** of 8 doubles for the exp and tanh (exp_body.h). Built with -mavx512f (and the rest of the
** AVX512 set) and -ffp-contract=off; run only when the CPU has them. */
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

enum { W = 16 };

typedef __m512 vf;
typedef __mmask16 fmask;
typedef __m512d vd;
typedef __mmask8 dmask;

static inline vf f_load(const float *p) { return _mm512_loadu_ps(p); }
static inline void f_store(float *p, vf v) { _mm512_storeu_ps(p, v); }
static inline vf f_set(float x) { return _mm512_set1_ps(x); }
static inline vf f_add(vf a, vf b) { return _mm512_add_ps(a, b); }
static inline vf f_sub(vf a, vf b) { return _mm512_sub_ps(a, b); }
static inline vf f_mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
static inline vf f_div(vf a, vf b) { return _mm512_div_ps(a, b); }
static inline vf f_neg(vf a)
{
    __m512i sign = _mm512_set1_epi32(INT32_MIN);
    return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), sign));
}
static inline vf f_abs(vf a)
{
    __m512i sign = _mm512_set1_epi32(INT32_MIN);
    return _mm512_castsi512_ps(_mm512_andnot_si512(sign, _mm512_castps_si512(a)));
}
static inline fmask f_gt(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
static inline fmask f_lt(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
static inline fmask f_ge(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
static inline fmask f_eq(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
static inline vf f_trunc(vf a)
{
    return _mm512_roundscale_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
}
static inline vf f_pow2(vf k)
{
    __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(k), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
}
static inline vf f_keep_bits(vf a, uint32_t mask)
{
    return _mm512_castsi512_ps(
        _mm512_and_si512(_mm512_castps_si512(a), _mm512_set1_epi32((int32_t)mask)));
}
static inline fmask f_nan(vf a) { return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
static inline vf f_select(fmask m, vf a, vf b) { return _mm512_mask_blend_ps(m, b, a); }
static inline fmask f_or(fmask a, fmask b) { return (fmask)(a | b); }
static inline fmask f_and(fmask a, fmask b) { return (fmask)(a & b); }
static inline fmask f_not_within(vf a, float lo, float hi)
{
    return (fmask)(_mm512_cmp_ps_mask(a, f_set(lo), _CMP_NGE_UQ) |
                   _mm512_cmp_ps_mask(a, f_set(hi), _CMP_NLE_UQ));
}
static inline bool f_any(fmask m) { return m != 0; }

static inline vd d_lo(vf a) { return _mm512_cvtps_pd(_mm512_castps512_ps256(a)); }
static inline vd d_hi(vf a)
{
    return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)));
}
static inline vf f_of(vd lo, vd hi)
{
    __m512d l = _mm512_castpd256_pd512(_mm256_castps_pd(_mm512_cvtpd_ps(lo)));
    return _mm512_castpd_ps(_mm512_insertf64x4(l, _mm256_castps_pd(_mm512_cvtpd_ps(hi)), 1));
}

static inline vd d_set(double x) { return _mm512_set1_pd(x); }
static inline vd d_add(vd a, vd b) { return _mm512_add_pd(a, b); }
static inline vd d_sub(vd a, vd b) { return _mm512_sub_pd(a, b); }
static inline vd d_mul(vd a, vd b) { return _mm512_mul_pd(a, b); }
static inline vd d_div(vd a, vd b) { return _mm512_div_pd(a, b); }
static inline vd d_abs(vd a)
{
    __m512i sign = _mm512_set1_epi64(INT64_MIN);
    return _mm512_castsi512_pd(_mm512_andnot_si512(sign, _mm512_castpd_si512(a)));
}
static inline vd d_floor(vd a) { return _mm512_roundscale_pd(a, _MM_FROUND_FLOOR); }
static inline dmask d_eq(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
static inline vd d_select(dmask m, vd a, vd b) { return _mm512_mask_blend_pd(m, b, a); }
static inline vd d_fma(vd a, vd b, vd c) { return _mm512_fmadd_pd(a, b, c); }
static inline bool d_any(dmask m) { return m != 0; }
static inline dmask d_or(dmask a, dmask b) { return (dmask)(a | b); }
static inline vd d_scale16(const int64_t t[16], vd k)
{
    __m512i kb = _mm512_castpd_si512(k);
    __m512i e = _mm512_permutex2var_epi64(_mm512_loadu_si512(t), kb, _mm512_loadu_si512(t + 8));
    return _mm512_castsi512_pd(_mm512_add_epi64(e, _mm512_slli_epi64(kb, 48)));
}
/* 1/d for normal d within 2^-52: VRCP14PD's 2^-14 then two Newton steps (error squared). */
static inline vd d_recip(vd d)
{
    vd y = _mm512_rcp14_pd(d), one = d_set(1.0);
    y = d_fma(y, _mm512_fnmadd_pd(d, y, one), y);
    return d_fma(y, _mm512_fnmadd_pd(d, y, one), y);
}
static inline vd d_scale32(const int64_t t[32], vd k)
{
    __m512i kb = _mm512_castpd_si512(k);
    __m512i lo = _mm512_permutex2var_epi64(_mm512_loadu_si512(t), kb, _mm512_loadu_si512(t + 8));
    __m512i hi = _mm512_permutex2var_epi64(_mm512_loadu_si512(t + 16), kb,
                                           _mm512_loadu_si512(t + 24));
    __mmask8 upper = _mm512_test_epi64_mask(kb, _mm512_set1_epi64(16));
    __m512i e = _mm512_mask_blend_epi64(upper, lo, hi);
    return _mm512_castsi512_pd(_mm512_add_epi64(e, _mm512_slli_epi64(kb, 47)));
}
static inline dmask d_bits_zero(vd y, int64_t sub, int64_t mask)
{
    __m512i b = _mm512_sub_epi64(_mm512_castpd_si512(y), _mm512_set1_epi64(sub));
    return _mm512_testn_epi64_mask(b, _mm512_set1_epi64(mask));
}

/* The exponent field k + 1023 (VCVTPD2DQ gives INT32_MIN for what does not fit). */
static inline vd d_pow2(vd k)
{
    __m512i e = _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_cvtpd_epi32(k)),
                                 _mm512_set1_epi64(1023));
    return _mm512_castsi512_pd(_mm512_slli_epi64(e, 52));
}

#include "fast/exp_body.h"
#include "fast/gelu_body.h"

/* Rows and tensors shorter than a vector take AVX2's kernels (every AVX-512 CPU has AVX2):
** half the lanes idle instead of three quarters, and a shorter chain of double divisions
** (net_autoencoder's TANH of 8 floats and LOGISTIC of 64: 941 -> 885 ns per invoke). */
static void softmax_rows_512(float beta, const float *in, float *out, size_t outer,
                             size_t depth)
{
    if (depth < W)
        pl_exp_avx2.softmax(beta, in, out, outer, depth);
    else
        softmax_rows(beta, in, out, outer, depth);
}

static void expf_512(const float *in, float *out, size_t n)
{
    (n < W ? pl_exp_avx2.expf : expf_n)(in, out, n);
}

static void tanhf_512(const float *in, float *out, size_t n)
{
    (n < W ? pl_exp_avx2.tanhf : tanhf_n)(in, out, n);
}

static void logistic_512(const float *in, float *out, size_t n)
{
    (n < W ? pl_exp_avx2.logistic : logistic_n)(in, out, n);
}

static void gelu_512(const float *in, float *out, size_t n)
{
    (n < W ? pl_exp_avx2.gelu : gelu_n)(in, out, n);
}

static void gelu_tanh_512(const float *in, float *out, size_t n)
{
    (n < W ? pl_exp_avx2.gelu_tanh : gelu_tanh_n)(in, out, n);
}

static void silu_512(const float *in, float *out, size_t n, float lo, float hi, bool x_first)
{
    (n < W ? pl_exp_avx2.silu : silu_n)(in, out, n, lo, hi, x_first);
}

const pl_exp_kernels pl_exp_avx512 = {expf_512, tanhf_512,     logistic_512, softmax_rows_512,
                                      gelu_512, gelu_tanh_512, silu_512};
