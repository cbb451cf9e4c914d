/* lut.h - lookup tables and gemmlowp's exp/reciprocal, shared by softmax, logistic, tanh.
**
** Bit-exact with TFLite: LUTPopulate (common.h) for int8 and int16 tables, LUTLookup with
** its int16 interpolation, gemmlowp's exp_on_negative_values and
** one_over_one_plus_x_for_x_in_0_1, and GetReciprocal. Raw values are Q-format int32
** (Qm.n: m integer bits, n = 31 - m fractional bits). */
#ifndef PL_KERNELS_LUT_H
#define PL_KERNELS_LUT_H

#include <stdint.h>

/* An int16 table: 512 base values plus one for the last slope. */
#define PL_LUT_S16_SIZE 513

/* sigmoid(i / 24) in 0.16 format (TFLite's sigmoid_table_uint16), for int16 logistic/tanh. */
extern const uint16_t pl_lut_sigmoid_u16[256];

/* gemmlowp exp_on_negative_values: a is Q(integer_bits) and <= 0; returns exp(a) in Q0.31.
** integer_bits is in [0, 30]. */
int32_t pl_lut_exp_neg(int32_t a, int32_t integer_bits);

/* gemmlowp one_over_one_plus_x_for_x_in_0_1: a and the result are Q0.31. */
int32_t pl_lut_one_over_one_plus_x(int32_t a);

/* gemmlowp logistic and tanh of a in Q(integer_bits) (integer_bits <= 29), in Q0.31. */
int32_t pl_lut_logistic_q31(int32_t a, int32_t integer_bits);
int32_t pl_lut_tanh_q31(int32_t a, int32_t integer_bits);

/* TFLite GetReciprocal: 1 / x for x > 0 in Q(x_integer_digits); the result is Q0.31 scaled
** by 2^-num_bits_over_unit. */
int32_t pl_lut_reciprocal(int32_t x, int32_t x_integer_digits, int32_t *num_bits_over_unit);

/* TFLite LUTPopulate<int8_t> with a float transform: lut[(uint8_t)q] is the quantized
** fn(dequantized q), clamped to int8. */
void pl_lut_populate_s8(float input_scale, int32_t input_zero_point, float output_scale,
                        int32_t output_zero_point, float (*fn)(float), int8_t lut[256]);

/* The same for legacy uint8 (LUTPopulate<uint8_t>): lut[q], clamped to 0..255. */
void pl_lut_populate_u8(float input_scale, int32_t input_zero_point, float output_scale,
                        int32_t output_zero_point, float (*fn)(float), uint8_t lut[256]);

/* TFLite LUTPopulate<int16_t> with a double transform (the variant softmax uses): 512
** samples over the input range, each biased to halve the interpolation error. */
void pl_lut_populate_s16(double input_scale, int32_t input_zero_point, double output_scale,
                         int32_t output_zero_point, double (*fn)(double),
                         int16_t lut[PL_LUT_S16_SIZE]);
/* The same with a float transform, in float arithmetic throughout (TFLite's
** LUTPopulate<int16_t> instantiated for float, as its GELU builds its table). */
void pl_lut_populate_s16_f32(float input_scale, int32_t input_zero_point, float output_scale,
                             int32_t output_zero_point, float (*fn)(float),
                             int16_t lut[PL_LUT_S16_SIZE]);

/* TFLite LUTLookup for int16: the top 9 bits index, the low 7 interpolate. */
static inline int16_t pl_lut_lookup_s16(int16_t value, const int16_t *lut)
{
    uint16_t index = (uint16_t)(256 + (value >> 7));
    int32_t offset = value & 0x7f;
    int16_t base = lut[index];
    int16_t slope = (int16_t)(lut[index + 1] - lut[index]);
    int32_t delta = (slope * offset + 64) >> 7;
    return (int16_t)(base + delta);
}

#endif
