/* stage16_neon.h - TFLite's 16x8 64-bit rescale on int64 lanes with NEON, shared by the
** 16x8 product and depthwise rows. NEON has no 64-bit multiply: it is built from 32-bit
** ones; SSHL by a negative count is the arithmetic right shift (truncating, as >> is). */
#ifndef PL_FAST_ARM_STAGE16_NEON_H
#define PL_FAST_ARM_STAGE16_NEON_H

#include <arm_neon.h>
#include <stdbool.h>
#include <stdint.h>

/* t * r mod 2^64 per lane: the low halves' full product plus the cross products' low
** halves shifted up. */
static inline int64x2_t pl_mul64_neon(int64x2_t t, int64x2_t r)
{
    uint64x2_t ut = vreinterpretq_u64_s64(t), ur = vreinterpretq_u64_s64(r);
    uint32x2_t tl = vmovn_u64(ut), th = vshrn_n_u64(ut, 32);
    uint32x2_t rl = vmovn_u64(ur), rh = vshrn_n_u64(ur, 32);
    uint32x2_t cross = vmla_u32(vmul_u32(th, rl), tl, rh);
    uint64x2_t p = vaddq_u64(vmull_u32(tl, rl), vshlq_n_u64(vmovl_u32(cross), 32));
    return vreinterpretq_s64_u64(p);
}

/* 4 int64 sums (lo, hi) + bias through TFLite's 64-bit rescale, (t * reduced + round) >>
** shift (shift 1..63), truncated to int32, from the arrays' entries 0..3; with narrow (t
** fits in int32, as reduced does) the product is one SMULL. */
static inline int32x4_t pl_stage64_neon(int64x2_t lo, int64x2_t hi, const int64_t *bias,
                                        const int64_t *reduced, const int64_t *round,
                                        const int64_t *shift, bool narrow)
{
    int64x2_t t[2] = {vaddq_s64(lo, vld1q_s64(bias)), vaddq_s64(hi, vld1q_s64(bias + 2))};
    int32x2_t half[2];
    for (int32_t h = 0; h < 2; h++) {
        int64x2_t r = vld1q_s64(reduced + 2 * h);
        int64x2_t prod = narrow ? vmull_s32(vmovn_s64(t[h]), vmovn_s64(r))
                                : pl_mul64_neon(t[h], r);
        int64x2_t p = vaddq_s64(prod, vld1q_s64(round + 2 * h));
        half[h] = vmovn_s64(vshlq_s64(p, vnegq_s64(vld1q_s64(shift + 2 * h))));
    }
    return vcombine_s32(half[0], half[1]);
}

/* + the output offset, then the activation clamp. */
static inline int32x4_t pl_clamp_neon(int32x4_t v, int32_t out_offset, int32_t act_min,
                                      int32_t act_max)
{
    v = vaddq_s32(v, vdupq_n_s32(out_offset));
    return vminq_s32(vmaxq_s32(v, vdupq_n_s32(act_min)), vdupq_n_s32(act_max));
}

#endif
