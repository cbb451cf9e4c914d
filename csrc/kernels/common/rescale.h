/* rescale.h - TFLite's MultiplyByQuantizedMultiplier for the int8 conv output stages, inline.
**
** The same arithmetic as fixedpoint.c's pl_fx_mul_by_qm (bit for bit, hostile shifts
** included), but branch-free and inlined into the per-channel loops, so the compiler can
** interleave several channels instead of calling out once per output value. */
#ifndef PL_KERNELS_RESCALE_H
#define PL_KERNELS_RESCALE_H

#include <stdint.h>

static inline int32_t pl_rescale_qm(int32_t x, int32_t multiplier, int32_t shift)
{
    const int32_t left = shift > 0 ? shift : 0;
    const int32_t right = shift > 0 ? 0 : (shift < -31 ? 31 : -shift);
    const int32_t scaled = left < 32 ? (int32_t)((uint32_t)x << left) : 0;
    /* SaturatingRoundingDoublingHighMul: division truncates toward zero, as gemmlowp's */
    const int64_t ab = (int64_t)scaled * (int64_t)multiplier;
    const int64_t nudge = ab >= 0 ? (1LL << 30) : (1 - (1LL << 30));
    int32_t high = (int32_t)((ab + nudge) / (1LL << 31));
    high = scaled == INT32_MIN && multiplier == INT32_MIN ? INT32_MAX : high;
    /* RoundingDivideByPOT: half away from zero */
    const int32_t mask = (int32_t)((1LL << right) - 1);
    const int32_t threshold = (mask >> 1) + (high < 0 ? 1 : 0);
    return (high >> right) + ((high & mask) > threshold ? 1 : 0);
}

#endif
