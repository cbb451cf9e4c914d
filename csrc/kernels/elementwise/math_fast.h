/* math_fast.h - the float unary math's contract with the host fast path (fast/lut8.c,
** fast/elementwise.c): the registrations of the operators whose float step is one IEEE
** operation, and the libm calls the portable FLOOR and CEIL make (a fast path hands its NaN
** lanes to them: what they do to a signaling NaN is the C library's). No op data is read. */
#ifndef PL_KERNELS_MATH_FAST_H
#define PL_KERNELS_MATH_FAST_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_ceil_registration(void);
const pl_registration *pl_floor_registration(void);
const pl_registration *pl_neg_registration(void);
const pl_registration *pl_rsqrt_registration(void);
const pl_registration *pl_sqrt_registration(void);
const pl_registration *pl_square_registration(void);

/* The float FLOOR and CEIL of one value. */
float pl_math_floor_f32(float x);
float pl_math_ceil_f32(float x);

#endif
