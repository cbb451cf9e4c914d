/* fixedpoint.c - TFLite's reference fixed-point arithmetic (see fixedpoint.h). */
#include "fixedpoint.h"

#include <float.h>
#include <math.h> /* frexp only: it lives in libc, the core does not link libm */

double pl_fx_round(double x)
{
    if (!(x > -0x1p52 && x < 0x1p52))
        return x;
    double t = (double)(int64_t)x; /* truncated; x - t is exact here */
    if (x - t >= 0.5)
        t += 1.0;
    else if (x - t <= -0.5)
        t -= 1.0;
    return t;
}

float pl_fx_roundf(float x)
{
    if (!(x > -0x1p23f && x < 0x1p23f))
        return x;
    float t = (float)(int32_t)x;
    if (x - t >= 0.5f)
        t += 1.0f;
    else if (x - t <= -0.5f)
        t -= 1.0f;
    return t;
}

double pl_fx_pick(int wide, double wide_value, double narrow_value)
{
    return wide ? wide_value : narrow_value;
}

void pl_fx_quantize_multiplier(double multiplier, int32_t *quantized, int32_t *shift)
{
    /* 0, or not finite (only hostile scales or options give inf or NaN): a defined 0 */
    if (multiplier == 0.0 || !(multiplier > -DBL_MAX && multiplier < DBL_MAX)) {
        *quantized = 0;
        *shift = 0;
        return;
    }
    int exp = 0;
    double q = frexp(multiplier, &exp);
    int64_t q_fixed = (int64_t)pl_fx_round(q * (double)(1LL << 31));
    if (q_fixed == (1LL << 31)) { /* rounding carried into bit 31 */
        q_fixed /= 2;
        exp++;
    }
    if (exp < -31) { /* every bit would be shifted out: TFLite flushes to zero */
        exp = 0;
        q_fixed = 0;
    }
    *quantized = (int32_t)q_fixed;
    *shift = exp;
}

void pl_fx_channel_multipliers(float in_scale, const float *filter_scales, uint32_t nscales,
                               float out_scale, int32_t channels, int32_t *multiplier,
                               int32_t *shift)
{
    for (int32_t c = 0; c < channels; c++) {
        double fs = (double)filter_scales[nscales > 1 ? (uint32_t)c : 0u];
        double effective = (double)in_scale * fs / (double)out_scale;
        pl_fx_quantize_multiplier(effective, &multiplier[c], &shift[c]);
    }
}

int32_t pl_fx_srdhm(int32_t a, int32_t b)
{
    if (a == b && a == INT32_MIN)
        return INT32_MAX;
    int64_t ab = (int64_t)a * (int64_t)b;
    int64_t nudge = ab >= 0 ? (1LL << 30) : (1 - (1LL << 30));
    /* C division truncates toward zero, as gemmlowp's does */
    return (int32_t)((ab + nudge) / (1LL << 31));
}

int32_t pl_fx_rdbpot(int32_t x, int32_t exponent)
{
    int32_t mask = (int32_t)((1LL << exponent) - 1);
    int32_t remainder = x & mask;
    int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

int32_t pl_fx_mul_by_qm(int32_t x, int32_t quantized_multiplier, int32_t shift)
{
    /* Hostile scales give shifts past 31 either way: every bit goes (left, as wrapping
    ** would) or the rounding shift is capped at 31, so each shift stays defined. */
    int32_t left = shift > 0 ? shift : 0;
    int32_t right = shift > 0 ? 0 : (shift < -31 ? 31 : -shift);
    /* TFLite multiplies in int32 and wraps in practice; do it defined-ly */
    int32_t scaled = left < 32 ? (int32_t)((uint32_t)x << left) : 0;
    return pl_fx_rdbpot(pl_fx_srdhm(scaled, quantized_multiplier), right);
}

int32_t pl_fx_mul_by_qm64(int64_t x, int32_t quantized_multiplier, int32_t shift)
{
    int32_t reduced = quantized_multiplier < 0x7FFF0000
                          ? (int32_t)(((int64_t)quantized_multiplier + (1 << 15)) >> 16)
                          : 0x7FFF;
    int32_t total_shift = pl_fx_clamp(15 - shift, 1, 63); /* 1..46 for any sane scale */
    /* TFLite's int64 arithmetic wraps on hostile inputs; do it defined-ly (same bits) */
    uint64_t p = (uint64_t)x * (uint64_t)(int64_t)reduced + ((uint64_t)1 << (total_shift - 1));
    return (int32_t)((int64_t)p >> total_shift); /* truncation to int32 as in TFLite */
}

/* zero_point + round(f / scale), all in float as TFLite's Quantize lambda does. */
static pl_status quantize_bound(float f, float scale, int32_t zero_point, int32_t *out)
{
    float t = pl_fx_roundf(f / scale);
    if (!(t >= -2147483648.0f && t < 2147483648.0f))
        return PL_ERR_MODEL;
    int64_t q = (int64_t)zero_point + (int32_t)t; /* hostile zero points overflow int32 */
    if (q < INT32_MIN || q > INT32_MAX)
        return PL_ERR_MODEL;
    *out = (int32_t)q;
    return PL_OK;
}

pl_status pl_fx_activation_range_q(int32_t activation, float scale, int32_t zero_point,
                                   int32_t qmin, int32_t qmax, int32_t *act_min,
                                   int32_t *act_max)
{
    int32_t lo = qmin, hi = qmax, q = 0;
    if (activation == PL_ACT_RELU || activation == PL_ACT_RELU6) {
        PL_TRY(quantize_bound(0.0f, scale, zero_point, &q));
        lo = q > qmin ? q : qmin;
    }
    if (activation == PL_ACT_RELU6) {
        PL_TRY(quantize_bound(6.0f, scale, zero_point, &q));
        hi = q < qmax ? q : qmax;
    }
    if (activation == PL_ACT_RELU_N1_TO_1) {
        PL_TRY(quantize_bound(-1.0f, scale, zero_point, &q));
        lo = q > qmin ? q : qmin;
        PL_TRY(quantize_bound(1.0f, scale, zero_point, &q));
        hi = q < qmax ? q : qmax;
    }
    *act_min = lo;
    *act_max = hi;
    return PL_OK;
}

void pl_fx_activation_range_f32(int32_t activation, float *act_min, float *act_max)
{
    *act_min = -FLT_MAX;
    *act_max = FLT_MAX;
    if (activation == PL_ACT_RELU) {
        *act_min = 0.0f;
    } else if (activation == PL_ACT_RELU6) {
        *act_min = 0.0f;
        *act_max = 6.0f;
    } else if (activation == PL_ACT_RELU_N1_TO_1) {
        *act_min = -1.0f;
        *act_max = 1.0f;
    }
}
