/* pool_neon.c - the pooling windows with NEON (see pool.h): int8 maxima 16 channels per vector
** (then 8), int16 maxima 8 (then 4), int8 and int16 sums 8 per step in two int32 vectors, floats 4
** per vector; channels past the last whole step one at a time with the reference's scalar
** arithmetic. */
#include <arm_neon.h>
#include <float.h>

#include "fast/pool_tail.h"

/* The sums + count / 2 away from zero: the numerators of the rounded averages. */
static inline int32x4_t numerators(int32x4_t acc, int32x4_t half)
{
    return vbslq_s32(vcgtq_s32(acc, vdupq_n_s32(0)), vaddq_s32(acc, half),
                     vsubq_s32(acc, half));
}

static inline int32x4_t clamp4(int32x4_t v, int32_t lo, int32_t hi)
{
    return vminq_s32(vmaxq_s32(v, vdupq_n_s32(lo)), vdupq_n_s32(hi));
}

/* The reference's float clamp as it compares: NaN passes, FMAX/FMIN's rules never apply. */
static inline float32x4_t clamp_f32(float32x4_t v, float32x4_t lo, float32x4_t hi)
{
    v = vbslq_f32(vcltq_f32(v, lo), lo, v);
    return vbslq_f32(vcgtq_f32(v, hi), hi, v);
}

static void max_s8(const pl_pool_window *w, const int8_t *x, int32_t lo, int32_t hi,
                   int8_t *out)
{
    int32_t c = 0;
    for (; w->depth - c >= 16; c += 16) {
        int8x16_t m = vdupq_n_s8(INT8_MIN);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                m = vmaxq_s8(m, vld1q_s8(PL_POOL_TAP(x, w, r, k) + c));
        vst1q_s8(out + c, vminq_s8(vmaxq_s8(m, vdupq_n_s8((int8_t)lo)), vdupq_n_s8((int8_t)hi)));
    }
    if (w->depth - c >= 8) { /* half a vector: 8 channels are common in small nets */
        int8x8_t m = vdup_n_s8(INT8_MIN);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                m = vmax_s8(m, vld1_s8(PL_POOL_TAP(x, w, r, k) + c));
        vst1_s8(out + c, vmin_s8(vmax_s8(m, vdup_n_s8((int8_t)lo)), vdup_n_s8((int8_t)hi)));
        c += 8;
    }
    pl_pool_max_tail_s8(w, x, c, lo, hi, out);
}

/* num / count truncated (FCVTZS): |num| < 2^24 and the quotient below 256, so the float
** division gives the exact integer quotient (pool.c limits count). */
static inline int32x4_t divide_f32(int32x4_t num, float32x4_t count)
{
    return vcvtq_s32_f32(vdivq_f32(vcvtq_f32_s32(num), count));
}

static void avg_s8(const pl_pool_window *w, const int8_t *x, int32_t lo, int32_t hi,
                   int8_t *out)
{
    const int32_t count = w->rows * w->cols;
    const float32x4_t fcount = vdupq_n_f32((float)count);
    const int32x4_t half = vdupq_n_s32(count / 2);
    int32_t c = 0;
    for (; w->depth - c >= 8; c += 8) {
        int32x4_t acc0 = vdupq_n_s32(0), acc1 = acc0;
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++) {
                int16x8_t v = vmovl_s8(vld1_s8(PL_POOL_TAP(x, w, r, k) + c));
                acc0 = vaddw_s16(acc0, vget_low_s16(v));
                acc1 = vaddw_high_s16(acc1, v);
            }
        int32x4_t q0 = clamp4(divide_f32(numerators(acc0, half), fcount), lo, hi);
        int32x4_t q1 = clamp4(divide_f32(numerators(acc1, half), fcount), lo, hi);
        vst1_s8(out + c, vqmovn_s16(vcombine_s16(vqmovn_s32(q0), vqmovn_s32(q1))));
    }
    pl_pool_avg_tail_s8(w, x, c, lo, hi, out);
}

