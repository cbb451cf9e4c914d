/* conv_narrow.c - CONV_2D with few output channels and unit horizontal stride, float32 and
** int8 (conv_narrow.h): the input copied into padded planes at each invoke, then each output
** row's points computed by lanes, tasks of a few rows split over the threads. A float padded
** tap adds 0 * w, which leaves every sum as the portable kernel's skipped tap does for finite
** weights (a node with another declines); an int8 one holds the byte whose input is the zero
** point (0 once the zero point is taken off). */
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

const pl_narrow_s8_kernels *pl_narrow_s8_for(pl_isa isa)
{
    PL_FAST_PICK(isa, &pl_narrow_s8_avx512, NULL, NULL, NULL, NULL);
    return NULL;
}

/* The planes: every input channel's (float) or channel quad's (int8) window extent, rows hp
** x wp of 4-byte cells, origin at (-pad_h, -pad_w). */
typedef struct narrow_plan {
    uint8_t kind; /* PL_CONV_BLOCK_NARROW or PL_CONV_BLOCK_NARROW_S8 */
    uint8_t pad;  /* int8: the padding's byte, 128 + the input zero point */
    const pl_narrow_kernels *k;
    const pl_narrow_s8_kernels *k8;
    int32_t hp, wp, planes_per_batch; /* the input channels, or their quads */
    size_t plane_cells;
    size_t planes_bytes; /* in the scratch, with the slack */
    int32_t *w8;         /* int8: n x (fh fw quads) weight cells, then each channel's corr */
} narrow_plan;

/* At most this many cells in the planes (the scratch holds them at every invoke). */
enum { PLANES_MAX = 1 << 22 };

/* What both kinds need of the node: the views, and that its shape suits the lanes. */
static bool narrow_shape(pl_context *ctx, const pl_node *node, int32_t lanes, int32_t max_n,
                         pl_tensor *in, pl_tensor *f, pl_tensor *bias, pl_tensor *out)
{
    const pl_conv_op *d = node->user_data;
    if (d->hybrid || d->helium_1xn || d->p.stride_w != 1 ||
        ctx->get_eval(ctx, pl_node_input(node, 0), in) != PL_OK ||
        pl_fast_eval_constant(ctx, node, pl_node_input(node, 1), f) != PL_OK ||
        pl_fast_eval_constant(ctx, node, pl_node_input(node, 2), bias) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), out) != PL_OK)
        return false;
    if (f->data == NULL || !f->is_constant || f->type != in->type ||
        f->dims[3] != in->dims[3] ||
        (bias->index >= 0 && (bias->data == NULL || !bias->is_constant)))
        return false;
    const int32_t n = f->dims[0];
    return n >= 1 && n <= max_n && out->dims[2] >= lanes / 2 && out->dims[1] >= 1 &&
           f->dims[1] >= 1 && f->dims[2] >= 1 && in->dims[3] >= 1 && out->dims[3] == n;
}

/* The planes' extent, and the block and scratch for them (extra: the block's bytes past the
** plan). */
static narrow_plan *put_plan(const pl_node *node, narrow_plan *np, const pl_tensor *in,
                             const pl_tensor *f, const pl_tensor *out, size_t extra)
{
    const pl_conv_op *d = node->user_data;
    np->hp = (out->dims[1] - 1) * d->p.stride_h + (f->dims[1] - 1) * d->p.dilation_h + 1;
    np->wp = out->dims[2] - 1 + (f->dims[2] - 1) * d->p.dilation_w + 1;
    np->plane_cells = (size_t)np->hp * (size_t)np->wp;
    size_t cells = np->plane_cells * (size_t)np->planes_per_batch * (size_t)in->dims[0];
    if (cells > PLANES_MAX)
        return NULL;
    np->planes_bytes = (cells + PL_NARROW_SLACK) * 4;
    const size_t head = pl_fast_align64(sizeof *np);
    uint8_t *block = pl_fast_block_new(node, head + extra);
    if (block == NULL || !pl_fast_scratch_reserve(node, np->planes_bytes))
        return NULL;
    np->w8 = extra > 0 ? (int32_t *)(block + head) : NULL;
    memcpy(block, np, sizeof *np);
    return (narrow_plan *)block;
}

