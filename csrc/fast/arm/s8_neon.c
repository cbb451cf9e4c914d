/* s8_neon.c - the int8 matrix product with NEON: activations widened to int16 and SMLAL by
** element (int16 x int16 products accumulated into int32 lanes: exact), 16 output channels
** in four vectors. Advanced SIMD is part of every arm64 CPU. */
#include <arm_neon.h>
#include <string.h>

#include "fast/arm/s8_stage.h"
#include "fast/arm/smlal_lane.h"
#include "fast/gemm.h"
#include "fast/gemm_pack.h"

enum { NR = 16, MR = 4 };

/* Panels of 16 channels; per k, the 16 channels' w[k] as int16 (0 past n or k). */
PL_GEMM_PACKING(NR, 1, 1, true)

/* rows (1..MR) rows of a from row m0 on against one panel. */
PL_FAST_INLINE void block(int32_t rows, int32_t m0, int32_t kp, const uint8_t *a, size_t lda,
                          const int16_t *panel, const pl_neon_stage *ns, int32_t n0, int32_t n,
                          int8_t *out, int32_t *raw, size_t ldo)
{
    int32x4_t acc[MR][4];
    a += (size_t)m0 * lda;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < MR; r++)
        for (int32_t h = 0; h < 4; h++)
            acc[r][h] = vdupq_n_s32(0);
    for (int32_t k = 0; k < kp; k += 4) {
        int16x8_t w[8];
        pl_smlal_weights(panel + (size_t)k * NR, w);
        PL_FAST_UNROLL
        for (int32_t r = 0; r < rows; r++) {
            uint32_t x4;
            memcpy(&x4, a + (size_t)r * lda + (size_t)k, 4);
            /* bytes 0..255 widened: lanes 0..3 hold x[k..k+3] as int16 */
            int16x4_t x = vget_low_s16(vreinterpretq_s16_u16(
                vmovl_u8(vreinterpret_u8_u32(vdup_n_u32(x4)))));
            MAC_LANE(acc[r], w, x, 0);
            MAC_LANE(acc[r], w, x, 1);
            MAC_LANE(acc[r], w, x, 2);
            MAC_LANE(acc[r], w, x, 3);
        }
    }
    PL_FAST_UNROLL
    for (int32_t r = 0; r < rows; r++)
        pl_neon_finish(acc[r], ns, n0, n, out, raw, (size_t)(m0 + r) * ldo);
}

typedef int16_t panel_t;
typedef pl_neon_stage panel_stage;
#define stage_of pl_neon_stage_of

#include "fast/gemm_panels_body.h"

/* 2 units per step in double lanes (FRINTA rounds half away from zero), the last alone. */
void pl_fc_output_neon(const pl_fc_output *o, const int32_t *sums, int32_t n, int8_t *out)
{
    const float64x2_t off = vdupq_n_f64((double)o->p->output_offset);
    const float64x2_t lo = vdupq_n_f64((double)o->p->act_min);
    const float64x2_t hi = vdupq_n_f64((double)o->p->act_max);
    int32_t u = 0;
    for (; n - u >= 2; u += 2) {
        int32x2_t acc = vadd_s32(vld1_s32(sums + u), vld1_s32(o->fold + u));
        if (o->bias != NULL)
            acc = vadd_s32(acc, vld1_s32(o->bias + u));
        float64x2_t x = vmulq_f64(vcvtq_f64_s64(vmovl_s32(acc)), vld1q_f64(o->scale + u));
        float64x2_t t = vminq_f64(vmaxq_f64(vaddq_f64(vrndaq_f64(x), off), lo), hi);
        int64x2_t q = vcvtq_s64_f64(t);
        out[u] = (int8_t)vgetq_lane_s64(q, 0);
        out[u + 1] = (int8_t)vgetq_lane_s64(q, 1);
    }
    for (; u < n; u++)
        out[u] = pl_fc_output_one(o, sums[u], u);
}

const pl_gemm_s8 pl_gemm_s8_neon = {packed_bytes, pack, run, pl_fc_output_neon, NULL};
