/* conv.h - CONV_2D: TFLite's reference Conv (float), ConvPerChannel (int8, 16x8) and the
** hybrid kernels (float input, int8 filter). */
#ifndef PL_KERNELS_CONV_H
#define PL_KERNELS_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/conv/conv_fast.h" /* the op data */
#include "picolite/pl_kernel.h"

/* bias may be NULL; fused: each product fused into its sum (ctx->fused_madd). */
void pl_conv_f32(const pl_conv_params *p, const int32_t *in_dims, const float *in,
                 const int32_t *f_dims, const float *filter, const float *bias,
                 const int32_t *out_dims, bool fused, float *out);
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
** scaled back to float, then bias and the float clamp (p->f_act_min/max) follow.
** scratch holds one batch of the input quantized: in_dims[1] * in_dims[2] * in_dims[3]
** bytes. bias may be NULL. */
void pl_conv_hybrid(const pl_conv_params *p, const pl_conv_hybrid_params *h,
                    const int32_t *in_dims, const float *in, const int32_t *f_dims,
                    const int8_t *filter, const float *bias, const int32_t *out_dims,
                    float *out, int8_t *scratch);

#endif
