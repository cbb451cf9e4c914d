/* test_fixedpoint.c - TFLite's reference fixed-point arithmetic, edge cases included.
** Expected values follow from TFLite's definitions (quantization_util.cc QuantizeMultiplier,
** gemmlowp SaturatingRoundingDoublingHighMul / RoundingDivideByPOT, common.cc
** MultiplyByQuantizedMultiplier, kernel_util.cc CalculateActivationRangeQuantized). */
#include <float.h>
#include <stdint.h>

#include "harness.h"
#include "kernels/common/fixedpoint.h"

static int32_t qm_m, qm_s;

static void qm(double m)
{
    pl_fx_quantize_multiplier(m, &qm_m, &qm_s);
}

static void quantize_multiplier_normal_values(void)
{
    qm(0.5);
    CHECK_EQ(qm_m, 1073741824);
    CHECK_EQ(qm_s, 0);
    qm(1.0);
    CHECK_EQ(qm_m, 1073741824);
    CHECK_EQ(qm_s, 1);
    qm(0.75);
    CHECK_EQ(qm_m, 1610612736);
    CHECK_EQ(qm_s, 0);
    qm(0.1);
    CHECK_EQ(qm_m, 1717986918);
    CHECK_EQ(qm_s, -3);
    qm(1.0 / 3.0);
    CHECK_EQ(qm_m, 1431655765);
    CHECK_EQ(qm_s, -1);
    qm(0.0039215686);
    CHECK_EQ(qm_m, 1077952569);
    CHECK_EQ(qm_s, -7);
    qm(1099511627776.0); /* 2^40 */
    CHECK_EQ(qm_m, 1073741824);
    CHECK_EQ(qm_s, 41);
    qm(-0.5);
    CHECK_EQ(qm_m, -1073741824);
    CHECK_EQ(qm_s, 0);
}

static void quantize_multiplier_edge_cases(void)
{
    qm(0.0);
    CHECK_EQ(qm_m, 0);
    CHECK_EQ(qm_s, 0);
    qm(1.0 - 0x1p-40); /* rounds up to 2^31: halved, shift bumped */
    CHECK_EQ(qm_m, 1073741824);
    CHECK_EQ(qm_s, 1);
    qm(0x1p-32); /* shift -31 is still representable */
    CHECK_EQ(qm_m, 1073741824);
    CHECK_EQ(qm_s, -31);
    qm(0.75 * 0x1p-31);
    CHECK_EQ(qm_m, 1610612736);
    CHECK_EQ(qm_s, -31);
    qm(0x1p-40); /* shift < -31 flushes to zero */
    CHECK_EQ(qm_m, 0);
    CHECK_EQ(qm_s, 0);
}

static void srdhm_saturates_and_rounds(void)
{
    CHECK_EQ(pl_fx_srdhm(INT32_MIN, INT32_MIN), INT32_MAX);
    CHECK_EQ(pl_fx_srdhm(INT32_MAX, INT32_MAX), 2147483646);
    CHECK_EQ(pl_fx_srdhm(1073741824, 1073741824), 536870912);
    CHECK_EQ(pl_fx_srdhm(-1073741824, 1073741824), -536870912);
    CHECK_EQ(pl_fx_srdhm(101, 1073741824), 51);
    CHECK_EQ(pl_fx_srdhm(-101, 1073741824), -50); /* gemmlowp: negative ties toward zero */
    CHECK_EQ(pl_fx_srdhm(INT32_MIN, INT32_MAX), -2147483647);
    CHECK_EQ(pl_fx_srdhm(123456789, 987654321), 56779306);
}

static void rdbpot_rounds_half_away_from_zero(void)
{
    CHECK_EQ(pl_fx_rdbpot(5, 1), 3);
    CHECK_EQ(pl_fx_rdbpot(-5, 1), -3);
    CHECK_EQ(pl_fx_rdbpot(3, 1), 2);
    CHECK_EQ(pl_fx_rdbpot(-3, 1), -2);
    CHECK_EQ(pl_fx_rdbpot(4, 1), 2);
    CHECK_EQ(pl_fx_rdbpot(7, 0), 7);
    CHECK_EQ(pl_fx_rdbpot(12, 3), 2);
    CHECK_EQ(pl_fx_rdbpot(-12, 3), -2);
    CHECK_EQ(pl_fx_rdbpot(INT32_MAX, 31), 1);
    CHECK_EQ(pl_fx_rdbpot(INT32_MIN, 31), -1);
    CHECK_EQ(pl_fx_rdbpot(-1, 31), 0);
    CHECK_EQ(pl_fx_rdbpot(INT32_MIN, 1), -1073741824);
}

static void mul_by_qm_shifts_both_ways(void)
{
    CHECK_EQ(pl_fx_mul_by_qm(100, 1073741824, 0), 50);
    CHECK_EQ(pl_fx_mul_by_qm(101, 1073741824, 0), 51);
    CHECK_EQ(pl_fx_mul_by_qm(-101, 1073741824, 0), -50);
    CHECK_EQ(pl_fx_mul_by_qm(3, 1073741824, 2), 6);
    CHECK_EQ(pl_fx_mul_by_qm(1000, 1073741824, -3), 63);
    CHECK_EQ(pl_fx_mul_by_qm(-1000, 1073741824, -3), -63);
    CHECK_EQ(pl_fx_mul_by_qm(123456, 1518500250, -7), 682);
}

