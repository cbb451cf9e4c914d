/* uint8.h - legacy uint8 (asymmetric) CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, as
** LiteRT's reference uint8 kernels compute them: sum((filter + filter_offset) * (input +
** input_offset)) + bias, rescaled to the output zero point and clamped to 0..255. The
** filter is per-tensor with any zero point. Apart from the int8 paths on purpose: those
** stay specialised for symmetric per-channel filters. */
#ifndef PL_KERNELS_CONV_UINT8_H
#define PL_KERNELS_CONV_UINT8_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/conv/conv.h"
#include "kernels/conv/conv_params.h"
#include "kernels/conv/depthwise_conv.h"
#include "kernels/conv/fully_connected.h"
#include "picolite/pl_kernel.h"

/* uint8 input, filter and output, and an int32 bias or none. */
bool pl_u8conv_types_ok(const pl_tensor *in, const pl_tensor *f, const pl_tensor *bias,
                        const pl_tensor *out);

/* Per-tensor input, filter and output (PL_ERR_MODEL otherwise): the offsets and the clamp of
** the activation in 0..255; *filter_offset is minus the filter's zero point. */
pl_status pl_u8conv_quant(pl_context *ctx, const char *op, const pl_tensor *in,
                          const pl_tensor *f, const pl_tensor *out, int32_t activation,
                          pl_convq *q, int32_t *filter_offset);

/* pl_u8conv_quant, then LiteRT's GetQuantizedConvolutionMultipler as one Q31 multiplier and
** shift (persistent: q->multiplier[0], q->shift[0]): (double)(float)(input scale * filter
** scale) / output scale. CONV_2D and DEPTHWISE_CONV_2D rescale with it. */
pl_status pl_u8conv_prepare(pl_context *ctx, const char *op, const pl_tensor *in,
                            const pl_tensor *f, const pl_tensor *out, int32_t activation,
                            pl_convq *q, int32_t *filter_offset);

/* Geometry, offsets, multiplier[0]/shift[0] and clamp from p; bias may be NULL.
** CONV_2D: the filter depth is the input depth (no groups). */
void pl_u8conv_conv(const pl_conv_params *p, int32_t filter_offset, const int32_t *in_dims,
                    const uint8_t *in, const int32_t *f_dims, const uint8_t *filter,
                    const int32_t *bias, const int32_t *out_dims, uint8_t *out);
void pl_u8conv_depthwise(const pl_depthwise_conv_params *p, int32_t filter_offset,
                         const int32_t *in_dims, const uint8_t *in, const int32_t *f_dims,
                         const uint8_t *filter, const int32_t *bias, const int32_t *out_dims,
                         uint8_t *out);
/* FULLY_CONNECTED with p's one rescale (TFLM's Q31 multiplier or LiteRT's double), the
** offsets and clamp in p (batches x depth input, units x depth weights). */
void pl_u8conv_fully_connected(const pl_fully_connected_params *p, const uint8_t *in,
                               const uint8_t *filter, const int32_t *bias, uint8_t *out);

#endif
