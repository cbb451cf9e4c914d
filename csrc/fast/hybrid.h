/* hybrid.h - what the hybrid (float input, int8 weights) fast paths share, one table per
** instruction set: a float row quantized to int8 as kernels/conv/hybrid.c does it, and the
** float output stage of the int32 sums the int8 matrix product (gemm.h) returns for it.
**
** The product reads a = q + 128 and pads with the zero point + 128, so a channel's sum is
** the portable kernel's sum(w * (q - zero point)) plus (128 + zero point) times the
** channel's weight sum: the stage takes that back off (int32 sums wrap alike in any order),
** converts to float and repeats the portable kernel's float operations in its order. */
#ifndef PL_FAST_HYBRID_H
#define PL_FAST_HYBRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fast/fast.h"

/* One row of sums through the stage: out[c] = clamp(y + bias[c]) (no addition without a
** bias), where y = f * (scale[c] * row_scale), or (f * scale[c]) * row_scale when after
** (CONV_2D's per-channel order), and f = (float)(sums[c] - weight_sum[c] * (128 + zp)). */
typedef struct pl_hybrid_out {
    const int32_t *weight_sum;
    const float *scale; /* per channel (a per-tensor scale repeated) */
    float row_scale;
    int32_t zp;
    bool after;
    const float *bias;
    float act_min, act_max;
} pl_hybrid_out;

typedef struct pl_hybrid_kernels {
    /* x[0..n) quantized as pl_hybrid_quantize_(a)symmetric: out[i] = q[i] ^ flip (0x80: the
    ** product's q + 128; 0: q itself), *scale and *zp (0 when symmetric) as they set them. */
    void (*quantize)(const float *x, int32_t n, bool asymmetric, uint8_t flip, uint8_t *out,
                     float *scale, int32_t *zp);
    /* n channels of sums into out */
    void (*output)(const pl_hybrid_out *o, const int32_t *sums, int32_t n, float *out);
    /* The same from sums that are already floats (exact integers: the depthwise path sums
    ** them in float), as if f = sums[c] (weight_sum and zp unused); out may be sums. */
    void (*output_f32)(const pl_hybrid_out *o, const float *sums, int32_t n, float *out);
} pl_hybrid_kernels;

/* NULL when isa has no such kernels in this build. */
const pl_hybrid_kernels *pl_hybrid_for(pl_isa isa);

/* Whether every one of x[0..n) is +0 or -0 (a NaN is not). */
bool pl_hybrid_all_zero(const float *x, size_t n);

/* The operators' hybrid paths, called by their fast prepare (after the portable prepare:
** sets up the node's block; false: the portable kernel runs the node) and invoke (with the
** block the plan set up). */
bool pl_fast_fully_connected_hybrid_plan(pl_context *ctx, const pl_node *node);
pl_status pl_fast_fully_connected_hybrid_invoke(pl_context *ctx, pl_node *node,
                                                const void *block);
bool pl_fast_conv_hybrid_plan(pl_context *ctx, const pl_node *node);
pl_status pl_fast_conv_hybrid_invoke(pl_context *ctx, pl_node *node, const void *block);

extern const pl_hybrid_kernels pl_hybrid_avx512;
extern const pl_hybrid_kernels pl_hybrid_avx2;
extern const pl_hybrid_kernels pl_hybrid_vec4; /* SSE4.1's and NEON's: the baseline's 4 lanes */

#endif
