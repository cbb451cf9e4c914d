/* f32_neon.c - the float32 matrix product with NEON, 16 output channels in four vectors.
** Each lane sums its channel's products in k order with a separate multiply and add (FMUL
** then FADD: this file is built with -ffp-contract=off), or with FMLA for a fused target
** (run_fused): the portable kernel's own rounding, bit for bit. */
#include <arm_neon.h>
#include <string.h>

#include "fast/gemm.h"

enum { NR = 16, MR = 4 };

#include "fast/f32_pack.h"

/* The reference's min(max(x, lo), hi) as it compares (x < lo ? lo : x, then y > hi ? hi :
** y): NaN passes, and FMAX/FMIN's own rules (for NaN and signed zeros) never apply. */
static inline float32x4_t clamp(float32x4_t x, float32x4_t lo, float32x4_t hi)
{
    float32x4_t y = vbslq_f32(vcltq_f32(x, lo), lo, x);
    return vbslq_f32(vcgtq_f32(y, hi), hi, y);
}

/* acc + w * x, the one step a fused target changes: fused (one rounding, as the firmware's
** VFMA) or a multiply and an add. */
PL_FAST_INLINE float32x4_t madd(float32x4_t acc, float32x4_t w, float x, bool fused)
{
    return fused ? vfmaq_n_f32(acc, w, x) : vaddq_f32(acc, vmulq_n_f32(w, x));
}

/* rows (1..MR) rows of a from row m0 on against one panel: + bias, clamp, store. */
PL_FAST_INLINE void block(int32_t rows, int32_t m0, int32_t k, const float *a, size_t lda,
                          const float *panel, const float *bias, float lo, float hi, int32_t n0,
                          int32_t n, float *out, size_t ldo, bool fused)
{
    float32x4_t acc[MR][4];
    a += (size_t)m0 * lda;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < MR; r++)
        for (int32_t h = 0; h < 4; h++)
            acc[r][h] = vdupq_n_f32(0.0f);
    for (int32_t i = 0; i < k; i++) {
        const float *p = panel + (size_t)i * NR;
        float32x4_t w0 = vld1q_f32(p), w1 = vld1q_f32(p + 4), w2 = vld1q_f32(p + 8),
                    w3 = vld1q_f32(p + 12);
        PL_FAST_UNROLL
        for (int32_t r = 0; r < rows; r++) {
            float x = a[(size_t)r * lda + (size_t)i];
            acc[r][0] = madd(acc[r][0], w0, x, fused);
            acc[r][1] = madd(acc[r][1], w1, x, fused);
            acc[r][2] = madd(acc[r][2], w2, x, fused);
            acc[r][3] = madd(acc[r][3], w3, x, fused);
        }
    }
    int32_t count = n - n0 >= NR ? NR : n - n0;
    float b[NR] = {0}; /* the reference adds 0.0f without a bias */
    if (bias != NULL)
        memcpy(b, bias + n0, sizeof(float) * (size_t)count);
    float32x4_t lov = vdupq_n_f32(lo), hiv = vdupq_n_f32(hi);
    PL_FAST_UNROLL
    for (int32_t r = 0; r < rows; r++) {
        float tmp[NR];
        for (int32_t h = 0; h < 4; h++)
            vst1q_f32(tmp + 4 * h, clamp(vaddq_f32(acc[r][h], vld1q_f32(b + 4 * h)), lov, hiv));
        memcpy(out + (size_t)(m0 + r) * ldo + (size_t)n0, tmp, sizeof(float) * (size_t)count);
    }
}

#define F32_FUSED
#include "fast/f32_narrow_run.h"

const pl_gemm_f32 pl_gemm_f32_neon = {packed_bytes, pack, pack_by_depth,
                                      run, run_fused, NULL, NULL};
