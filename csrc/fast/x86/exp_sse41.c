/* exp_sse41.c - exp.h's kernels with SSE4.1: 4 floats per vector, widened to two vectors of 2
** doubles for the exp and tanh (exp_body.h). Built with -msse4.1 and -ffp-contract=off; run
** only when the CPU has it. */
#include <smmintrin.h>
#include <stdbool.h>
#include <stdint.h>

enum { W = 4 };

typedef __m128 vf;
typedef __m128 fmask;
typedef __m128d vd;
typedef __m128d dmask;

static inline vf f_load(const float *p) { return _mm_loadu_ps(p); }
static inline void f_store(float *p, vf v) { _mm_storeu_ps(p, v); }
static inline vf f_set(float x) { return _mm_set1_ps(x); }
static inline vf f_add(vf a, vf b) { return _mm_add_ps(a, b); }
static inline vf f_sub(vf a, vf b) { return _mm_sub_ps(a, b); }
static inline vf f_mul(vf a, vf b) { return _mm_mul_ps(a, b); }
static inline vf f_div(vf a, vf b) { return _mm_div_ps(a, b); }
static inline vf f_neg(vf a) { return _mm_xor_ps(a, _mm_set1_ps(-0.0f)); }
static inline vf f_abs(vf a) { return _mm_andnot_ps(_mm_set1_ps(-0.0f), a); }
static inline fmask f_gt(vf a, vf b) { return _mm_cmpgt_ps(a, b); }
static inline fmask f_lt(vf a, vf b) { return _mm_cmplt_ps(a, b); }
static inline fmask f_nan(vf a) { return _mm_cmpunord_ps(a, a); }
static inline vf f_select(fmask m, vf a, vf b) { return _mm_blendv_ps(b, a, m); }
static inline fmask f_or(fmask a, fmask b) { return _mm_or_ps(a, b); }
static inline fmask f_and(fmask a, fmask b) { return _mm_and_ps(a, b); }
static inline fmask f_not_within(vf a, float lo, float hi)
{
    return _mm_or_ps(_mm_cmpnge_ps(a, f_set(lo)), _mm_cmpnle_ps(a, f_set(hi)));
}
static inline bool f_any(fmask m) { return _mm_movemask_ps(m) != 0; }

static inline vd d_lo(vf a) { return _mm_cvtps_pd(a); }
static inline vd d_hi(vf a) { return _mm_cvtps_pd(_mm_movehl_ps(a, a)); }
static inline vf f_of(vd lo, vd hi) { return _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi)); }

static inline vd d_set(double x) { return _mm_set1_pd(x); }
static inline vd d_add(vd a, vd b) { return _mm_add_pd(a, b); }
static inline vd d_sub(vd a, vd b) { return _mm_sub_pd(a, b); }
static inline vd d_mul(vd a, vd b) { return _mm_mul_pd(a, b); }
static inline vd d_div(vd a, vd b) { return _mm_div_pd(a, b); }
static inline vd d_abs(vd a) { return _mm_andnot_pd(_mm_set1_pd(-0.0), a); }
static inline vd d_floor(vd a) { return _mm_round_pd(a, _MM_FROUND_FLOOR); }
static inline dmask d_eq(vd a, vd b) { return _mm_cmpeq_pd(a, b); }
static inline vd d_select(dmask m, vd a, vd b) { return _mm_blendv_pd(b, a, m); }
/* no fused multiply-add in SSE4.1: two roundings, as accurate for the quick exp */
static inline vd d_fma(vd a, vd b, vd c) { return _mm_add_pd(_mm_mul_pd(a, b), c); }
static inline bool d_any(dmask m) { return _mm_movemask_pd(m) != 0; }
static inline dmask d_or(dmask a, dmask b) { return _mm_or_pd(a, b); }
static inline vd d_scale16(const int64_t t[16], vd k)
{
    __m128i kb = _mm_castpd_si128(k);
    __m128i e = _mm_set_epi64x(t[_mm_extract_epi64(kb, 1) & 15], t[_mm_cvtsi128_si64(kb) & 15]);
    return _mm_castsi128_pd(_mm_add_epi64(e, _mm_slli_epi64(kb, 48)));
}
static inline vd d_recip(vd d) { return _mm_div_pd(_mm_set1_pd(1.0), d); }
static inline dmask d_bits_zero(vd y, int64_t sub, int64_t mask)
{
    __m128i b = _mm_sub_epi64(_mm_castpd_si128(y), _mm_set1_epi64x(sub));
    b = _mm_and_si128(b, _mm_set1_epi64x(mask));
    return _mm_castsi128_pd(_mm_cmpeq_epi64(b, _mm_setzero_si128()));
}

/* The exponent field k + 1023 (CVTPD2DQ gives INT32_MIN for what does not fit). */
static inline vd d_pow2(vd k)
{
    __m128i e = _mm_add_epi64(_mm_cvtepi32_epi64(_mm_cvtpd_epi32(k)), _mm_set1_epi64x(1023));
    return _mm_castsi128_pd(_mm_slli_epi64(e, 52));
}

#include "fast/exp_body.h"

/* No GELU: glibc's expf fuses its multiply-adds where the CPU has FMA (gelu_body.h). */
const pl_exp_kernels pl_exp_sse41 = {expf_n, tanhf_n, logistic_n, softmax_rows,
                                     NULL,   NULL,    silu_n};
