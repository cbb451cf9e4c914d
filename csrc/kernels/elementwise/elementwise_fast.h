/* elementwise_fast.h - ADD, SUB and MUL's contract with the host fast path
** (fast/elementwise.c): the op data prepare leaves for invoke; for float DIV and
** SQUARED_DIFFERENCE, which it runs too, their registrations and DIV's clamp; int8
** SQUARED_DIFFERENCE's op data and element (its table); MAXIMUM and MINIMUM's registrations
** (minmax.c: no op data).
**
** A fast path reads these after the portable prepare ran and never writes them; it runs
** the portable invoke for what it does not reproduce. The activation range
** union holds what the node's type uses. */
#ifndef PL_KERNELS_ELEMENTWISE_FAST_H
#define PL_KERNELS_ELEMENTWISE_FAST_H

#include <stdbool.h>
#include <stdint.h>

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

/* Quantized SQUARED_DIFFERENCE's op data (squared_difference.c), and its element: the fast
** path tabulates an int8 node's outputs from it at prepare. */
typedef struct pl_sqdiff_params {
    int32_t offset1, offset2, output_offset;
    int32_t multiplier1, multiplier2, output_multiplier;
    int32_t shift1, shift2, output_shift; /* output_shift > 0 only for int16 */
    int32_t left_shift;                   /* 7 for int8, 0 for int16 */
} pl_sqdiff_params;

/* One quantized element, clamped to [lo, hi] (the int8 or int16 range). */
int32_t pl_sqdiff_q(const pl_sqdiff_params *p, int32_t x, int32_t y, int32_t lo, int32_t hi);

/* Float DIV and SQUARED_DIFFERENCE (div.c, squared_difference.c): no op data is read but
** DIV's clamp, the fused activation's range its prepare left in node's op data. */
const pl_registration *pl_div_registration(void);
const pl_registration *pl_squared_difference_registration(void);
void pl_div_f32_range(const pl_node *node, float *lo, float *hi);

const pl_registration *pl_maximum_registration(void);
const pl_registration *pl_minimum_registration(void);

#endif