static void mul_by_qm64_reduces_the_multiplier(void)
{
    CHECK_EQ(pl_fx_mul_by_qm64(1000, 1073741824, 0), 500);
    CHECK_EQ(pl_fx_mul_by_qm64(-1001, 1073741824, 0), -500); /* ties toward +inf */
    CHECK_EQ(pl_fx_mul_by_qm64(1000, 0x7FFF8000, 0), 1000);  /* capped at 0x7FFF */
    CHECK_EQ(pl_fx_mul_by_qm64(1000, 0x7FFEFFFF, 0), 1000);
    CHECK_EQ(pl_fx_mul_by_qm64(-1099511627776LL, 1518500250, -20), -741440);
    CHECK_EQ(pl_fx_mul_by_qm64(123456789, 1518500250, 3), 698362744);
    CHECK_EQ(pl_fx_mul_by_qm64(-140737488355328LL, INT32_MAX, -31), -65534);
}

static void activation_range_quantized(void)
{
    int32_t lo = 0, hi = 0;
    CHECK_EQ(pl_fx_activation_range_q(PL_ACT_RELU6, 0.5f, -10, -128, 127, &lo, &hi), PL_OK);
    CHECK_EQ(lo, -10);
    CHECK_EQ(hi, 2);
    CHECK_EQ(pl_fx_activation_range_q(PL_ACT_RELU_N1_TO_1, 0.3f, 0, -128, 127, &lo, &hi), 0);
    CHECK_EQ(lo, -3);
    CHECK_EQ(hi, 3);
    CHECK_EQ(pl_fx_activation_range_q(PL_ACT_RELU_N1_TO_1, 2.0f, 0, -128, 127, &lo, &hi), 0);
    CHECK_EQ(lo, -1); /* round(-0.5) is away from zero */
    CHECK_EQ(hi, 1);
    CHECK_EQ(pl_fx_activation_range_q(PL_ACT_RELU6, 4.0f, 0, -128, 127, &lo, &hi), 0);
    CHECK_EQ(hi, 2); /* round(1.5) */
    CHECK_EQ(pl_fx_activation_range_q(PL_ACT_RELU, 0.01f, 200, -128, 127, &lo, &hi), 0);
    CHECK_EQ(lo, 200); /* max(qmin, zp): TFLite does not clamp it to qmax */
    CHECK_EQ(hi, 127);
    CHECK_EQ(pl_fx_activation_range_q(PL_ACT_NONE, 1.0f, 0, -32768, 32767, &lo, &hi), 0);
    CHECK_EQ(lo, -32768);
    CHECK_EQ(hi, 32767);
    CHECK_EQ(pl_fx_activation_range_q(PL_ACT_RELU6, 0.0f, 0, -128, 127, &lo, &hi),
             PL_ERR_MODEL);
}

static void activation_range_float(void)
{
    float lo = 0, hi = 0;
    pl_fx_activation_range_f32(PL_ACT_NONE, &lo, &hi);
    CHECK(lo == -FLT_MAX && hi == FLT_MAX);
    pl_fx_activation_range_f32(PL_ACT_RELU, &lo, &hi);
    CHECK(lo == 0.0f && hi == FLT_MAX);
    pl_fx_activation_range_f32(PL_ACT_RELU6, &lo, &hi);
    CHECK(lo == 0.0f && hi == 6.0f);
    pl_fx_activation_range_f32(PL_ACT_RELU_N1_TO_1, &lo, &hi);
    CHECK(lo == -1.0f && hi == 1.0f);
}

static void rounds_half_away_from_zero(void)
{
    CHECK(pl_fx_roundf(2.5f) == 3.0f && pl_fx_roundf(-2.5f) == -3.0f);
    CHECK(pl_fx_roundf(0.49999997f) == 0.0f && pl_fx_roundf(-0.5f) == -1.0f);
    CHECK(pl_fx_roundf(8388607.5f) == 8388608.0f && pl_fx_roundf(-1e30f) == -1e30f);
    CHECK(pl_fx_round(0.49999999999999994) == 0.0 && pl_fx_round(-1.5) == -2.0);
    CHECK(pl_fx_round(4503599627370495.5) == 4503599627370496.0);
    CHECK(pl_fx_round(-7.25) == -7.0 && pl_fx_round(1e300) == 1e300);
}

int main(void)
{
    RUN(rounds_half_away_from_zero);
    RUN(quantize_multiplier_normal_values);
    RUN(quantize_multiplier_edge_cases);
    RUN(srdhm_saturates_and_rounds);
    RUN(rdbpot_rounds_half_away_from_zero);
    RUN(mul_by_qm_shifts_both_ways);
    RUN(mul_by_qm64_reduces_the_multiplier);
    RUN(activation_range_quantized);
    RUN(activation_range_float);
    return HARNESS_END();
}
