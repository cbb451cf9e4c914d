/* gelu.h - GELU: x * Phi(x), exactly (0.5 x erfc(-x / sqrt 2)) or by the tanh approximation
** (GeluOptions.approximate), as LiteRT's activations.cc; TFLM has no GELU. float32, and
** int8, uint8 and int16 through TFLite's tables of the float function (LUTPopulate). */
#ifndef PL_KERNELS_GELU_H
#define PL_KERNELS_GELU_H

#include "kernels/activation/gelu_fast.h" /* the float elements, the registration */

#endif