static bool plan_f32(pl_context *ctx, const pl_node *node)
{
    const pl_narrow_kernels *k = pl_narrow_for(pl_fast_isa_of(node));
    pl_tensor in, f, bias, out;
    if (k == NULL || !narrow_shape(ctx, node, k->lanes, k->max_n, &in, &f, &bias, &out) ||
        !pl_fast_all_finite(f.data, pl_tensor_count(&f)))
        return false;
    narrow_plan np = {.kind = PL_CONV_BLOCK_NARROW, .k = k, .planes_per_batch = in.dims[3]};
    return put_plan(node, &np, &in, &f, &out, 0) != NULL;
}

/* int8: the weights as cells of four channels (past the channels 0), then each channel's
** corr (conv_narrow.h); its multiplier and shift stay the op data's. */
static bool plan_s8(pl_context *ctx, const pl_node *node)
{
    const pl_conv_op *d = node->user_data;
    const pl_narrow_s8_kernels *k8 = pl_narrow_s8_for(pl_fast_isa_of(node));
    pl_tensor in, f, bias, out;
    if (k8 == NULL || !narrow_shape(ctx, node, k8->lanes, k8->max_n, &in, &f, &bias, &out) ||
        (bias.index >= 0 && bias.type != PL_INT32))
        return false;
    const int32_t n = f.dims[0], c = in.dims[3], quads = (c + 3) / 4;
    const int32_t taps = f.dims[1] * f.dims[2], cells = taps * quads;
    narrow_plan np = {.kind = PL_CONV_BLOCK_NARROW_S8, .k8 = k8, .planes_per_batch = quads,
                      .pad = (uint8_t)(128 - d->p.input_offset)};
    narrow_plan *at = put_plan(node, &np, &in, &f, &out,
                               sizeof(int32_t) * ((size_t)n * (size_t)cells + (size_t)n));
    if (at == NULL)
        return false;
    const int8_t *w = f.data;
    const int32_t *b = bias.index >= 0 ? bias.data : NULL;
    int32_t *corr = at->w8 + (size_t)n * (size_t)cells;
    for (int32_t o = 0; o < n; o++) {
        uint32_t sum = 0;
        for (int32_t t = 0; t < taps; t++)
            for (int32_t q = 0; q < quads; q++) {
                uint8_t cell[4] = {0, 0, 0, 0};
                for (int32_t i = 0; i < 4 && 4 * q + i < c; i++) {
                    const int8_t v = w[((size_t)o * (size_t)taps + (size_t)t) * (size_t)c +
                                       (size_t)(4 * q + i)];
                    cell[i] = (uint8_t)v;
                    sum += (uint32_t)(int32_t)v;
                }
                memcpy(at->w8 + ((size_t)o * (size_t)taps + (size_t)t) * (size_t)quads +
                           (size_t)q, cell, 4);
            }
        /* bias - (128 - input_offset) sum(w), wrapping as the portable sum does */
        corr[o] = (int32_t)((b != NULL ? (uint32_t)b[o] : 0u) - (uint32_t)at->pad * sum);
    }
    return true;
}

bool pl_fast_conv_narrow_plan(pl_context *ctx, const pl_node *node)
{
    const pl_conv_op *d = node->user_data;
    const bool made = d->type == PL_FLOAT32 ? plan_f32(ctx, node)
                    : d->type == PL_INT8 && plan_s8(ctx, node);
    if (!made)
        return false;
    pl_fast_claim_folds(node, 1, 2);
    pl_fast_reg_of(node)->owner->narrow_convs++;
    return true;
}

