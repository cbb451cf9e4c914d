/* gelu_fast.h - GELU's contract with the host fast path (fast/gelu.c, gelu_body.h): the float
** element, which the vector lanes reproduce and hand a NaN to. The fast path reads no op
** data. */
#ifndef PL_KERNELS_GELU_FAST_H
#define PL_KERNELS_GELU_FAST_H

#include "picolite/pl_kernel.h"

/* GeluOptions' field: nonzero for the tanh form (pl_gelu_approx_f32, no fast path). */
#define PL_GELU_APPROXIMATE 0

/* 1/sqrt(2): the element's erfc takes x * (float)-PL_GELU_SQRT1_2. */
#define PL_GELU_SQRT1_2 0.70710678118654752440

/* TFLite's GeluTransform: 0.5f * x * erfcf(x * (float)-PL_GELU_SQRT1_2), erfc from the
** platform's libm. */
float pl_gelu_f32(float x);

const pl_registration *pl_gelu_registration(void);

#endif
