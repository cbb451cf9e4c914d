/* exp_neon.c - exp.h's kernels with arm64 Advanced SIMD: 4 floats per vector, widened to two
** vectors of 2 doubles for the exp and tanh (exp_body.h). Built with -ffp-contract=off: FMUL
** and FADD, the fused FMLA only where d_fma asks (the quick exp). */
#include <arm_neon.h>
#include <stdbool.h>
#include <stdint.h>

enum { W = 4 };

typedef float32x4_t vf;
typedef uint32x4_t fmask;
typedef float64x2_t vd;
typedef uint64x2_t dmask;

static inline vf f_load(const float *p) { return vld1q_f32(p); }
static inline void f_store(float *p, vf v) { vst1q_f32(p, v); }
static inline vf f_set(float x) { return vdupq_n_f32(x); }
static inline vf f_add(vf a, vf b) { return vaddq_f32(a, b); }
static inline vf f_sub(vf a, vf b) { return vsubq_f32(a, b); }
static inline vf f_mul(vf a, vf b) { return vmulq_f32(a, b); }
static inline vf f_div(vf a, vf b) { return vdivq_f32(a, b); }
static inline vf f_neg(vf a) { return vnegq_f32(a); }
static inline vf f_abs(vf a) { return vabsq_f32(a); }
static inline fmask f_gt(vf a, vf b) { return vcgtq_f32(a, b); }
static inline fmask f_lt(vf a, vf b) { return vcltq_f32(a, b); }
static inline fmask f_nan(vf a) { return vmvnq_u32(vceqq_f32(a, a)); }
static inline vf f_select(fmask m, vf a, vf b) { return vbslq_f32(m, a, b); }
static inline fmask f_or(fmask a, fmask b) { return vorrq_u32(a, b); }
static inline fmask f_and(fmask a, fmask b) { return vandq_u32(a, b); }
static inline fmask f_not_within(vf a, float lo, float hi)
{
    return vmvnq_u32(vandq_u32(vcgeq_f32(a, f_set(lo)), vcleq_f32(a, f_set(hi))));
}
static inline bool f_any(fmask m) { return vmaxvq_u32(m) != 0; }

static inline vd d_lo(vf a) { return vcvt_f64_f32(vget_low_f32(a)); }
static inline vd d_hi(vf a) { return vcvt_high_f64_f32(a); }
static inline vf f_of(vd lo, vd hi) { return vcvt_high_f32_f64(vcvt_f32_f64(lo), hi); }

static inline vd d_set(double x) { return vdupq_n_f64(x); }
static inline vd d_add(vd a, vd b) { return vaddq_f64(a, b); }
static inline vd d_sub(vd a, vd b) { return vsubq_f64(a, b); }
static inline vd d_mul(vd a, vd b) { return vmulq_f64(a, b); }
static inline vd d_div(vd a, vd b) { return vdivq_f64(a, b); }
static inline vd d_abs(vd a) { return vabsq_f64(a); }
static inline vd d_floor(vd a) { return vrndmq_f64(a); }
static inline dmask d_eq(vd a, vd b) { return vceqq_f64(a, b); }
static inline vd d_select(dmask m, vd a, vd b) { return vbslq_f64(m, a, b); }
static inline vd d_fma(vd a, vd b, vd c) { return vfmaq_f64(c, a, b); }
static inline bool d_any(dmask m) { return (vgetq_lane_u64(m, 0) | vgetq_lane_u64(m, 1)) != 0; }
static inline dmask d_or(dmask a, dmask b) { return vorrq_u64(a, b); }
static inline vd d_scale16(const int64_t t[16], vd k)
{
    int64x2_t kb = vreinterpretq_s64_f64(k);
    int64x2_t e = vcombine_s64(vcreate_s64((uint64_t)t[vgetq_lane_s64(kb, 0) & 15]),
                               vcreate_s64((uint64_t)t[vgetq_lane_s64(kb, 1) & 15]));
    return vreinterpretq_f64_s64(vaddq_s64(e, vshlq_n_s64(kb, 48)));
}
static inline vd d_recip(vd d) { return vdivq_f64(vdupq_n_f64(1.0), d); }
static inline dmask d_bits_zero(vd y, int64_t sub, int64_t mask)
{
    int64x2_t b = vsubq_s64(vreinterpretq_s64_f64(y), vdupq_n_s64(sub));
    return vceqzq_s64(vandq_s64(b, vdupq_n_s64(mask)));
}

/* The exponent field k + 1023 (FCVTZS saturates what does not fit). */
static inline vd d_pow2(vd k)
{
    int64x2_t e = vaddq_s64(vcvtq_s64_f64(k), vdupq_n_s64(1023));
    return vreinterpretq_f64_s64(vshlq_n_s64(e, 52));
}

#include "fast/exp_body.h"

/* No GELU: gelu_body.h copies x86-64 glibc's erfcf, whose Arm build fuses differently. */
const pl_exp_kernels pl_exp_neon = {expf_n, tanhf_n, logistic_n, softmax_rows,
                                    NULL,   NULL,    silu_n};