/* The input rows [*y0, *y1) and columns [*x0, *x1) that lie inside the planes' extent. */
static void inside(const narrow_plan *np, const pl_conv_params *p, const int32_t *in_dims,
                   int32_t *y0, int32_t *y1, int32_t *x0, int32_t *x1)
{
    *y0 = p->pad_h > 0 ? 0 : -p->pad_h;
    *x0 = p->pad_w > 0 ? 0 : -p->pad_w;
    *y1 = in_dims[1] < np->hp - p->pad_h ? in_dims[1] : np->hp - p->pad_h;
    *x1 = in_dims[2] < np->wp - p->pad_w ? in_dims[2] : np->wp - p->pad_w;
}

/* Batch b of the float input (NHWC) into its channel planes, the padding zero. */
static void fill_planes(const narrow_plan *np, const pl_conv_params *p, const int32_t *in_dims,
                        const float *in, int32_t b, float *planes)
{
    const int32_t h = in_dims[1], w = in_dims[2], c = in_dims[3];
    float *batch = planes + (size_t)b * (size_t)c * np->plane_cells;
    memset(batch, 0, (size_t)c * np->plane_cells * sizeof(float));
    int32_t y0, y1, x0, x1;
    inside(np, p, in_dims, &y0, &y1, &x0, &x1);
    for (int32_t y = y0; y < y1; y++) {
        const float *row = in + (((size_t)b * (size_t)h + (size_t)y) * (size_t)w) * (size_t)c;
        float *dst = batch + (size_t)(y + p->pad_h) * (size_t)np->wp + (size_t)p->pad_w;
        /* a plane's row at a time: its writes in order (the reads stay in the input row) */
        for (int32_t ch = 0; ch < c; ch++) {
            float *plane_row = dst + (size_t)ch * np->plane_cells;
            for (int32_t x = x0; x < x1; x++)
                plane_row[x] = row[(size_t)x * (size_t)c + (size_t)ch];
        }
    }
}

/* Batch b of the int8 input into its quads' planes: each byte + 128, the padding (and the
** last quad's bytes past the channels) the pad byte. */
static void fill_quads(const narrow_plan *np, const pl_conv_params *p, const int32_t *in_dims,
                       const int8_t *in, int32_t b, uint8_t *planes)
{
    const int32_t h = in_dims[1], w = in_dims[2], c = in_dims[3], quads = np->planes_per_batch;
    const size_t plane_bytes = np->plane_cells * 4;
    uint8_t *batch = planes + (size_t)b * (size_t)quads * plane_bytes;
    memset(batch, np->pad, (size_t)quads * plane_bytes);
    int32_t y0, y1, x0, x1;
    inside(np, p, in_dims, &y0, &y1, &x0, &x1);
    for (int32_t y = y0; y < y1; y++) {
        const int8_t *row = in + (((size_t)b * (size_t)h + (size_t)y) * (size_t)w) * (size_t)c;
        uint8_t *dst = batch + ((size_t)(y + p->pad_h) * (size_t)np->wp + (size_t)p->pad_w) * 4;
        for (int32_t q = 0; q < quads; q++) {
            uint8_t *plane_row = dst + (size_t)q * plane_bytes;
            const int32_t take = c - 4 * q < 4 ? c - 4 * q : 4;
            for (int32_t x = x0; x < x1; x++) {
                const int8_t *src = row + (size_t)x * (size_t)c + (size_t)(4 * q);
                if (take == 4) {
                    uint32_t v;
                    memcpy(&v, src, 4);
                    v ^= 0x80808080u; /* + 128 on each byte */
                    memcpy(plane_row + (size_t)x * 4, &v, 4);
                } else {
                    for (int32_t i = 0; i < take; i++)
                        plane_row[(size_t)x * 4 + (size_t)i] = (uint8_t)(src[i] ^ 0x80);
                }
            }
        }
    }
}

