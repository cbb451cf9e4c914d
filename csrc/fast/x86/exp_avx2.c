/* exp_avx2.c - exp.h's kernels with AVX2: 8 floats per vector, widened to two vectors of 4
** doubles for the exp and tanh (exp_body.h). Built with -mavx2 -mfma and -ffp-contract=off
** (fused multiply-adds only where d_fma asks); run only when the CPU has them. */
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

enum { W = 8 };

typedef __m256 vf;
typedef __m256 fmask;
typedef __m256d vd;
typedef __m256d dmask;

static inline vf f_load(const float *p) { return _mm256_loadu_ps(p); }
static inline void f_store(float *p, vf v) { _mm256_storeu_ps(p, v); }
static inline vf f_set(float x) { return _mm256_set1_ps(x); }
static inline vf f_add(vf a, vf b) { return _mm256_add_ps(a, b); }
static inline vf f_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
static inline vf f_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
static inline vf f_div(vf a, vf b) { return _mm256_div_ps(a, b); }
static inline vf f_neg(vf a) { return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f)); }
static inline vf f_abs(vf a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
static inline fmask f_gt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
static inline fmask f_lt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
static inline fmask f_ge(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
static inline fmask f_eq(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
static inline vf f_trunc(vf a)
{
    return _mm256_round_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
}
static inline vf f_pow2(vf k)
{
    __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
}
static inline vf f_keep_bits(vf a, uint32_t mask)
{
    return _mm256_and_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32((int32_t)mask)));
}
static inline fmask f_nan(vf a) { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
static inline vf f_select(fmask m, vf a, vf b) { return _mm256_blendv_ps(b, a, m); }
static inline fmask f_or(fmask a, fmask b) { return _mm256_or_ps(a, b); }
static inline fmask f_and(fmask a, fmask b) { return _mm256_and_ps(a, b); }
static inline fmask f_not_within(vf a, float lo, float hi)
{
    return _mm256_or_ps(_mm256_cmp_ps(a, f_set(lo), _CMP_NGE_UQ),
                        _mm256_cmp_ps(a, f_set(hi), _CMP_NLE_UQ));
}
static inline bool f_any(fmask m) { return _mm256_movemask_ps(m) != 0; }

static inline vd d_lo(vf a) { return _mm256_cvtps_pd(_mm256_castps256_ps128(a)); }
static inline vd d_hi(vf a) { return _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)); }
static inline vf f_of(vd lo, vd hi)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)),
                                _mm256_cvtpd_ps(hi), 1);
}

static inline vd d_set(double x) { return _mm256_set1_pd(x); }
static inline vd d_add(vd a, vd b) { return _mm256_add_pd(a, b); }
static inline vd d_sub(vd a, vd b) { return _mm256_sub_pd(a, b); }
static inline vd d_mul(vd a, vd b) { return _mm256_mul_pd(a, b); }
static inline vd d_div(vd a, vd b) { return _mm256_div_pd(a, b); }
static inline vd d_abs(vd a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
static inline vd d_floor(vd a) { return _mm256_round_pd(a, _MM_FROUND_FLOOR); }
static inline dmask d_eq(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
static inline vd d_select(dmask m, vd a, vd b) { return _mm256_blendv_pd(b, a, m); }
static inline vd d_fma(vd a, vd b, vd c) { return _mm256_fmadd_pd(a, b, c); }
static inline bool d_any(dmask m) { return _mm256_movemask_pd(m) != 0; }
static inline dmask d_or(dmask a, dmask b) { return _mm256_or_pd(a, b); }
static inline vd d_scale16(const int64_t t[16], vd k)
{
    __m256i kb = _mm256_castpd_si256(k);
    __m256i j = _mm256_and_si256(kb, _mm256_set1_epi64x(15));
    __m256i e = _mm256_i64gather_epi64((const long long *)t, j, 8);
    return _mm256_castsi256_pd(_mm256_add_epi64(e, _mm256_slli_epi64(kb, 48)));
}
static inline vd d_recip(vd d) { return _mm256_div_pd(_mm256_set1_pd(1.0), d); }
static inline vd d_scale32(const int64_t t[32], vd k)
{
    __m256i kb = _mm256_castpd_si256(k);
    __m256i j = _mm256_and_si256(kb, _mm256_set1_epi64x(31));
    __m256i e = _mm256_i64gather_epi64((const long long *)t, j, 8);
    return _mm256_castsi256_pd(_mm256_add_epi64(e, _mm256_slli_epi64(kb, 47)));
}
static inline dmask d_bits_zero(vd y, int64_t sub, int64_t mask)
{
    __m256i b = _mm256_sub_epi64(_mm256_castpd_si256(y), _mm256_set1_epi64x(sub));
    b = _mm256_and_si256(b, _mm256_set1_epi64x(mask));
    return _mm256_castsi256_pd(_mm256_cmpeq_epi64(b, _mm256_setzero_si256()));
}

/* The exponent field k + 1023 (CVTPD2DQ gives INT32_MIN for what does not fit). */
static inline vd d_pow2(vd k)
{
    __m256i e = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(k)),
                                 _mm256_set1_epi64x(1023));
    return _mm256_castsi256_pd(_mm256_slli_epi64(e, 52));
}

#include "fast/exp_body.h"
#include "fast/gelu_body.h"

const pl_exp_kernels pl_exp_avx2 = {expf_n, tanhf_n, logistic_n, softmax_rows,
                                    gelu_n, gelu_tanh_n, silu_n};
