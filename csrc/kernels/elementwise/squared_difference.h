/* squared_difference.h - SQUARED_DIFFERENCE (LiteRT squared_difference.cc) with
** broadcasting: float32, int32 (wrapping) and quantized int8, where both inputs are shifted
** left 7 bits, rescaled to twice the larger input scale, subtracted and squared, and the
** square rescaled to the output. */
#ifndef PL_KERNELS_SQUARED_DIFFERENCE_H
#define PL_KERNELS_SQUARED_DIFFERENCE_H

#include <stdint.h>

#include "picolite/pl_kernel.h"

typedef struct pl_sqdiff_params {
    int32_t offset1, offset2, output_offset;
    int32_t multiplier1, multiplier2, output_multiplier;
    int32_t shift1, shift2, output_shift; /* <= 0 */
} pl_sqdiff_params;

const pl_registration *pl_squared_difference_registration(void);

int8_t pl_sqdiff_s8(const pl_sqdiff_params *p, int32_t x, int32_t y);

#endif
