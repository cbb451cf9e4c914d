/* math_fast.h - the float unary math's contract with the host fast path (fast/lut8.c,
** fast/elementwise.c): the registrations of the operators whose float step is one IEEE
** operation, and the libm calls the portable FLOOR and CEIL make (a fast path hands its NaN
** lanes to them: what they do to a signaling NaN is the C library's), and int8 RSQRT's
** results on every input byte (from its op data, read here only). */
#ifndef PL_KERNELS_MATH_FAST_H
#define PL_KERNELS_MATH_FAST_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_ceil_registration(void);
const pl_registration *pl_floor_registration(void);
const pl_registration *pl_neg_registration(void);
const pl_registration *pl_rsqrt_registration(void);
const pl_registration *pl_sqrt_registration(void);
const pl_registration *pl_square_registration(void);

/* A prepared int8 RSQRT node's output for each input byte (indexed by the byte), and the
** least input it accepts (its zero point: the portable kernel refuses any input below). */
void pl_math_rsqrt_s8_table(const pl_node *node, uint8_t table[256], int32_t *least);

/* The float FLOOR and CEIL of one value. */
float pl_math_floor_f32(float x);
float pl_math_ceil_f32(float x);

#endif