typedef struct narrow_job {
    const narrow_plan *np;
    const pl_conv_op *d;
    const pl_convq_views *v;
    const uint8_t *planes;
    int32_t tasks_per_batch;
} narrow_job;

/* Output rows [task PL_NARROW_TASK_ROWS, ...) of one batch (tasks_per_batch a batch). */
static void narrow_rows(void *arg, int32_t worker, int32_t task)
{
    (void)worker;
    const narrow_job *j = arg;
    const narrow_plan *np = j->np;
    const pl_convq_views *v = j->v;
    const pl_conv_params *p = &j->d->p;
    const int32_t oh = v->out.dims[1], ow = v->out.dims[2], n = v->out.dims[3];
    const int32_t b = task / j->tasks_per_batch;
    const int32_t oy = task % j->tasks_per_batch * PL_NARROW_TASK_ROWS;
    const int32_t rows = oh - oy < PL_NARROW_TASK_ROWS ? oh - oy : PL_NARROW_TASK_ROWS;
    const size_t first = ((size_t)b * (size_t)oh + (size_t)oy) * (size_t)ow * (size_t)n;
    const uint8_t *planes =
        j->planes + (size_t)b * (size_t)np->planes_per_batch * np->plane_cells * 4;
    if (np->kind == PL_CONV_BLOCK_NARROW_S8) {
        const int32_t cells = v->f.dims[1] * v->f.dims[2] * np->planes_per_batch;
        const int32_t *corr = np->w8 + (size_t)n * (size_t)cells;
        const pl_narrow_s8_row r = {
            planes, np->plane_cells, np->wp, oy * p->stride_h, p->stride_h, rows,
            v->f.dims[1], v->f.dims[2], np->planes_per_batch, p->dilation_h, p->dilation_w,
            np->w8, corr, p->multiplier, p->shift, p->output_offset, p->act_min, p->act_max, n,
            ow, (int8_t *)v->out.data + first};
        np->k8->rows(&r);
        return;
    }
    const pl_narrow_row r = {
        (const float *)planes, np->plane_cells, np->wp, oy * p->stride_h, p->stride_h, rows,
        v->f.dims[1], v->f.dims[2], v->in.dims[3], p->dilation_h, p->dilation_w, v->f.data,
        v->bias.data, n, ow, p->f_act_min, p->f_act_max, (float *)v->out.data + first};
    np->k->rows(&r, j->d->fused);
}

pl_status pl_fast_conv_narrow_invoke(pl_context *ctx, pl_node *node, const void *block)
{
    const narrow_plan *np = block;
    const pl_conv_op *d = node->user_data;
    pl_convq_views v;
    PL_TRY(pl_convq_views_get(ctx, node, &v));
    pl_fast_use_fold(ctx, node, &v.f);
    pl_fast_use_fold(ctx, node, &v.bias);
    uint8_t *planes = pl_fast_scratch(node);
    for (int32_t b = 0; b < v.in.dims[0]; b++) {
        if (np->kind == PL_CONV_BLOCK_NARROW_S8)
            fill_quads(np, &d->p, v.in.dims, v.in.data, b, planes);
        else
            fill_planes(np, &d->p, v.in.dims, v.in.data, b, (float *)planes);
    }
    memset(planes + np->planes_bytes - PL_NARROW_SLACK * 4, 0, PL_NARROW_SLACK * 4);
    const int32_t per_batch = (v.out.dims[1] + PL_NARROW_TASK_ROWS - 1) / PL_NARROW_TASK_ROWS;
    narrow_job job = {np, d, &v, planes, per_batch};
    const double work = (double)pl_tensor_count(&v.out) * (double)pl_tensor_count(&v.f) /
                        (double)v.out.dims[3];
    pl_fast_parallel(node, v.out.dims[0] * per_batch, work, narrow_rows, &job);
    return PL_OK;
}
