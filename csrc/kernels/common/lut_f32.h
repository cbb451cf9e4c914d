/* lut_f32.h - TFLite LUTPopulate<int16_t> with a float transform (LUTPopulateInt16<float>),
** the variant of LiteRT's EXP, LOG and RSQRT int16 tables: every step in float, where
** lut.h's pl_lut_populate_s16 (softmax's) works in double.
**
** Each entry depends only on its index, so a kernel may keep the 20-byte description and
** compute the two entries a lookup needs instead of holding 1026 bytes of table in the arena
** (TFLM computes these ops without a table; picolite's arena stays no larger). */
#ifndef PL_KERNELS_LUT_F32_H
#define PL_KERNELS_LUT_F32_H

#include <stdint.h>

#include "kernels/common/lut.h"

/* fn(x, param): the transform and one float parameter it may read (TFLite's
** transform_params). */
typedef float (*pl_lut_f32_fn)(float x, float param);

typedef struct pl_lut_f32 {
    float input_min, input_max, step, half_step, inv; /* the float values TFLite computes */
} pl_lut_f32;

void pl_lut_f32_init(pl_lut_f32 *t, float input_scale, int32_t input_zero_point,
                     float output_scale, int32_t output_zero_point);

/* Entry i (0..512) of the table. */
int16_t pl_lut_f32_entry(const pl_lut_f32 *t, pl_lut_f32_fn fn, float param, int32_t i);

/* TFLite LUTLookup on the table, computing the two entries it reads. */
int16_t pl_lut_f32_lookup(const pl_lut_f32 *t, pl_lut_f32_fn fn, float param, int16_t value);

#endif
