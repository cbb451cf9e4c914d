/* squared_difference.h - SQUARED_DIFFERENCE (LiteRT and TFLM squared_difference.cc) with
** broadcasting: float32, int32 (wrapping) and quantized int8, where both inputs are shifted
** left 7 bits, rescaled to twice the larger input scale, subtracted and squared, and the
** square rescaled to the output; int16 (zero points 0) the same with no left shift, as TFLM
** has it (LiteRT has no int16 kernel). */
#ifndef PL_KERNELS_SQUARED_DIFFERENCE_H
#define PL_KERNELS_SQUARED_DIFFERENCE_H

#include <stdint.h>

#include "kernels/elementwise/elementwise_fast.h" /* the registration, op data and element */
#include "picolite/pl_kernel.h"

#endif