static void max_s16(const pl_pool_window *w, const int16_t *x, int32_t lo, int32_t hi,
                    int16_t *out)
{
    int32_t c = 0;
    for (; w->depth - c >= 8; c += 8) {
        int16x8_t m = vdupq_n_s16(INT16_MIN);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                m = vmaxq_s16(m, vld1q_s16(PL_POOL_TAP(x, w, r, k) + c));
        m = vminq_s16(vmaxq_s16(m, vdupq_n_s16((int16_t)lo)), vdupq_n_s16((int16_t)hi));
        vst1q_s16(out + c, m);
    }
    if (w->depth - c >= 4) { /* half a vector */
        int16x4_t m = vdup_n_s16(INT16_MIN);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                m = vmax_s16(m, vld1_s16(PL_POOL_TAP(x, w, r, k) + c));
        vst1_s16(out + c, vmin_s16(vmax_s16(m, vdup_n_s16((int16_t)lo)), vdup_n_s16((int16_t)hi)));
        c += 4;
    }
    pl_pool_max_tail_s16(w, x, c, lo, hi, out);
}

/* num / count truncated in double: both are exact and the quotient, within 2^-37 of the
** true one, never crosses an integer it does not reach (count < 2^16). */
static inline int32x4_t divide_f64(int32x4_t num, float64x2_t count)
{
    float64x2_t lo = vdivq_f64(vcvtq_f64_s64(vmovl_s32(vget_low_s32(num))), count);
    float64x2_t hi = vdivq_f64(vcvtq_f64_s64(vmovl_high_s32(num)), count);
    return vcombine_s32(vmovn_s64(vcvtq_s64_f64(lo)), vmovn_s64(vcvtq_s64_f64(hi)));
}

static void avg_s16(const pl_pool_window *w, const int16_t *x, int32_t lo, int32_t hi,
                    int16_t *out)
{
    const int32_t count = w->rows * w->cols;
    const float64x2_t dcount = vdupq_n_f64((double)count);
    const int32x4_t half = vdupq_n_s32(count / 2);
    int32_t c = 0;
    for (; w->depth - c >= 8; c += 8) {
        int32x4_t acc0 = vdupq_n_s32(0), acc1 = acc0;
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++) {
                int16x8_t v = vld1q_s16(PL_POOL_TAP(x, w, r, k) + c);
                acc0 = vaddw_s16(acc0, vget_low_s16(v));
                acc1 = vaddw_high_s16(acc1, v);
            }
        int32x4_t q0 = clamp4(divide_f64(numerators(acc0, half), dcount), lo, hi);
        int32x4_t q1 = clamp4(divide_f64(numerators(acc1, half), dcount), lo, hi);
        vst1q_s16(out + c, vcombine_s16(vqmovn_s32(q0), vqmovn_s32(q1)));
    }
    pl_pool_avg_tail_s16(w, x, c, lo, hi, out);
}

static void max_f32(const pl_pool_window *w, const float *x, float lo, float hi, float *out)
{
    const float32x4_t vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi);
    int32_t c = 0;
    for (; w->depth - c >= 4; c += 4) {
        float32x4_t m = vdupq_n_f32(-FLT_MAX);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++) {
                float32x4_t v = vld1q_f32(PL_POOL_TAP(x, w, r, k) + c);
                m = vbslq_f32(vcltq_f32(m, v), v, m); /* m < x ? x : m: NaN never taken */
            }
        vst1q_f32(out + c, clamp_f32(m, vlo, vhi));
    }
    pl_pool_max_tail_f32(w, x, c, lo, hi, out);
}

static void avg_f32(const pl_pool_window *w, const float *x, float lo, float hi, float *out)
{
    const float count = (float)(w->rows * w->cols);
    const float32x4_t vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi), vcount = vdupq_n_f32(count);
    int32_t c = 0;
    for (; w->depth - c >= 4; c += 4) {
        float32x4_t t = vdupq_n_f32(0.0f);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                t = vaddq_f32(t, vld1q_f32(PL_POOL_TAP(x, w, r, k) + c));
        vst1q_f32(out + c, clamp_f32(vdivq_f32(t, vcount), vlo, vhi));
    }
    pl_pool_avg_tail_f32(w, x, c, lo, hi, out);
}

const pl_pool pl_pool_neon = {max_s8, avg_s8, max_s16, avg_s16, max_f32, avg_f32};
