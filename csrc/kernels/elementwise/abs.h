/* abs.h - ABS as LiteRT's elementwise AbsEval: float32, int32, int16 without quantization,
** and int8/int16 quantized (|q - in_zp|, rescaled by in_scale / out_scale when the scales
** differ, plus out_zp, saturated). */
#ifndef PL_KERNELS_ABS_H
#define PL_KERNELS_ABS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

typedef struct pl_abs_params {
    int32_t input_zp, output_zp;
    bool rescale;
    int32_t multiplier, shift;
} pl_abs_params;

const pl_registration *pl_abs_registration(void);

void pl_abs_f32(const float *in, float *out, size_t n);
void pl_abs_s32(const int32_t *in, int32_t *out, size_t n);
void pl_abs_s8(const pl_abs_params *p, const int8_t *in, int8_t *out, size_t n);
/* p NULL: plain int16 (no quantization). */
void pl_abs_s16(const pl_abs_params *p, const int16_t *in, int16_t *out, size_t n);

#endif
