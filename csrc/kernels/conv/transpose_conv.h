/* transpose_conv.h - TRANSPOSE_CONV: TFLite's reference TransposeConv (float) and the
** integer per-channel variants (int8, 16x8), which scatter into a scratch accumulator. */
#ifndef PL_KERNELS_TRANSPOSE_CONV_H
#define PL_KERNELS_TRANSPOSE_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/conv/transpose_conv_fast.h" /* the op data */
#include "picolite/pl_kernel.h"

/* bias may be NULL; fused (float): each product fused into its sum (ctx->fused_madd). The
** quantized ones use scratch: one int32 (s8) or int64 (s16) per output element;
** pl_transpose_conv_scratch_size() gives the bytes. */
size_t pl_transpose_conv_scratch_size(pl_type type, size_t output_elements);
void pl_transpose_conv_f32(const pl_transpose_conv_params *p, const int32_t *in_dims,
                           const float *in, const int32_t *f_dims, const float *filter,
                           const float *bias, const int32_t *out_dims, bool fused, float *out);
void pl_transpose_conv_s8(const pl_transpose_conv_params *p, const int32_t *in_dims,
                          const int8_t *in, const int32_t *f_dims, const int8_t *filter,
                          const int32_t *bias, const int32_t *out_dims, int8_t *out,
                          int32_t *scratch);
/* Legacy uint8: per-tensor weights with any zero point (filter_offset = minus it), one
** multiplier (multiplier[0], shift[0]). */
void pl_transpose_conv_u8(const pl_transpose_conv_params *p, int32_t filter_offset,
                          const int32_t *in_dims, const uint8_t *in, const int32_t *f_dims,
                          const uint8_t *filter, const int32_t *bias, const int32_t *out_dims,
                          uint8_t *out, int32_t *scratch);
/* 16x8 accumulates in int64; an int32 bias (quantized_bias_type INT32) is widened. */
void pl_transpose_conv_s16(const pl_transpose_conv_params *p, const int32_t *in_dims,
                           const int16_t *in, const int32_t *f_dims, const int8_t *filter,
                           const void *bias, bool bias64, const int32_t *out_dims,
                           int16_t *out, int64_t *scratch);

/* Hybrid (float input and output, int8 weights): LiteRT's HybridTransposeConv. Each batch
** is quantized asymmetrically into scratch (one batch's in_dims[1] * in_dims[2] *
** in_dims[3] bytes); every product (q - zero point) * weight is scaled to float, times the
** channel's weight scale (filter_scale[0] for all when !per_channel) then the batch's, and
** summed in the scatter order; then + bias and the float clamp. bias may be NULL. */
void pl_transpose_conv_hybrid(const pl_transpose_conv_params *p, const float *filter_scale,
                              bool per_channel, const int32_t *in_dims, const float *in,
                              const int32_t *f_dims, const int8_t *filter, const float *bias,
                              const int32_t *out_dims, float *out, int8_t *scratch);

#endif
