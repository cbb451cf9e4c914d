/* gelu_fast.h - GELU's contract with the host fast path (fast/gelu.c, gelu_body.h): the float
** elements of both forms, which the vector lanes reproduce and hand a NaN to, and the 8-bit
** table (read through pl_gelu_table; the fast path reads no op data itself). */
#ifndef PL_KERNELS_GELU_FAST_H
#define PL_KERNELS_GELU_FAST_H

#include "picolite/pl_kernel.h"

/* GeluOptions' field: nonzero for the tanh form (pl_gelu_approx_f32). */
#define PL_GELU_APPROXIMATE 0

/* 1/sqrt(2): the element's erfc takes x * (float)-PL_GELU_SQRT1_2. */
#define PL_GELU_SQRT1_2 0.70710678118654752440

/* The tanh form's constants: sqrt(2/pi) as TFLite takes it (the double product rounded to
** float) and the cubic term's coefficient. */
#define PL_GELU_SQRT_2_OVER_PI ((float)(1.12837916709551257390 * PL_GELU_SQRT1_2))
#define PL_GELU_CUBIC 0.044715f

/* TFLite's GeluTransform: 0.5f * x * erfcf(x * (float)-PL_GELU_SQRT1_2), and
** GeluTransformApproximate: 0.5f * x * (1.0f + tanhf(PL_GELU_SQRT_2_OVER_PI * (x +
** PL_GELU_CUBIC * x * x * x))), erfc and tanh from the platform's libm. */
float pl_gelu_f32(float x);
float pl_gelu_approx_f32(float x);

/* A prepared int8 or uint8 GELU node's table (its results on the 256 input bytes, indexed
** by the byte), what the host fast path looks up. */
void pl_gelu_table(const pl_node *node, uint8_t table[256]);

const pl_registration *pl_gelu_registration(void);

#endif
