/* dw_pairs_neon.h - the NEON depthwise rows' sums, int8's and 16x8's (the x86 group layout,
** depthwise.h): two taps' staged int16 values interleaved as the weight pairs are (ZIP1/ZIP2)
** and SMLAL/SMLAL2 into two sums per channel pair, added pairwise by the caller: exact. */
#ifndef PL_FAST_ARM_DW_PAIRS_NEON_H
#define PL_FAST_ARM_DW_PAIRS_NEON_H

#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

#include "fast/inline.h"

/* a[r] and b[r] for r < n: point r's sums (points step apart from in + c0) of tap t's and
** tap t + 1's products, channels in the layout's order (0-3, 8-11, 4-7, 12-15), over taps
** (even) at tap_at with the group's weights w. Returns past the weights: the group's stage. */
PL_FAST_INLINE const int16_t *pl_dw_pairs_neon(int32_t taps, const size_t *tap_at, size_t step,
                                               int32_t n, const int16_t *in, int32_t c0,
                                               const int16_t *w, int32x4_t a[][4],
                                               int32x4_t b[][4])
{
    PL_FAST_UNROLL
    for (int32_t r = 0; r < n; r++)
        PL_FAST_UNROLL
        for (int32_t h = 0; h < 4; h++)
            a[r][h] = b[r][h] = vdupq_n_s32(0);
    for (int32_t t = 0; t < taps; t += 2, w += 32) {
        int16x8_t wz[4] = {vld1q_s16(w), vld1q_s16(w + 8), vld1q_s16(w + 16),
                           vld1q_s16(w + 24)};
        const int16_t *x0 = in + tap_at[t] + c0, *x1 = in + tap_at[t + 1] + c0;
        PL_FAST_UNROLL
        for (int32_t r = 0; r < n; r++) {
            size_t at = (size_t)r * step;
            int16x8_t p0 = vld1q_s16(x0 + at), p1 = vld1q_s16(x0 + at + 8);
            int16x8_t q0 = vld1q_s16(x1 + at), q1 = vld1q_s16(x1 + at + 8);
            int16x8_t z[4] = {vzip1q_s16(p0, q0), vzip1q_s16(p1, q1), vzip2q_s16(p0, q0),
                              vzip2q_s16(p1, q1)};
            PL_FAST_UNROLL
            for (int32_t h = 0; h < 4; h++) {
                a[r][h] = vmlal_s16(a[r][h], vget_low_s16(z[h]), vget_low_s16(wz[h]));
                b[r][h] = vmlal_high_s16(b[r][h], z[h], wz[h]);
            }
        }
    }
    return w;
}

#endif
