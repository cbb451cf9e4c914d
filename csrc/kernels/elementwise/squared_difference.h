/* squared_difference.h - SQUARED_DIFFERENCE (LiteRT and TFLM squared_difference.cc) with
** broadcasting: float32, int32 (wrapping) and quantized int8, where both inputs are shifted
** left 7 bits, rescaled to twice the larger input scale, subtracted and squared, and the
** square rescaled to the output; int16 (zero points 0) the same with no left shift, as TFLM
** has it (LiteRT has no int16 kernel). */
#ifndef PL_KERNELS_SQUARED_DIFFERENCE_H
#define PL_KERNELS_SQUARED_DIFFERENCE_H

#include <stdint.h>

#include "kernels/elementwise/elementwise_fast.h" /* the registration */
#include "picolite/pl_kernel.h"

typedef struct pl_sqdiff_params {
    int32_t offset1, offset2, output_offset;
    int32_t multiplier1, multiplier2, output_multiplier;
    int32_t shift1, shift2, output_shift; /* output_shift > 0 only for int16 */
    int32_t left_shift;                   /* 7 for int8, 0 for int16 */
} pl_sqdiff_params;

/* One quantized element, clamped to [lo, hi] (the int8 or int16 range). */
int32_t pl_sqdiff_q(const pl_sqdiff_params *p, int32_t x, int32_t y, int32_t lo, int32_t hi);

#endif
