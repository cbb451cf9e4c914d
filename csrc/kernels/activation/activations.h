/* activations.h - RELU, RELU6, RELU_N1_TO_1, LEAKY_RELU, HARD_SWISH kernels, and the
** one-input/one-output prepare helpers every activation-style kernel shares. */
#ifndef PL_KERNELS_ACTIVATIONS_H
#define PL_KERNELS_ACTIVATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/activation/activations_fast.h"
#include "picolite/pl_kernel.h"
#include "picolite/pl_node_io.h"

/* Per-tensor quantization of a prepared tensor: scale[0] and zero_point[0]. */
typedef struct pl_act_q {
    float scale;
    int32_t zero_point;
} pl_act_q;

/* Fetches input 0 and output 0 of a node with exactly one of each (prepare) and gives the
** output the input's shape (ctx->set_shape). */
static inline pl_status pl_act_unary(pl_context *ctx, pl_node *node, pl_tensor **in,
                                     pl_tensor **out)
{
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(1, 1), in, out));
    return pl_set_output_like(ctx, *out, *in);
}

/* The per-tensor quantization of t; PL_ERR_MODEL when a quantized type has none. */
static inline pl_status pl_act_quant(pl_context *ctx, const pl_tensor *t, pl_act_q *q)
{
    q->scale = 0.0f;
    q->zero_point = 0;
    if (t->q.count < 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "tensor %d of type %s has no quantization",
                         t->index, pl_type_name(t->type));
    q->scale = t->q.scale[0];
    q->zero_point = (int32_t)t->q.zero_point[0];
    return PL_OK;
}

/* Quantized ReluX: requantize to the output scale, then clamp to [act_min, act_max]. */
void pl_relu_s16(const pl_relu_params *p, const int16_t *in, int16_t *out, size_t n);

void pl_leaky_relu_f32(float alpha, const float *in, float *out, size_t n);
void pl_leaky_relu_s16(const pl_leaky_relu_params *p, const int16_t *in, int16_t *out,
                       size_t n);

void pl_hard_swish_f32(const float *in, float *out, size_t n);

#endif
