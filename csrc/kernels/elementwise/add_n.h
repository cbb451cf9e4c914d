/* add_n.h - ADD_N: the elementwise sum of two or more same-shape tensors. float32 and int32
** (wrapping) summed in input order as LiteRT's reference AddN; int8 as TFLM's (LiteRT has
** none): inputs of one quantization, each shifted left 20 bits and halved into a common
** scale, summed onto the zero point's own scaled value (TFLite's AddN starts there), then
** rescaled to the output. */
#ifndef PL_KERNELS_ADD_N_H
#define PL_KERNELS_ADD_N_H

#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

typedef struct pl_add_n_params {
    int32_t input_offset, output_offset;
    int32_t input_multiplier, input_shift;
    int32_t output_multiplier, output_shift;
} pl_add_n_params;

const pl_registration *pl_add_n_registration(void);

/* One int8 element from the n inputs' values. */
int8_t pl_add_n_s8(const pl_add_n_params *p, const int8_t *values, size_t n);

#endif
