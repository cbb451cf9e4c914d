/* fixedpoint.h - the integer arithmetic of TFLite's reference kernels, in one place.
**
** Every kernel's quantized path uses these, so bit-exactness is decided here once.
** Semantics follow TFLite's reference kernels (tensorflow/lite/kernels/internal/common.h,
** quantization_util.cc, gemmlowp's fixedpoint): rounding, saturation and shifts included. */
#ifndef PL_KERNELS_FIXEDPOINT_H
#define PL_KERNELS_FIXEDPOINT_H

#include <stdint.h>

/* double multiplier -> Q31 significand and shift (TFLite QuantizeMultiplier):
** multiplier == 0 gives (0, 0); the significand is in [2^30, 2^31). */
void pl_fx_quantize_multiplier(double multiplier, int32_t *quantized, int32_t *shift);

/* gemmlowp SaturatingRoundingDoublingHighMul. */
int32_t pl_fx_srdhm(int32_t a, int32_t b);

/* gemmlowp RoundingDivideByPOT (round half away from zero). */
int32_t pl_fx_rdbpot(int32_t x, int32_t exponent);

/* TFLite MultiplyByQuantizedMultiplier(int32 x, int32 m, int shift) (the reference,
** non-"single-rounding" variant). */
int32_t pl_fx_mul_by_qm(int32_t x, int32_t quantized_multiplier, int32_t shift);

/* The int64 accumulator variant used by 16x8 kernels. */
int32_t pl_fx_mul_by_qm64(int64_t x, int32_t quantized_multiplier, int32_t shift);

static inline int32_t pl_fx_clamp(int32_t x, int32_t lo, int32_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

#endif
