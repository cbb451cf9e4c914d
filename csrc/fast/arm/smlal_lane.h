/* smlal_lane.h - the NEON int8 and 16x8 products' multiply-accumulate: 16 channels of int32
** sums += one int16 input lane times the panel's 16 int16 weights of that k (SMLAL by
** element: int16 x int16 products into int32 lanes, exact). */
#ifndef PL_FAST_ARM_SMLAL_LANE_H
#define PL_FAST_ARM_SMLAL_LANE_H

#include <arm_neon.h>
#include <stdint.h>

#include "fast/inline.h"

/* acc (16 channels) += the panel's w[k + LANE] times x[LANE] (the lane must be a constant). */
#define MAC_LANE(acc, w, x, LANE)                                                            \
    do {                                                                                     \
        (acc)[0] = vmlal_lane_s16((acc)[0], vget_low_s16((w)[2 * (LANE)]), (x), (LANE));     \
        (acc)[1] = vmlal_high_lane_s16((acc)[1], (w)[2 * (LANE)], (x), (LANE));              \
        (acc)[2] = vmlal_lane_s16((acc)[2], vget_low_s16((w)[2 * (LANE) + 1]), (x), (LANE)); \
        (acc)[3] = vmlal_high_lane_s16((acc)[3], (w)[2 * (LANE) + 1], (x), (LANE));          \
    } while (0)

/* The panel's w[k..k+3] of its 16 channels (p at k), as MAC_LANE takes them. */
PL_FAST_INLINE void pl_smlal_weights(const int16_t *p, int16x8_t w[8])
{
    PL_FAST_UNROLL
    for (int32_t v = 0; v < 8; v++)
        w[v] = vld1q_s16(p + 8 * v);
}

#endif
