/* conv.h - CONV_2D: TFLite's reference Conv (float), ConvPerChannel (int8, 16x8) and the
** hybrid kernels (float input, int8 filter). */
#ifndef PL_KERNELS_CONV_H
#define PL_KERNELS_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Everything invoke needs, precomputed in prepare. Shapes are NHWC (input, output) and
** OHWI (filter, I = input depth / groups). multiplier/shift hold one entry per output
** channel (per-tensor scales are broadcast). */
typedef struct pl_conv_params {
    int32_t stride_w, stride_h, dilation_w, dilation_h, pad_w, pad_h;
    int32_t input_offset, output_offset; /* -input zero point, output zero point */
    union {
        struct { int32_t act_min, act_max; };   /* quantized clamp */
        struct { float f_act_min, f_act_max; }; /* float clamp */
    };
    PL_SLOT(const int32_t *, multiplier);
    PL_SLOT(const int32_t *, shift);
} pl_conv_params;

/* bias may be NULL. */
void pl_conv_f32(const pl_conv_params *p, const int32_t *in_dims, const float *in,
                 const int32_t *f_dims, const float *filter, const float *bias,
                 const int32_t *out_dims, float *out);
void pl_conv_s8(const pl_conv_params *p, const int32_t *in_dims, const int8_t *in,
                const int32_t *f_dims, const int8_t *filter, const int32_t *bias,
                const int32_t *out_dims, int8_t *out);
/* 16x8: the accumulator has the bias type (TFLite's AccumScalar): int64 with an int64
** bias, int32 with an int32 one. Pass at most one of bias32/bias64; with neither, acc64
** picks the accumulator (LiteRT: int32 only when quantized_bias_type says INT32). */
void pl_conv_s16(const pl_conv_params *p, const int32_t *in_dims, const int16_t *in,
                 const int32_t *f_dims, const int8_t *filter, const int32_t *bias32,
                 const int64_t *bias64, bool acc64, const int32_t *out_dims, int16_t *out);

/* Hybrid (dynamic range): float input and output, int8 filter, as LiteRT's CONV_2D. Each
** batch is quantized to int8 on the fly: with one filter scale symmetrically (HybridConv),
** with per-channel scales asymmetrically (HybridConvPerChannel). The int32 accumulators are
** scaled back to float, then bias and the float clamp (p->f_act_min/max) follow. */
typedef struct pl_conv_hybrid_params {
    PL_SLOT(const float *, filter_scale); /* one per output channel (per_channel), else one */
    bool per_channel;
} pl_conv_hybrid_params;

/* scratch holds one batch of the input quantized: in_dims[1] * in_dims[2] * in_dims[3]
** bytes. bias may be NULL. */
void pl_conv_hybrid(const pl_conv_params *p, const pl_conv_hybrid_params *h,
                    const int32_t *in_dims, const float *in, const int32_t *f_dims,
                    const int8_t *filter, const float *bias, const int32_t *out_dims,
                    float *out, int8_t *scratch);

/* CONV_2D's op data: what prepare decided, read by invoke (and by the host fast paths). */
typedef struct pl_conv_op {
    pl_conv_params p;
    pl_type type;
    pl_type bias_type;
    bool hybrid;
    bool helium_1xn; /* CMSIS-NN's Helium 1xN path (conv_1xn_mve.h): its own edge bytes */
    pl_conv_hybrid_params h;
    int32_t scratch; /* hybrid: one batch of quantized input; int4: the unpacked filter */
    int32_t filter_offset; /* uint8: minus the filter zero point */
} pl_conv_op;

const pl_registration *pl_conv_registration(void);

#endif
