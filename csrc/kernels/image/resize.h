/* resize.h - RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR: registrations and the output
** size both read from their `size` operand. */
#ifndef PL_KERNELS_RESIZE_H
#define PL_KERNELS_RESIZE_H

#include <stdint.h>

#include "kernels/image/resize_fast.h" /* the options, the coordinates */
#include "picolite/pl_kernel.h"

/* Largest input height/width accepted: the integer bilinear path forms 1024 * size in
** 32 bits, as TFLite does. */
#define PL_RESIZE_MAX_SIDE (1 << 20)

/* Checks input (4-D NHWC, sides up to PL_RESIZE_MAX_SIDE), size (INT32 [2]) and output
** types; gives the output its shape from a constant size (else keeps the declared one). */
pl_status pl_resize_prepare(pl_context *ctx, pl_node *node, const char *name);

/* At invoke: reads size, checks it is positive and gives the output's height and width. */
pl_status pl_resize_size(pl_context *ctx, const char *name, const pl_tensor *in,
                         const pl_tensor *size, const pl_tensor *out);

#endif
