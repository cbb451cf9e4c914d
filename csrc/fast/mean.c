/* mean.c - MEAN's fast path (float32, int8, int16, uint8) when the reduced axes are adjacent
** (pl_reduce_as_blocks: global average pooling over H and W, a last-axis mean). The portable
** kernel adds each input element into its output slot in memory; here the sums of a block of
** channels stay in a local array while the reduced rows stream past, each channel's sum
** still taking its elements in input order (float: the reference's rounding; integers: int32
** wrapping sums, the same in any order), then the portable kernel's division (float) or
** pl_reduce_rescale (quantized) makes the output: the portable kernel's bytes. */
#include <string.h>

#include "fast/fast.h"
#include "kernels/reduce/reduce_fast.h"

typedef struct mean_plan {
    pl_reduce_params p;      /* what the blocks were found for */
    pl_reduce_blocks blocks;
} mean_plan;

static bool plan(pl_context *ctx, const pl_node *node)
{
    (void)ctx;
    const pl_reduce_op *d = node->user_data;
    mean_plan mp;
    memcpy(&mp.p, &d->p, sizeof mp.p); /* padding too: invoke compares the bytes */
    pl_reduce_blocks b;
    if (d->is_sum || d->as_uint8 || !pl_reduce_as_blocks(&d->p, &b) ||
        (d->type != PL_FLOAT32 && d->type != PL_INT8 && d->type != PL_INT16 &&
         d->type != PL_UINT8))
        return false;
    mp.blocks = b;
    void *block = pl_fast_block_new(node, sizeof mp);
    if (block != NULL)
        memcpy(block, &mp, sizeof mp);
    return block != NULL;
}

pl_status pl_fast_mean_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

enum { LANES = 64 }; /* channels summed at a time */

/* acc[c] = the sum over r of x[r * inner + c] for c < n, r in order; float. */
static void sum_f32(const float *x, size_t reduced, size_t inner, size_t n, float *out)
{
    float acc[LANES] = {0};
    for (size_t r = 0; r < reduced; r++, x += inner)
        for (size_t c = 0; c < n; c++)
            acc[c] += x[c];
    memcpy(out, acc, n * sizeof *out);
}

/* The same for integers into uint32 (wrapping as the portable int32 sum). */
#define SUM_INT(NAME, TYPE)                                                                \
    static void NAME(const TYPE *x, size_t reduced, size_t inner, size_t n, int32_t *out) \
    {                                                                                      \
        uint32_t acc[LANES] = {0};                                                         \
        for (size_t r = 0; r < reduced; r++, x += inner)                                   \
            for (size_t c = 0; c < n; c++)                                                 \
                acc[c] += (uint32_t)x[c];                                                  \
        for (size_t c = 0; c < n; c++)                                                     \
            out[c] = (int32_t)acc[c];                                                      \
    }

SUM_INT(sum_s8, int8_t)
SUM_INT(sum_u8, uint8_t)
SUM_INT(sum_s16, int16_t)

/* A single sum of a last-axis mean: sequential, in order. */
static float sum_row_f32(const float *x, size_t n)
{
    float s = 0.0f;
    for (size_t r = 0; r < n; r++)
        s += x[r];
    return s;
}

static void mean_f32(const pl_reduce_op *d, const pl_reduce_blocks *b, const float *in,
                     float *out)
{
    for (size_t o = 0; o < b->outer; o++, in += b->reduced * b->inner) {
        float *dst = out + o * b->inner;
        if (b->inner == 1)
            dst[0] = sum_row_f32(in, b->reduced);
        else
            for (size_t c = 0; c < b->inner; c += LANES)
                sum_f32(in + c, b->reduced, b->inner,
                        b->inner - c < LANES ? b->inner - c : LANES, dst + c);
    }
    float n = (float)d->p.reduced;
    for (size_t k = 0; k < d->p.out_count; k++)
        out[k] = out[k] / n;
}

static void sum_quantized(const pl_reduce_op *d, const pl_reduce_blocks *b, const void *in,
                          int32_t *sum)
{
    size_t es = pl_type_size(d->type);
    for (size_t o = 0; o < b->outer; o++) {
        const uint8_t *x = (const uint8_t *)in + o * b->reduced * b->inner * es;
        for (size_t c = 0; c < b->inner; c += LANES) {
            size_t n = b->inner - c < LANES ? b->inner - c : LANES;
            int32_t *dst = sum + o * b->inner + c;
            if (d->type == PL_INT8)
                sum_s8((const int8_t *)x + c, b->reduced, b->inner, n, dst);
            else if (d->type == PL_UINT8)
                sum_u8(x + c, b->reduced, b->inner, n, dst);
            else
                sum_s16((const int16_t *)(const void *)x + c, b->reduced, b->inner, n, dst);
        }
    }
}

pl_status pl_fast_mean_invoke(pl_context *ctx, pl_node *node)
{
    const pl_reduce_op *d = node->user_data;
    const mean_plan *mp = pl_fast_block(node);
    const pl_reduce_blocks *b =
        mp != NULL && memcmp(&mp->p, &d->p, sizeof mp->p) == 0 ? &mp->blocks : NULL;
    int32_t *sum = b != NULL && d->type != PL_FLOAT32 ? ctx->get_scratch(ctx, d->scratch) : NULL;
    if (b == NULL || (d->type != PL_FLOAT32 && sum == NULL))
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    pl_tensor in, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    if (d->type == PL_FLOAT32) {
        mean_f32(d, b, in.data, out.data);
        return PL_OK;
    }
    sum_quantized(d, b, in.data, sum);
    pl_reduce_rescale(d, sum, out.data);
    return PL_OK;
}
