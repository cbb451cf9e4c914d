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
#include "picolite/pl_kernel.h"

/* TFLite ArithmeticParams for quantized add/sub (and the offsets/multiplier of mul). */
typedef struct pl_add_params {
    int32_t input1_offset, input2_offset, output_offset;
    int32_t input1_multiplier, input2_multiplier, output_multiplier;
    int32_t input1_shift, input2_shift, output_shift; /* <= 0: right shifts */
    int32_t left_shift;                              /* 20 for int8, 15 for int16 */
    int32_t act_min, act_max;
    int32_t sign; /* +1 add, -1 sub: only the int16 power-of-two path reads it */
} pl_add_params;

/* ADD, SUB and MUL's op data (read by the host fast paths too). Persistent per op: only the
** arithmetic parameters. The broadcast walk (128 bytes) is rebuilt from the eval dims at
** each invoke, a few dozen operations, so no op pays for it in the arena. */
typedef struct pl_elementwise_op {
    pl_add_params q;
    union {
        struct { float f_min, f_max; };   /* float32 activation range */
        struct { PL_ALIGN8 int64_t l_min, l_max; }; /* int64 activation range */
    };
    bool pot; /* int16 power-of-two path */
} pl_elementwise_op;

const pl_registration *pl_add_registration(void);
const pl_registration *pl_sub_registration(void);
const pl_registration *pl_mul_registration(void);

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
