/* conv_1xn_mve.h - CMSIS-NN's int8 1xN convolution as Helium builds it.
**
** On a core with MVE, arm_convolve_1_x_n_s8 computes the padded edges of a one-row input
** from an im2col buffer: the left edge's rows from the left padding and the first K input
** columns, the right edge's rows from K-1 input columns and the right padding, each row read
** at a stride of stride * channels. Where that buffer does not hold the window the reference
** kernel reads (a VALID convolution whose last window ends one column short of the input's
** end: its total padding is -1, which the kernel takes as one column of right padding), the
** firmware's bytes differ from TFLM's reference kernel; this reproduces them. */
#ifndef PL_KERNELS_CONV_1XN_MVE_H
#define PL_KERNELS_CONV_1XN_MVE_H

#include <stdbool.h>
#include <stdint.h>

#include "conv.h"
#include "picolite/pl_kernel.h"

/* Whether TFLM + CMSIS-NN on Helium takes arm_convolve_1_x_n_s8's Helium path for this int8
** convolution (*taken), and that the firmware's outputs are then defined. PL_ERR_UNSUPPORTED
** names the case where they are not: the kernel returns a failure TFLM's release build
** ignores (the output stays unwritten), or its buffer rows read bytes outside the input and
** the buffer. */
pl_status pl_conv_1xn_mve_plan(pl_context *ctx, const pl_conv_params *p,
                               const int32_t *in_dims, const int32_t *f_dims,
                               const int32_t *out_dims, bool *taken);

/* The convolution as that path computes it (pl_conv_1xn_mve_plan said taken). */
void pl_conv_1xn_mve_s8(const pl_conv_params *p, const int32_t *in_dims, const int8_t *in,
                        const int32_t *f_dims, const int8_t *filter, const int32_t *bias,
                        const int32_t *out_dims, int8_t *out);

#endif
