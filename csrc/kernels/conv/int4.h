/* int4.h - int4 filters of FULLY_CONNECTED, CONV_2D and DEPTHWISE_CONV_2D (int8 activations).
**
** Two values per byte, the first in the low nibble, each sign-extended (TFLite's
** UnpackDenseInt4IntoInt8). As TFLM's reference kernels do, prepare asks for a scratch buffer
** of one byte per weight and invoke unpacks the filter into it, then runs the int8 kernel:
** the same bytes as the int8 filter, and TFLM's arena. */
#ifndef PL_KERNELS_INT4_H
#define PL_KERNELS_INT4_H

#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Prepare: the int4 filter f must be constant with its data; asks for its unpacked scratch. */
pl_status pl_int4_filter_prepare(pl_context *ctx, const char *op, const pl_tensor *f,
                                 int32_t *scratch);

/* Invoke: the filter (eval view f) unpacked into its scratch buffer; NULL after ctx->fail. */
const int8_t *pl_int4_filter_unpack(pl_context *ctx, const char *op, const pl_tensor *f,
                                    int32_t scratch);

void pl_int4_unpack(const uint8_t *packed, size_t count, int8_t *out);

#endif
