/* conv_narrow.c - float32 CONV_2D with few output channels and unit horizontal stride
** (conv_narrow.h): the input copied into zero-padded channel planes at each invoke, then each
** output row's points computed by lanes, rows split over the threads. A padded tap adds
** 0 * w, which leaves every sum as the portable kernel's skipped tap does for finite weights
** (a node with another declines). */
#include <string.h>

#include "fast/conv_narrow.h"
#include "fast/fast.h"
#include "kernels/conv/conv_fast.h"
#include "kernels/conv/convq_views_fast.h"

const pl_narrow_kernels *pl_narrow_for(pl_isa isa)
{
    PL_FAST_PICK(isa, &pl_narrow_avx512, &pl_narrow_avx2, NULL, NULL, NULL);
    return NULL;
}

/* The planes: every input channel's window extent, rows hp x wp, origin at (-pad_h,
** -pad_w). */
typedef struct narrow_plan {
    uint8_t kind; /* PL_CONV_BLOCK_NARROW */
    const pl_narrow_kernels *k;
    int32_t hp, wp;
    size_t plane_size;
    size_t planes_bytes; /* in the scratch, with the slack */
} narrow_plan;

/* At most this many floats in the planes (the scratch holds them at every invoke). */
enum { PLANES_MAX = 1 << 22 };

bool pl_fast_conv_narrow_plan(pl_context *ctx, const pl_node *node)
{
    const pl_conv_op *d = node->user_data;
    const pl_narrow_kernels *k = pl_narrow_for(pl_fast_isa_of(node));
    pl_tensor in, f, bias, out;
    if (k == NULL || d->hybrid || d->type != PL_FLOAT32 || d->p.stride_w != 1 ||
        ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        pl_fast_eval_constant(ctx, node, pl_node_input(node, 1), &f) != PL_OK ||
        pl_fast_eval_constant(ctx, node, pl_node_input(node, 2), &bias) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK)
        return false;
    if (f.data == NULL || !f.is_constant || f.type != PL_FLOAT32 || f.dims[3] != in.dims[3] ||
        (bias.index >= 0 && (bias.data == NULL || !bias.is_constant)))
        return false;
    const int32_t n = f.dims[0], oh = out.dims[1], ow = out.dims[2];
    if (n < 1 || n > k->max_n || ow < k->lanes / 2 || oh < 1 || f.dims[1] < 1 ||
        f.dims[2] < 1 || in.dims[3] < 1 || out.dims[3] != n)
        return false;
    if (!pl_fast_all_finite(f.data, pl_tensor_count(&f)))
        return false;
    narrow_plan np = {PL_CONV_BLOCK_NARROW, k, 0, 0, 0, 0};
    np.hp = (oh - 1) * d->p.stride_h + (f.dims[1] - 1) * d->p.dilation_h + 1;
    np.wp = ow - 1 + (f.dims[2] - 1) * d->p.dilation_w + 1;
    np.plane_size = (size_t)np.hp * (size_t)np.wp;
    size_t floats = np.plane_size * (size_t)in.dims[3] * (size_t)in.dims[0];
    if (floats > PLANES_MAX)
        return false;
    np.planes_bytes = (floats + PL_NARROW_SLACK) * sizeof(float);
    if (!pl_fast_block_put(node, &np, sizeof np) ||
        !pl_fast_scratch_reserve(node, np.planes_bytes))
        return false;
    pl_fast_claim_folds(node, 1, 2);
    pl_fast_reg_of(node)->owner->narrow_convs++;
    return true;
}

