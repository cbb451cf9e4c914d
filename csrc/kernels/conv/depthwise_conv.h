/* depthwise_conv.h - DEPTHWISE_CONV_2D: TFLite's reference DepthwiseConv (float) and
** DepthwiseConvPerChannel (int8, 16x8). */
#ifndef PL_KERNELS_DEPTHWISE_CONV_H
#define PL_KERNELS_DEPTHWISE_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/conv/depthwise_conv_fast.h" /* the op data */
#include "picolite/pl_kernel.h"

/* bias may be NULL. */
void pl_depthwise_conv_f32(const pl_depthwise_conv_params *p, const int32_t *in_dims,
                           const float *in, const int32_t *f_dims, const float *filter,
                           const float *bias, const int32_t *out_dims, float *out);
void pl_depthwise_conv_s8(const pl_depthwise_conv_params *p, const int32_t *in_dims,
                          const int8_t *in, const int32_t *f_dims, const int8_t *filter,
                          const int32_t *bias, const int32_t *out_dims, int8_t *out);
void pl_depthwise_conv_s16(const pl_depthwise_conv_params *p, const int32_t *in_dims,
                           const int16_t *in, const int32_t *f_dims, const int8_t *filter,
                           const int64_t *bias, const int32_t *out_dims, int16_t *out);

/* Hybrid (float input and output, int8 filter with a scale per output channel): LiteRT's
** EvalHybridPerChannel. Each batch is quantized asymmetrically into scratch (one batch's
** in_dims[1] * in_dims[2] * in_dims[3] bytes), the taps sum (q - zero point) * filter in
** int32, then acc * (filter scale * batch scale) + bias and the float clamp. bias may be
** NULL. */
void pl_depthwise_conv_hybrid(const pl_depthwise_conv_params *p, const float *filter_scale,
                              const int32_t *in_dims, const float *in, const int32_t *f_dims,
                              const int8_t *filter, const float *bias, const int32_t *out_dims,
                              float *out, int8_t *scratch);

#endif
