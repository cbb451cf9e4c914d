/* elementwise.h - ADD, SUB and MUL: registrations and inner loops (TFLite reference math).
**
** Every loop walks a pl_bcast set up in prepare, so broadcasting up to PL_BCAST_MAX_DIMS
** is free. SUB reuses the quantized ADD loops with input 2's multiplier negated, exactly as
** TFLite's sub.cc does. */
#ifndef PL_KERNELS_ELEMENTWISE_H
#define PL_KERNELS_ELEMENTWISE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/common/broadcast.h"
#include "kernels/elementwise/elementwise_fast.h" /* the op data */
#include "picolite/pl_kernel.h"

/* General rescaling path (int8 and legacy uint8 with left shift 20, int16 with 15). */
void pl_add_s8(const pl_add_params *p, const pl_bcast *bc, const int8_t *a, const int8_t *b,
               int8_t *out);
void pl_add_u8(const pl_add_params *p, const pl_bcast *bc, const uint8_t *a, const uint8_t *b,
               uint8_t *out);
void pl_add_s16(const pl_add_params *p, const pl_bcast *bc, const int16_t *a,
                const int16_t *b, int16_t *out);
/* int16 with zero points 0 and power-of-two scales: one input is shifted right. */
void pl_add_s16_pot(const pl_add_params *p, const pl_bcast *bc, const int16_t *a,
                    const int16_t *b, int16_t *out);
void pl_add_f32(const pl_bcast *bc, float lo, float hi, const float *a, const float *b,
                float *out);
void pl_sub_f32(const pl_bcast *bc, float lo, float hi, const float *a, const float *b,
                float *out);

/* out = output_offset + MultiplyByQuantizedMultiplier((a + off1) * (b + off2)). */
void pl_mul_s8(const pl_add_params *p, const pl_bcast *bc, const int8_t *a, const int8_t *b,
               int8_t *out);
void pl_mul_u8(const pl_add_params *p, const pl_bcast *bc, const uint8_t *a, const uint8_t *b,
               uint8_t *out);
void pl_mul_s16(const pl_add_params *p, const pl_bcast *bc, const int16_t *a,
                const int16_t *b, int16_t *out);
void pl_mul_f32(const pl_bcast *bc, float lo, float hi, const float *a, const float *b,
                float *out);

#endif
