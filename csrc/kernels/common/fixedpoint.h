/* fixedpoint.h - the integer arithmetic of TFLite's reference kernels, in one place.
**
** Every kernel's quantized path uses these, so bit-exactness is decided here once.
** Semantics follow TFLite's reference kernels (tensorflow/lite/kernels/internal/common.h,
** quantization_util.cc, kernel_util.cc, gemmlowp's fixedpoint): rounding, saturation and
** shifts included. TFLite is built without TFLITE_SINGLE_ROUNDING, so these are the
** double-rounding variants. */
#ifndef PL_KERNELS_FIXEDPOINT_H
#define PL_KERNELS_FIXEDPOINT_H

#include <stdint.h>

#include "picolite/pl_status.h"

/* double multiplier -> Q31 significand and shift (TFLite QuantizeMultiplier):
** multiplier == 0 gives (0, 0); the significand is in [2^30, 2^31); a rounding carry to
** 2^31 halves it and bumps the shift; shift < -31 flushes to (0, 0). */
void pl_fx_quantize_multiplier(double multiplier, int32_t *quantized, int32_t *shift);

/* TFLite PopulateConvolutionQuantizationParams' multipliers: for each of `channels` output
** channels, QuantizeMultiplier((double)in_scale * filter_scale / (double)out_scale), with a
** single filter scale (nscales == 1) broadcast to every channel. */
void pl_fx_channel_multipliers(float in_scale, const float *filter_scales, uint32_t nscales,
                               float out_scale, int32_t channels, int32_t *multiplier,
                               int32_t *shift);

/* A multiplier's ratio num / den as the firmware computes it. LiteRT's kernels (and TFLM's
** up to 90b983c) divide the float scales in float and widen the quotient; the wheel's TFLM
** widens both scales and divides in double (wide: pl_arith_wide). The two differ in the
** last bits, so the rescaled results differ by one at near-ties. */
static inline double pl_fx_ratio(float num, float den, int wide)
{
    return wide ? (double)num / (double)den : (double)(num / den);
}

/* gemmlowp SaturatingRoundingDoublingHighMul. */
int32_t pl_fx_srdhm(int32_t a, int32_t b);

/* gemmlowp RoundingDivideByPOT (round half away from zero); exponent in [0, 31]. */
int32_t pl_fx_rdbpot(int32_t x, int32_t exponent);

/* TFLite MultiplyByQuantizedMultiplier(int32 x, int32 m, int shift) (the reference,
** non-"single-rounding" variant). */
int32_t pl_fx_mul_by_qm(int32_t x, int32_t quantized_multiplier, int32_t shift);

/* The int64 accumulator variant used by 16x8 kernels: the multiplier is reduced to 16
** bits (rounded, capped at 0x7FFF) and one rounding right shift by 15 - shift follows. */
int32_t pl_fx_mul_by_qm64(int64_t x, int32_t quantized_multiplier, int32_t shift);

/* TfLiteRound (std::round): half away from zero, without libm. NaN and values already
** integral (|x| >= 2^52 or 2^23) come back unchanged. */
double pl_fx_round(double x);
float pl_fx_roundf(float x);

static inline int32_t pl_fx_clamp(int32_t x, int32_t lo, int32_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* Fused activation codes of the schema's ActivationFunctionType. */
enum {
    PL_ACT_NONE = 0,
    PL_ACT_RELU = 1,
    PL_ACT_RELU_N1_TO_1 = 2,
    PL_ACT_RELU6 = 3,
    PL_ACT_TANH = 4,
    PL_ACT_SIGN_BIT = 5
};

/* TFLite CalculateActivationRangeQuantized for an output of range [qmin, qmax] with the
** given scale and zero point: the bounds are zero_point + round(f / scale) in float.
** Activations other than the three ReLUs give [qmin, qmax] (callers reject TANH/SIGN_BIT).
** PL_ERR_MODEL when a bound does not fit int32 (e.g. scale 0). */
pl_status pl_fx_activation_range_q(int32_t activation, float scale, int32_t zero_point,
                                   int32_t qmin, int32_t qmax, int32_t *act_min,
                                   int32_t *act_max);

/* TFLite CalculateActivationRange<float>: [lowest, max] unless a ReLU clamps. */
void pl_fx_activation_range_f32(int32_t activation, float *act_min, float *act_max);

/* TFLite ActivationFunctionWithMinMax for float: min(max(x, lo), hi). */
static inline float pl_fx_clamp_f32(float x, float lo, float hi)
{
    float y = x < lo ? lo : x;
    return y > hi ? hi : y;
}

#endif
