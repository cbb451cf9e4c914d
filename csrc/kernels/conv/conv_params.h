/* conv_params.h - the checks and quantized parameters that CONV_2D, DEPTHWISE_CONV_2D,
** TRANSPOSE_CONV and FULLY_CONNECTED share: TFLite's PopulateConvolutionQuantizationParams
** (per-channel multipliers and shifts, zero points, activation range) and the bias rules. */
#ifndef PL_KERNELS_CONV_PARAMS_H
#define PL_KERNELS_CONV_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/conv/convq_views_fast.h"
#include "picolite/pl_kernel.h"

/* How an op words its messages: "<op>: quantization must be per-tensor for input/output and
** per-tensor or <per> (dimension d) for the <filter>", "<op>: <zp_filter> zero point z
** (<channel> i) is not 0", "<op>: bias has n elements for c <channel>s". */
typedef struct pl_convq_names {
    const char *op;        /* "CONV_2D" */
    const char *filter;    /* "filter", "weights" */
    const char *per;       /* "per-output-channel", "per-channel", "per-unit" */
    const char *zp_filter; /* "filter", "weight", "per-channel weight" */
    const char *channel;   /* "channel", "unit" */
} pl_convq_names;

/* What a quantized op derives from its tensors' quantization. */
typedef struct pl_convq {
    int32_t input_offset, output_offset; /* -input zero point, output zero point */
    int32_t act_min, act_max;            /* the activation's clamp in output units */
    int32_t *multiplier, *shift;         /* per output channel (pl_convq_per_channel) */
} pl_convq;

/* Copies a pl_convq into an op's parameter struct with the same field names. */
#define PL_CONVQ_STORE(p, q)                                                              \
    do {                                                                                  \
        (p)->input_offset = (q).input_offset;                                             \
        (p)->output_offset = (q).output_offset;                                           \
        (p)->act_min = (q).act_min;                                                       \
        (p)->act_max = (q).act_max;                                                       \
        (p)->multiplier = (q).multiplier;                                                 \
        (p)->shift = (q).shift;                                                           \
    } while (0)

/* Input and output per-tensor, the filter per-tensor or one scale per channel along
** quantized dimension qdim; filter zero points 0 (only per-channel ones when
** tensor_zp_ok); int16 zero points 0. Fills the offsets and the activation range. */
pl_status pl_convq_prepare(pl_context *ctx, const pl_convq_names *names, const pl_tensor *in,
                           const pl_tensor *f, const pl_tensor *out, int32_t activation,
                           int32_t channels, int32_t qdim, bool tensor_zp_ok, pl_convq *q);

/* pl_convq_prepare with zero filter zero points, then TFLite's per-channel multipliers and
** shifts (persistent) for `channels` output channels: a conv's whole quantized setup. */
pl_status pl_convq_per_channel(pl_context *ctx, const pl_convq_names *names,
                               const pl_tensor *in, const pl_tensor *f, const pl_tensor *out,
                               int32_t activation, int32_t channels, int32_t qdim,
                               pl_convq *q);

/* The bias a float / int8 / 16x8 op takes: float, int32, int32 or int64 (only int64 when
** not s16_bias32). A missing bias is fine. */
bool pl_convq_bias_type_ok(pl_type in, const pl_tensor *bias, bool s16_bias32);

/* The optional bias at input index k, read for its type and size only: its eval view
** (in *view) spares the temp copy of its (per-channel) quantization. *bias is NULL or view. */
pl_status pl_convq_bias(pl_context *ctx, const pl_node *node, uint32_t k, pl_tensor *view,
                        pl_tensor **bias);

/* The tensors of a node (input, filter, optional bias) -> output, checked to be there. */
typedef struct pl_convq_io {
    pl_tensor *in, *f, *bias, *out;
    pl_tensor bias_view; /* what bias points to, if there is one */
} pl_convq_io;

pl_status pl_convq_io_get(pl_context *ctx, const pl_node *node, const pl_convq_names *names,
                          pl_convq_io *io);

/* Options: the fused activation must be none or a ReLU (PL_ERR_UNSUPPORTED); strides and
** dilations positive and the padding SAME or VALID (PL_ERR_MODEL). */
pl_status pl_convq_check_activation(pl_context *ctx, const pl_convq_names *names,
                                    int32_t activation);
pl_status pl_convq_check_window(pl_context *ctx, const pl_convq_names *names, int32_t padding,
                                int32_t stride_h, int32_t stride_w, int32_t dilation_h,
                                int32_t dilation_w);

/* Prepare: the output becomes [batch, oh, ow, channels] (PL_ERR_MODEL when a window
** size came out negative: it does not fit the input). */
pl_status pl_convq_set_output(pl_context *ctx, const pl_convq_names *names,
                              const pl_tensor *in, int32_t channels, int32_t oh, int32_t ow,
                              pl_tensor *out);

/* PL_ERR_MODEL unless a bias (if any) has one element per channel. */
pl_status pl_convq_bias_count(pl_context *ctx, const pl_convq_names *names,
                              const pl_tensor *bias, int32_t channels);

#endif
