/* lut_f32.h - TFLite LUTPopulate<int16_t> with a float transform (LUTPopulateInt16<float>),
** the variant of LiteRT's EXP, LOG and RSQRT int16 tables: every step in float, where
** lut.h's pl_lut_populate_s16 (softmax's) works in double. */
#ifndef PL_KERNELS_LUT_F32_H
#define PL_KERNELS_LUT_F32_H

#include <stdint.h>

#include "kernels/common/lut.h"

/* fn(x, param): the transform and one float parameter it may read (TFLite's
** transform_params). Look values up with pl_lut_lookup_s16. */
void pl_lut_populate_s16_f32(float input_scale, int32_t input_zero_point, float output_scale,
                             int32_t output_zero_point, float (*fn)(float, float),
                             float param, int16_t lut[PL_LUT_S16_SIZE]);

#endif
