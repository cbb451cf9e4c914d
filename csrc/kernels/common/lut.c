/* lut.c - lookup tables and gemmlowp's exp/reciprocal (see lut.h). */
#include "lut.h"

#include "kernels/common/fixedpoint.h"

const uint16_t pl_lut_sigmoid_u16[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149,
    40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369,
    47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169,
    53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370,
    60565, 60753, 60935, 61110, 61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302,
    62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186, 63279, 63368, 63454, 63536,
    63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786,
    64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079,
    65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
    65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474,
    65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498,
    65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522,
    65523, 65523, 65524, 65524, 65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528,
    65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531,
    65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
    65534, 65534, 65534, 65535};

/* gemmlowp SaturatingRoundingMultiplyByPOT for int32 raw values. */
static int32_t mul_pot(int32_t x, int32_t exponent)
{
    if (exponent < 0)
        return pl_fx_rdbpot(x, -exponent);
    if (exponent == 0)
        return x;
    int32_t threshold = (int32_t)((1u << (31 - exponent)) - 1u);
    if (x > threshold)
        return INT32_MAX;
    if (x < -threshold)
        return INT32_MIN;
    return (int32_t)((uint32_t)x << exponent);
}

/* gemmlowp RoundingHalfSum for int32. */
static int32_t half_sum(int32_t a, int32_t b)
{
    int64_t sum = (int64_t)a + (int64_t)b;
    return (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
}

static int32_t count_leading_zeros(uint32_t x)
{
    int32_t n = 0;
    if (x == 0)
        return 32;
    while (!(x & 0x80000000u)) {
        x <<= 1;
        n++;
    }
    return n;
}

/* exp(a) for a in [-1/4, 0), Q0.31: a Taylor expansion around -1/8. */
static int32_t exp_quarter(int32_t a)
{
    const int32_t exp_minus_one_eighth = 1895147668;
    const int32_t one_third = 715827883;
    int32_t x = a + (1 << 28);
    int32_t x2 = pl_fx_srdhm(x, x);
    int32_t x3 = pl_fx_srdhm(x2, x);
    int32_t x4 = pl_fx_srdhm(x2, x2);
    int32_t x4_over_4 = mul_pot(x4, -2);
    int32_t poly = mul_pot(pl_fx_srdhm(x4_over_4 + x3, one_third) + x2, -1);
    return exp_minus_one_eighth + pl_fx_srdhm(exp_minus_one_eighth, x + poly);
}

int32_t pl_lut_exp_neg(int32_t a, int32_t integer_bits)
{
    /* exp(-2^e) in Q0.31 for e = -2 .. 4: one factor per set bit of the remainder */
    static const int32_t factors[7] = {1672461947, 1302514674, 790015084, 290630308,
                                       39332535,   720401,     242};
    const int32_t frac_bits = 31 - integer_bits;
    const int32_t quarter = (int32_t)1 << (frac_bits - 2);
    int32_t a_mod_minus_quarter = (a & (quarter - 1)) - quarter;
    int32_t result = exp_quarter(mul_pot(a_mod_minus_quarter, integer_bits));
    int32_t remainder = a_mod_minus_quarter - a;
    for (int32_t e = -2; e <= 4; e++) {
        if (integer_bits > e && (remainder & (int32_t)(1u << (frac_bits + e))))
            result = pl_fx_srdhm(result, factors[e + 2]);
    }
    if (integer_bits > 5 && a < -(int32_t)(1u << (frac_bits + 5)))
        result = 0;
    return a == 0 ? INT32_MAX : result;
}

/* 1 / ((1 + a) / 2) for a in [0, 1) (Q0.31) in Q2.29: Newton-Raphson on the half
** denominator from 48/17 - 32/17 d, three steps, as gemmlowp's two divisions do it. */
static int32_t newton_half_recip(int32_t a)
{
    const int32_t c48_over_17 = 1515870810;
    const int32_t cneg32_over_17 = -1010580540;
    const int32_t one_q2 = 1 << 29;
    int32_t half_den = half_sum(a, INT32_MAX);
    int32_t x = c48_over_17 + pl_fx_srdhm(half_den, cneg32_over_17);
    for (int i = 0; i < 3; i++) {
        int32_t one_minus = one_q2 - pl_fx_srdhm(half_den, x);
        x = x + mul_pot(pl_fx_srdhm(x, one_minus), 2);
    }
    return x;
}

int32_t pl_lut_one_over_one_plus_x(int32_t a)
{
    return mul_pot(newton_half_recip(a), 1);
}

/* gemmlowp one_minus_x_over_one_plus_x_for_x_in_0_1: 2 / (1 + a) - 1, Q0.31. */
static int32_t one_minus_x_over_one_plus_x(int32_t a)
{
    return mul_pot((int32_t)((uint32_t)newton_half_recip(a) - (1u << 29)), 2);
}

static int32_t neg32(int32_t a)
{
    return (int32_t)(0u - (uint32_t)a); /* gemmlowp negates raw values with wraparound */
}

int32_t pl_lut_logistic_q31(int32_t a, int32_t integer_bits)
{
    if (a == 0)
        return 1 << 30;
    int32_t abs_a = a > 0 ? a : neg32(a);
    int32_t pos = pl_lut_one_over_one_plus_x(pl_lut_exp_neg(neg32(abs_a), integer_bits));
    return a > 0 ? pos : (int32_t)((uint32_t)INT32_MAX - (uint32_t)pos);
}

int32_t pl_lut_tanh_q31(int32_t a, int32_t integer_bits)
{
    if (a == 0)
        return 0;
    int32_t n = a < 0 ? a : neg32(a); /* ExactMulByPot<1>: the same raw, one more bit */
    int32_t t = one_minus_x_over_one_plus_x(pl_lut_exp_neg(n, integer_bits + 1));
    return a < 0 ? neg32(t) : t;
}

int32_t pl_lut_reciprocal(int32_t x, int32_t x_integer_digits, int32_t *num_bits_over_unit)
{
    int32_t headroom_plus_one = count_leading_zeros((uint32_t)x);
    *num_bits_over_unit = x_integer_digits - headroom_plus_one;
    uint32_t shifted = headroom_plus_one < 32 ? (uint32_t)x << headroom_plus_one : 0u;
    return pl_lut_one_over_one_plus_x((int32_t)(shifted - 0x80000000u));
}

/* float -> int32 as x86's cvttss2si does it (TFLite's static_cast on its platforms):
** out of range and NaN give INT32_MIN. */
static int32_t float_to_i32(float f)
{
    if (!(f > -2147483904.0f && f < 2147483648.0f))
        return INT32_MIN;
    return (int32_t)f;
}

void pl_lut_populate_s8(float input_scale, int32_t input_zero_point, float output_scale,
                        int32_t output_zero_point, float (*fn)(float), int8_t lut[256])
{
    const float inverse_scale = 1 / output_scale;
    for (int32_t v = -128; v <= 127; v++) {
        float dequantized = input_scale * (float)(v - input_zero_point);
        float rescaled = pl_fx_roundf(fn(dequantized) * inverse_scale);
        int32_t q = float_to_i32(rescaled + (float)output_zero_point);
        lut[(uint8_t)(int8_t)v] = (int8_t)pl_fx_clamp(q, -128, 127);
    }
}

void pl_lut_populate_u8(float input_scale, int32_t input_zero_point, float output_scale,
                        int32_t output_zero_point, float (*fn)(float), uint8_t lut[256])
{
    const float inverse_scale = 1 / output_scale;
    for (int32_t v = 0; v <= 255; v++) {
        float dequantized = input_scale * (float)(v - input_zero_point);
        float rescaled = pl_fx_roundf(fn(dequantized) * inverse_scale);
        int32_t q = float_to_i32(rescaled + (float)output_zero_point);
        lut[v] = (uint8_t)pl_fx_clamp(q, 0, 255);
    }
}

static int16_t clamp_s16(double v)
{
    return (int16_t)(v < -32768.0 ? -32768.0 : v > 32767.0 ? 32767.0 : v);
}

void pl_lut_populate_s16(double input_scale, int32_t input_zero_point, double output_scale,
                         int32_t output_zero_point, double (*fn)(double),
                         int16_t lut[PL_LUT_S16_SIZE])
{
    const double input_min = input_scale * (double)(-32768 - input_zero_point);
    const double input_max = input_scale * (double)(32767 - input_zero_point);
    const double output_min = output_scale * (double)(-32768 - output_zero_point);
    const double output_max = output_scale * (double)(32767 - output_zero_point);
    const double step = (input_max - input_min) / 512;
    const double half_step = step / 2;
    const double inv = 65536.0 / (output_max - output_min);
    for (int i = 0; i < 512; i++) {
        double val = fn(input_min + i * step);
        double val_mid = fn(input_min + i * step + half_step);
        double val_next = fn(input_min + (i + 1) * step);
        double sample = pl_fx_round(val * inv);
        double interp = pl_fx_round((val_next * inv + pl_fx_round(val * inv)) / 2);
        double mid = pl_fx_round(val_mid * inv);
        /* bias each sample by half the interpolation error at the midpoint */
        double bias = pl_fx_round((interp - mid) / 2);
        lut[i] = clamp_s16(sample - bias);
    }
    lut[512] = clamp_s16(pl_fx_round(fn(input_max) * inv));
}

/* TFLite LUTPopulate<int16_t> with a float transform: pl_lut_populate_s16's samples, in
** float arithmetic throughout. */
void pl_lut_populate_s16_f32(float input_scale, int32_t input_zero_point, float output_scale,
                             int32_t output_zero_point, float (*fn)(float),
                             int16_t lut[PL_LUT_S16_SIZE])
{
    const float input_min = input_scale * (float)(-32768 - input_zero_point);
    const float input_max = input_scale * (float)(32767 - input_zero_point);
    const float output_min = output_scale * (float)(-32768 - output_zero_point);
    const float output_max = output_scale * (float)(32767 - output_zero_point);
    const float step = (input_max - input_min) / 512;
    const float half_step = step / 2;
    const float inv = 65536.0f / (output_max - output_min);
    for (int i = 0; i < 512; i++) {
        float val = fn(input_min + (float)i * step);
        float val_mid = fn(input_min + (float)i * step + half_step);
        float val_next = fn(input_min + (float)(i + 1) * step);
        float sample = pl_fx_roundf(val * inv);
        float interp = pl_fx_roundf((val_next * inv + pl_fx_roundf(val * inv)) / 2);
        float mid = pl_fx_roundf(val_mid * inv);
        /* bias each sample by half the interpolation error at the midpoint */
        float v = sample - pl_fx_roundf((interp - mid) / 2);
        lut[i] = (int16_t)(v < -32768.0f ? -32768.0f : v > 32767.0f ? 32767.0f : v);
    }
    float last = pl_fx_roundf(fn(input_max) * inv);
    lut[512] = (int16_t)(last < -32768.0f ? -32768.0f : last > 32767.0f ? 32767.0f : last);
}
