/* depthwise_conv.h - DEPTHWISE_CONV_2D: TFLite's reference DepthwiseConv (float) and
** DepthwiseConvPerChannel (int8, 16x8). */
#ifndef PL_KERNELS_DEPTHWISE_CONV_H
#define PL_KERNELS_DEPTHWISE_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Precomputed in prepare. Input/output NHWC, filter 1HWC with C = in depth * multiplier;
** multiplier/shift hold one entry per output channel, as does filter_scale for a hybrid
** node (float input and output, int8 filter), which has no integer rescale: they share
** memory, as the op lives in the arena (the hybrid flag fills the padding before them). */
typedef struct pl_depthwise_conv_params {
    int32_t stride_w, stride_h, dilation_w, dilation_h, pad_w, pad_h, depth_multiplier;
    int32_t input_offset, output_offset; /* -input zero point, output zero point */
    int32_t act_min, act_max;
    float f_act_min, f_act_max;
    bool hybrid;
    uint8_t s4_walk; /* an int4 filter: how the firmware reads it (depthwise_s4_cmsis.h) */
    union {
        struct {
            PL_SLOT(const int32_t *, multiplier);
            PL_SLOT(const int32_t *, shift);
        };
        PL_SLOT(const float *, filter_scale); /* hybrid */
    };
} pl_depthwise_conv_params;

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

/* DEPTHWISE_CONV_2D's op data: what prepare decided, read by invoke (and by the host fast
** paths). */
typedef struct pl_depthwise_conv_op {
    pl_depthwise_conv_params p;
    pl_type type;
    union {
        int32_t filter_offset; /* uint8: minus the filter zero point */
        int32_t scratch;       /* hybrid: the quantized batch; int4: the unpacked filter */
    };
} pl_depthwise_conv_op;

const pl_registration *pl_depthwise_conv_registration(void);

#endif
