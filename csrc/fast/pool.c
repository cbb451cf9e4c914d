/* pool.c - AVERAGE_POOL_2D and MAX_POOL_2D's fast path, int8, int16 and float32 (see
** pool.h): the window of each output point clipped as the reference clips it, then one
** table call. uint8 keeps the portable kernel, as do windows too large for the exact
** division (PL_POOL_MAX_COUNT). */
#include <string.h>

#include "fast/fast.h"
#include "fast/isa_pick.h"
#include "fast/pool.h"
#include "kernels/pool/pooling_fast.h"

typedef struct pool_plan {
    bool average;
    int32_t in_h, in_w, depth;   /* the input's shape (batches as the output's) */
    int32_t batches, out_h, out_w;
} pool_plan;

const pl_pool *pl_pool_for(pl_isa isa)
{
    PL_FAST_PICK(isa, &pl_pool_avx512, &pl_pool_avx2, &pl_pool_sse41, &pl_pool_neon,
                 &pl_pool_neon);
    return NULL;
}

/* Taps [lo, hi) of a window from origin over size pixels, as the reference clips it. */
static void clip(int32_t origin, int32_t filter, int32_t size, int32_t *lo, int32_t *hi)
{
    *lo = origin < 0 ? -origin : 0;
    *hi = filter < size - origin ? filter : size - origin;
}

/* True when every window along one axis holds a tap (SAME and VALID always give one; an
** empty window divides by zero in the reference's float average). */
static bool windows_filled(int32_t out, int32_t stride, int32_t pad, int32_t filter,
                           int32_t size)
{
    for (int32_t o = 0; o < out; o++) {
        int32_t lo, hi;
        clip(o * stride - pad, filter, size, &lo, &hi);
        if (hi <= lo)
            return false;
    }
    return true;
}

static bool plan(pl_context *ctx, const pl_node *node, bool average)
{
    const pl_pooling_op *d = node->user_data;
    const pl_pooling_params *p = &d->p;
    pl_tensor in, out;
    if ((d->type != PL_INT8 && d->type != PL_INT16 && d->type != PL_FLOAT32) ||
        pl_pool_for(pl_fast_isa_of(node)) == NULL ||
        ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK || in.ndims != 4 ||
        out.ndims != 4 || out.dims[3] != in.dims[3])
        return false;
    if ((int64_t)p->filter_h * p->filter_w > PL_POOL_MAX_COUNT ||
        !windows_filled(out.dims[1], p->stride_h, p->pad_h, p->filter_h, in.dims[1]) ||
        !windows_filled(out.dims[2], p->stride_w, p->pad_w, p->filter_w, in.dims[2]))
        return false;
    pool_plan pl = {average, in.dims[1], in.dims[2], in.dims[3], out.dims[0], out.dims[1],
                    out.dims[2]};
    return pl_fast_block_put(node, &pl, sizeof pl);
}

static bool plan_avg(pl_context *ctx, const pl_node *node)
{
    return plan(ctx, node, true);
}

static bool plan_max(pl_context *ctx, const pl_node *node)
{
    return plan(ctx, node, false);
}

pl_status pl_fast_avg_pool_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan_avg);
}

pl_status pl_fast_max_pool_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan_max);
}

/* One output point, every channel: the table's kernel for the node's type. */
static void point(const pl_pool *k, const pl_pooling_op *d, bool average,
                  const pl_pool_window *w, const void *x, size_t at, void *out, size_t o)
{
    const pl_pooling_params *p = &d->p;
    if (d->type == PL_FLOAT32)
        (average ? k->avg_f32 : k->max_f32)(w, (const float *)x + at, p->f_act_min,
                                             p->f_act_max, (float *)out + o);
    else if (d->type == PL_INT16)
        (average ? k->avg_s16 : k->max_s16)(w, (const int16_t *)x + at, p->act_min,
                                             p->act_max, (int16_t *)out + o);
    else
        (average ? k->avg_s8 : k->max_s8)(w, (const int8_t *)x + at, p->act_min, p->act_max,
                                           (int8_t *)out + o);
}

pl_status pl_fast_pool_invoke(pl_context *ctx, pl_node *node)
{
    const pool_plan *pl = pl_fast_block(node);
    if (pl == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const pl_pooling_op *d = node->user_data;
    const pl_pooling_params *p = &d->p;
    const pl_pool *k = pl_pool_for(pl_fast_isa_of(node));
    const void *in = pl_fast_data(ctx, pl_node_input(node, 0));
    void *out = pl_fast_data(ctx, pl_node_output(node, 0));
    const int32_t in_h = pl->in_h, in_w = pl->in_w, depth = pl->depth;
    pl_pool_window w = {0, 0, depth, (size_t)in_w * (size_t)depth};
    size_t o = 0;
    for (int32_t b = 0; b < pl->batches; b++)
        for (int32_t oy = 0; oy < pl->out_h; oy++) {
            int32_t y0 = oy * p->stride_h - p->pad_h, fy0, fy1;
            clip(y0, p->filter_h, in_h, &fy0, &fy1);
            w.rows = fy1 - fy0;
            for (int32_t ox = 0; ox < pl->out_w; ox++, o += (size_t)depth) {
                int32_t x0 = ox * p->stride_w - p->pad_w, fx0, fx1;
                clip(x0, p->filter_w, in_w, &fx0, &fx1);
                w.cols = fx1 - fx0;
                size_t at = (((size_t)b * (size_t)in_h + (size_t)(y0 + fy0)) * (size_t)in_w +
                             (size_t)(x0 + fx0)) * (size_t)depth;
                point(k, d, pl->average, &w, in, at, out, o);
            }
        }
    return PL_OK;
}
