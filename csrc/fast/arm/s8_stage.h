/* s8_stage.h - the int8 output stage on NEON, shared by the int8 kernels: 16 channels of
** int32 sums (four vectors) to the output row, or stored raw. */
#ifndef PL_FAST_ARM_S8_STAGE_H
#define PL_FAST_ARM_S8_STAGE_H

#include <arm_neon.h>
#include <string.h>

#include "fast/gemm.h"

/* One panel's stage operands, loaded once per panel: left shifts capped at 32 (SSHL takes
** the count's low byte as signed, and a shift of 32 or more gives 0, as the reference's
** wrap does), right shifts negated (SRSHL shifts right by a negative count). */
typedef struct pl_neon_stage {
    int32x4_t addend[4], mult[4], left[4], neg_right[4];
    int32x4_t out_offset, act_min, act_max;
} pl_neon_stage;

static inline void pl_neon_stage_of(const pl_s8_stage *st, int32_t n0, pl_neon_stage *ns)
{
    for (int32_t h = 0; h < 4; h++) {
        int32_t c = n0 + 4 * h;
        ns->addend[h] = vld1q_s32(st->addend + c);
        ns->mult[h] = vld1q_s32(st->mult + c);
        ns->left[h] = vminq_s32(vld1q_s32(st->left + c), vdupq_n_s32(32));
        ns->neg_right[h] = vnegq_s32(vld1q_s32(st->right + c));
    }
    ns->out_offset = vdupq_n_s32(st->out_offset);
    ns->act_min = vdupq_n_s32(st->act_min);
    ns->act_max = vdupq_n_s32(st->act_max);
}

/* TFLite's MultiplyByQuantizedMultiplier on 4 lanes. SQRDMULH is the reference's doubling
** high multiply (both give floor((x * m + 2^30) / 2^31); multipliers are never INT32_MIN, so
** neither saturates). SRSHL rounds half up; taking 1 from a negative x first (when it
** shifts) makes that the reference's half away from zero. */
static inline int32x4_t pl_neon_rescale(int32x4_t x, int32x4_t mult, int32x4_t left,
                                        int32x4_t neg_right)
{
    int32x4_t high = vqrdmulhq_s32(vshlq_s32(x, left), mult);
    int32x4_t fixup = vshrq_n_s32(vandq_s32(high, neg_right), 31);
    return vrshlq_s32(vqaddq_s32(high, fixup), neg_right);
}

/* Row `row` of the output (out or raw, the other NULL), channels n0.. of n. */
static inline void pl_neon_finish(const int32x4_t acc[4], const pl_neon_stage *ns, int32_t n0,
                                  int32_t n, int8_t *out, int32_t *raw, size_t row)
{
    int32_t count = n - n0 >= 16 ? 16 : n - n0;
    if (ns == NULL) {
        int32_t tmp[16];
        for (int32_t h = 0; h < 4; h++)
            vst1q_s32(tmp + 4 * h, acc[h]);
        memcpy(raw + row + (size_t)n0, tmp, sizeof(int32_t) * (size_t)count);
        return;
    }
    int16x4_t words[4];
    for (int32_t h = 0; h < 4; h++) {
        int32x4_t v = vaddq_s32(acc[h], ns->addend[h]);
        v = pl_neon_rescale(v, ns->mult[h], ns->left[h], ns->neg_right[h]);
        v = vaddq_s32(v, ns->out_offset);
        v = vminq_s32(vmaxq_s32(v, ns->act_min), ns->act_max);
        words[h] = vqmovn_s32(v);
    }
    int8x16_t bytes = vcombine_s8(vqmovn_s16(vcombine_s16(words[0], words[1])),
                                  vqmovn_s16(vcombine_s16(words[2], words[3])));
    int8_t tmp[16];
    vst1q_s8(tmp, bytes);
    memcpy(out + row + (size_t)n0, tmp, (size_t)count);
}

#endif