/* Batch b of in (NHWC) into its channel planes, the padding zero. */
static void fill_planes(const narrow_plan *np, const pl_conv_params *p, const int32_t *in_dims,
                        const float *in, int32_t b, float *planes)
{
    const int32_t h = in_dims[1], w = in_dims[2], c = in_dims[3];
    float *batch = planes + (size_t)b * (size_t)c * np->plane_size;
    memset(batch, 0, (size_t)c * np->plane_size * sizeof(float));
    /* the input rows and columns inside the extent */
    const int32_t y0 = p->pad_h > 0 ? 0 : -p->pad_h, x0 = p->pad_w > 0 ? 0 : -p->pad_w;
    const int32_t y1 = h < np->hp - p->pad_h ? h : np->hp - p->pad_h;
    const int32_t x1 = w < np->wp - p->pad_w ? w : np->wp - p->pad_w;
    for (int32_t y = y0; y < y1; y++) {
        const float *row = in + (((size_t)b * (size_t)h + (size_t)y) * (size_t)w) * (size_t)c;
        float *dst = batch + (size_t)(y + p->pad_h) * (size_t)np->wp + (size_t)p->pad_w;
        /* a plane's row at a time: its writes in order (the reads stay in the input row) */
        for (int32_t ch = 0; ch < c; ch++) {
            float *plane_row = dst + (size_t)ch * np->plane_size;
            for (int32_t x = x0; x < x1; x++)
                plane_row[x] = row[(size_t)x * (size_t)c + (size_t)ch];
        }
    }
}

typedef struct narrow_job {
    const narrow_plan *np;
    const pl_conv_op *d;
    const pl_convq_views *v;
    const float *planes;
    int32_t tasks_per_batch;
} narrow_job;

/* Output rows [task PL_NARROW_TASK_ROWS, ...) of one batch (tasks_per_batch a batch). */
static void narrow_rows(void *arg, int32_t worker, int32_t task)
{
    (void)worker;
    const narrow_job *j = arg;
    const pl_convq_views *v = j->v;
    const pl_conv_params *p = &j->d->p;
    const int32_t oh = v->out.dims[1], ow = v->out.dims[2], n = v->out.dims[3];
    const int32_t c = v->in.dims[3], b = task / j->tasks_per_batch;
    const int32_t oy = task % j->tasks_per_batch * PL_NARROW_TASK_ROWS;
    const int32_t rows = oh - oy < PL_NARROW_TASK_ROWS ? oh - oy : PL_NARROW_TASK_ROWS;
    const pl_narrow_row r = {
        j->planes + (size_t)b * (size_t)c * j->np->plane_size, j->np->plane_size, j->np->wp,
        oy * p->stride_h, p->stride_h, rows, v->f.dims[1], v->f.dims[2], c, p->dilation_h,
        p->dilation_w, v->f.data, v->bias.data, n, ow, p->f_act_min, p->f_act_max,
        (float *)v->out.data + ((size_t)b * (size_t)oh + (size_t)oy) * (size_t)ow * (size_t)n};
    j->np->k->rows(&r, j->d->fused);
}

pl_status pl_fast_conv_narrow_invoke(pl_context *ctx, pl_node *node, const void *block)
{
    const narrow_plan *np = block;
    const pl_conv_op *d = node->user_data;
    pl_convq_views v;
    PL_TRY(pl_convq_views_get(ctx, node, &v));
    pl_fast_use_fold(ctx, node, &v.f);
    pl_fast_use_fold(ctx, node, &v.bias);
    float *planes = pl_fast_scratch(node);
    for (int32_t b = 0; b < v.in.dims[0]; b++)
        fill_planes(np, &d->p, v.in.dims, v.in.data, b, planes);
    memset((uint8_t *)planes + np->planes_bytes - PL_NARROW_SLACK * sizeof(float), 0,
           PL_NARROW_SLACK * sizeof(float));
    const int32_t per_batch = (v.out.dims[1] + PL_NARROW_TASK_ROWS - 1) / PL_NARROW_TASK_ROWS;
    narrow_job job = {np, d, &v, planes, per_batch};
    const double work = (double)pl_tensor_count(&v.out) * (double)pl_tensor_count(&v.f) /
                        (double)v.out.dims[3];
    pl_fast_parallel(node, v.out.dims[0] * per_batch, work, narrow_rows, &job);
    return PL_OK;
}
