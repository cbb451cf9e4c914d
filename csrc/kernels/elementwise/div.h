/* div.h - DIV: registration and the float and quantized loops. */
#ifndef PL_KERNELS_DIV_H
#define PL_KERNELS_DIV_H

#include "kernels/common/broadcast.h"
#include "kernels/elementwise/elementwise_fast.h" /* registration, pl_div_f32_range */
#include "picolite/pl_kernel.h"

/* out = clamp(a / b, lo, hi) over the broadcast walk bc. */
void pl_div_f32(const pl_bcast *bc, float lo, float hi, const float *a, const float *b,
                float *out);

/* Quantized DIV (TFLite's DivElementwise): offsets are minus the input zero points and the
** output zero point; the clamp is in output units. arm_shifts: the build's final shift right
** by 32 or more (a dividend of -1 or 0 has 31 bits of headroom) is Arm's, where a register
** shift count of 32 and more fills with the sign bit, not x86-64's, which takes it mod 32. */
typedef struct pl_div_params {
    int32_t input1_offset, input2_offset, output_offset, multiplier, shift, act_min, act_max;
    bool arm_shifts;
} pl_div_params;

void pl_div_s8(const pl_div_params *p, const pl_bcast *bc, const int8_t *a, const int8_t *b,
               int8_t *out);
void pl_div_u8(const pl_div_params *p, const pl_bcast *bc, const uint8_t *a, const uint8_t *b,
               uint8_t *out);

#endif
