/* depthwise.c - DEPTHWISE_CONV_2D's fast path, int8, float32 and hybrid (see depthwise.h):
** each batch staged into the host block with its padding written out and its depth
** multiplier expanded, then one table run per output row (16x8: depthwise16.c). Hybrid
** (float input, int8 filter) quantizes each batch as the portable kernel does (hybrid.h),
** stages q - zero point as floats and runs the float rows with the filter as floats: every
** product and partial sum is an integer below 2^24, so the float sums are the portable
** kernel's int32 ones exactly; then the portable kernel's float stage. uint8 keeps the
** portable kernel, as does a filter, or an int8 or float32 bias, that is not a constant. */
#include <float.h>
#include <string.h>

#include "fast/depthwise.h"
#include "fast/fast.h"
#include "fast/gemm.h" /* pl_fast_round_up */
#include "fast/hybrid.h"
#include "fast/isa_pick.h"
#include "fast/s16.h"
#include "kernels/conv/convq_views_fast.h"
#include "kernels/conv/depthwise_conv_fast.h"

/* A staged batch larger than this keeps the portable kernel (host memory is not free). */
#define MAX_STAGED ((size_t)1 << 26) /* elements */

/* Hybrid: taps * 255 * 127 (the largest |q - zero point| times the largest |weight|) must
** stay below 2^24 for float sums to be exact. */
#define MAX_HYBRID_TAPS 518

typedef struct dw_plan {
    pl_dw_job job;
    bool f32;           /* float32 or hybrid: the float rows */
    bool hybrid;
    pl_dw_geometry g;
    int16_t offset;     /* int8: the input offset (minus its zero point) */
    void *staged;       /* one batch, zero where it is padding */
    int8_t *q;          /* hybrid: one batch quantized */
} dw_plan;

bool pl_dw_geometry_of(const pl_depthwise_conv_params *p, const pl_tensor *in,
                       const pl_tensor *f, const pl_tensor *out, size_t max_staged,
                       pl_dw_geometry *g)
{
    if (in->ndims != 4 || f->ndims != 4 || out->ndims != 4 || p->pad_h < 0 || p->pad_w < 0 ||
        out->dims[1] <= 0 || out->dims[2] <= 0 || out->dims[3] != f->dims[3] ||
        f->dims[3] <= 0 || (int64_t)in->dims[3] * p->depth_multiplier != f->dims[3])
        return false;
    g->m = p->depth_multiplier;
    g->in_c = in->dims[3];
    g->in_h = in->dims[1];
    g->in_w = in->dims[2];
    g->oh = out->dims[1];
    g->ow = out->dims[2];
    g->pad_h = p->pad_h;
    g->pad_w = p->pad_w;
    g->stride_h = p->stride_h;
    int64_t hp = (int64_t)(g->oh - 1) * p->stride_h +
                 (int64_t)(f->dims[1] - 1) * p->dilation_h + 1;
    int64_t wp = (int64_t)(g->ow - 1) * p->stride_w +
                 (int64_t)(f->dims[2] - 1) * p->dilation_w + 1;
    g->channels = f->dims[3];
    g->cp = pl_fast_round_up(f->dims[3], PL_DW_PAD);
    if ((uint64_t)hp * (uint64_t)wp * (uint64_t)g->cp > max_staged)
        return false;
    g->wp = (int32_t)wp;
    g->rows = (int32_t)(hp - p->pad_h < g->in_h ? hp - p->pad_h : g->in_h);
    g->cols = (int32_t)(wp - p->pad_w < g->in_w ? wp - p->pad_w : g->in_w);
    g->rows = g->rows < 0 ? 0 : g->rows;
    g->cols = g->cols < 0 ? 0 : g->cols;
    g->step = (size_t)p->stride_w * (size_t)g->cp;
    g->staged = (size_t)hp * (size_t)wp * (size_t)g->cp;
    return true;
}

const pl_dw_s8 *pl_dw_s8_for(pl_isa isa)
{
    PL_FAST_PICK(isa, &pl_dw_s8_avx512, &pl_dw_s8_avx2, &pl_dw_s8_sse41, &pl_dw_s8_neon,
                 &pl_dw_s8_neon);
    return NULL;
}

const pl_dw_f32 *pl_dw_f32_for(pl_isa isa)
{
    PL_FAST_PICK(isa, &pl_dw_f32_avx512, &pl_dw_f32_avx2, &pl_dw_f32_sse41, &pl_dw_f32_neon,
                 &pl_dw_f32_neon);
    return NULL;
}

static size_t s8_packed_bytes(int32_t taps, int32_t cp, int32_t group)
{
    size_t full = (size_t)(cp / group), rest = (size_t)(cp % group);
    return full * pl_dw_s8_group_bytes(taps, group) +
           (rest ? pl_dw_s8_group_bytes(taps, (int32_t)rest) : 0);
}

/* The layout of depthwise.h for d's filter w ([real taps][channels]) and bias (or NULL).
** False when a multiplier is INT32_MIN (the vector rescale assumes it is not; never from
** TFLite's rounding). */
static bool pack_s8(const pl_depthwise_conv_op *d, const pl_dw_job *job, int32_t real_taps,
                    int32_t group, const int8_t *w, const int32_t *bias, uint8_t *out)
{
    const int32_t n = job->channels;
    for (int32_t c0 = 0; c0 < job->cp; c0 += group) {
        const int32_t g = job->cp - c0 < group ? job->cp - c0 : group;
        int16_t *pw = (int16_t *)out;
        int32_t *arrays = (int32_t *)(out + (size_t)job->taps / 2 * (size_t)g * 4);
        for (int32_t t = 0; t < job->taps; t += 2)
            for (int32_t half = 0; half < 2; half++)
                for (int32_t lane = 0; lane < g / 8; lane++)
                    for (int32_t j = 0; j < 4; j++) {
                        int32_t c = c0 + 8 * lane + 4 * half + j;
                        for (int32_t q = t; q < t + 2; q++)
                            *pw++ = c < n && q < real_taps ? w[(size_t)q * (size_t)n + (size_t)c]
                                                           : 0;
                    }
        for (int32_t half = 0, k = 0; half < 2; half++)
            for (int32_t lane = 0; lane < g / 8; lane++)
                for (int32_t j = 0; j < 4; j++, k++) {
                    int32_t c = c0 + 8 * lane + 4 * half + j;
                    int32_t shift = c < n ? d->p.shift[c] : 0;
                    arrays[k] = c < n && bias != NULL ? bias[c] : 0;
                    arrays[g + k] = c < n ? d->p.multiplier[c] : 0;
                    arrays[2 * g + k] = shift > 0 ? shift : 0;
                    arrays[3 * g + k] = shift > 0 ? 0 : shift < -31 ? 31 : -shift;
                    if (arrays[g + k] == INT32_MIN)
                        return false;
                }
        out += pl_dw_s8_group_bytes(job->taps, g);
    }
    return true;
}

/* [taps][cp] weights (float w, or hybrid int8 w8), then cp bias values (0 without a bias:
** the reference adds 0.0f). False when a weight is inf or NaN: 0 * w at a padded tap would
** not be 0. */
static bool pack_f32(const pl_dw_job *job, const float *w, const int8_t *w8, const float *bias,
                     float *out)
{
    const int32_t n = job->channels;
    for (int32_t t = 0; t < job->taps; t++)
        for (int32_t c = 0; c < job->cp; c++) {
            size_t at = (size_t)t * (size_t)n + (size_t)c;
            float v = c >= n ? 0.0f : w8 != NULL ? (float)w8[at] : w[at];
            if (!(v - v == 0.0f))
                return false;
            *out++ = v;
        }
    for (int32_t c = 0; c < job->cp; c++)
        *out++ = c < n && bias != NULL ? bias[c] : 0.0f;
    return true;
}

/* Where input pixel (iy, ix)'s channels start in the staged batch. */
static inline size_t staged_at(const dw_plan *pl, int32_t iy, int32_t ix)
{
    return ((size_t)(iy + pl->g.pad_h) * (size_t)pl->g.wp + (size_t)(ix + pl->g.pad_w)) *
           (size_t)pl->job.cp;
}

/* One staged row of cols pixels with depth multiplier m > 1: x + off, each input channel
** m times. */
static void stage_row_expand_s8(const int8_t *s, int16_t *o, size_t cols, size_t cin,
                                size_t m, size_t cp, int16_t off)
{
    for (size_t x = 0; x < cols; x++, s += cin, o += cp)
        for (size_t c = 0; c < cin; c++)
            for (size_t k = 0; k < m; k++)
                o[c * m + k] = (int16_t)(s[c] + off);
}

static void stage_s8(const dw_plan *pl, const pl_dw_s8 *k, const int8_t *in)
{
    const size_t cin = (size_t)pl->g.in_c, row = (size_t)pl->g.in_w * cin, cp = (size_t)pl->job.cp;
    for (int32_t iy = 0; iy < pl->g.rows; iy++) {
        const int8_t *s = in + (size_t)iy * row;
        int16_t *o = (int16_t *)pl->staged + staged_at(pl, iy, 0);
        if (pl->g.m == 1 && k->stage != NULL)
            k->stage(s, o, (size_t)pl->g.cols, cin, cp, pl->offset);
        else
            stage_row_expand_s8(s, o, (size_t)pl->g.cols, cin, (size_t)pl->g.m, cp, pl->offset);
    }
}

static void stage_row_f32(const float *restrict s, float *restrict o, size_t cols,
                          size_t cin, size_t m, size_t cp)
{
    if (m == 1 && cin == cp) {
        memcpy(o, s, cols * cin * sizeof(float));
        return;
    }
    for (size_t x = 0; x < cols; x++, s += cin, o += cp)
        if (m == 1)
            memcpy(o, s, cin * sizeof(float));
        else
            for (size_t c = 0; c < cin; c++)
                for (size_t k = 0; k < m; k++)
                    o[c * m + k] = s[c];
}

static void stage_f32(const dw_plan *pl, const float *in)
{
    const size_t cin = (size_t)pl->g.in_c, row = (size_t)pl->g.in_w * cin;
    for (int32_t iy = 0; iy < pl->g.rows; iy++)
        stage_row_f32(in + (size_t)iy * row, (float *)pl->staged + staged_at(pl, iy, 0),
                      (size_t)pl->g.cols, cin, (size_t)pl->g.m, (size_t)pl->job.cp);
}

/* Hybrid: one staged row of cols pixels of the quantized batch as q - zp in float (exact),
** each input channel m times; multiplier 1 in runs the compiler vectorizes. */
static void stage_row_hybrid(const int8_t *restrict s, float *restrict o, size_t cols,
                             size_t cin, size_t m, size_t cp, int32_t zp)
{
    if (m == 1 && cin == cp) { /* the row is one run */
        cin *= cols;
        cols = 1;
    }
    for (size_t x = 0; x < cols; x++, s += cin, o += cp)
        if (m == 1)
            for (size_t c = 0; c < cin; c++)
                o[c] = (float)(s[c] - zp);
        else
            for (size_t c = 0; c < cin; c++)
                for (size_t k = 0; k < m; k++)
                    o[c * m + k] = (float)(s[c] - zp);
}

static void stage_hybrid(const dw_plan *pl, int32_t zp)
{
    const size_t cin = (size_t)pl->g.in_c, row = (size_t)pl->g.in_w * cin;
    for (int32_t iy = 0; iy < pl->g.rows; iy++)
        stage_row_hybrid(pl->q + (size_t)iy * row, (float *)pl->staged + staged_at(pl, iy, 0),
                         (size_t)pl->g.cols, cin, (size_t)pl->g.m, (size_t)pl->job.cp, zp);
}

/* Tap t's offset from its window's origin (the extra int8 tap repeats the last one). */
static void plan_taps(const pl_depthwise_conv_params *p, const pl_tensor *f, const dw_plan *pl,
                      int32_t real_taps, size_t *tap_at)
{
    for (int32_t t = 0; t < pl->job.taps; t++) {
        int32_t r = t < real_taps ? t : real_taps - 1;
        int32_t fy = r / f->dims[2], fx = r % f->dims[2];
        tap_at[t] = ((size_t)fy * (size_t)p->dilation_h * (size_t)pl->g.wp +
                     (size_t)fx * (size_t)p->dilation_w) * (size_t)pl->job.cp;
    }
}

/* Sets up the node's block; false: the portable kernel runs it. */
static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_depthwise_conv_op *d = node->user_data;
    pl_isa isa = pl_fast_isa_of(node);
    const pl_dw_s8 *k8 = pl_dw_s8_for(isa);
    pl_tensor in, f, bias, out;
    if ((d->type != PL_INT8 && d->type != PL_FLOAT32) || k8 == NULL ||
        pl_dw_f32_for(isa) == NULL || (d->p.hybrid && pl_hybrid_for(isa) == NULL) ||
        ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        pl_fast_eval_constant(ctx, node, pl_node_input(node, 1), &f) != PL_OK ||
        pl_fast_eval_constant(ctx, node, pl_node_input(node, 2), &bias) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK)
        return false;
    if (d->type == PL_FLOAT32 && !d->p.hybrid && d->p.fused &&
        pl_dw_f32_for(isa)->run_fused == NULL) /* no FMA */
        return false;
    /* a hybrid bias is added at invoke, by the float stage; a packed int4 filter stays
    ** with the portable kernel */
    if (f.data == NULL || !f.is_constant || f.type == PL_INT4 ||
        (!d->p.hybrid && bias.index >= 0 && (bias.data == NULL || !bias.is_constant)))
        return false;
    dw_plan pl = {0};
    if (!pl_dw_geometry_of(&d->p, &in, &f, &out, MAX_STAGED, &pl.g))
        return false;
    size_t staged_elems = pl.g.staged;
    pl.job.channels = pl.g.channels;
    pl.job.cp = pl.g.cp;
    pl.job.step = pl.g.step;
    pl.f32 = d->type == PL_FLOAT32;
    pl.hybrid = d->p.hybrid;
    int32_t real_taps = f.dims[1] * f.dims[2];
    size_t in_batch = pl_tensor_count(&in) / (size_t)in.dims[0];
    if (pl.hybrid && (real_taps > MAX_HYBRID_TAPS || in_batch > INT32_MAX))
        return false;
    pl.job.taps = pl.f32 ? real_taps : pl_fast_round_up(real_taps, 2);
    pl.offset = (int16_t)d->p.input_offset;
    pl.job.out_offset = d->p.output_offset;
    pl.job.act_min = d->p.act_min;
    pl.job.act_max = d->p.act_max;
    pl.job.act_lo = pl.hybrid ? -FLT_MAX : d->p.f_act_min; /* hybrid: the stage clamps */
    pl.job.act_hi = pl.hybrid ? FLT_MAX : d->p.f_act_max;
    size_t elem = pl.f32 ? sizeof(float) : sizeof(int16_t);
    size_t packed = pl.f32 ? sizeof(float) * (size_t)(pl.job.taps + 1) * (size_t)pl.job.cp
                           : s8_packed_bytes(pl.job.taps, pl.job.cp, k8->group);
    size_t head = pl_fast_align64(sizeof pl), taps = pl_fast_align64(sizeof(size_t) * (size_t)pl.job.taps);
    size_t staged = pl_fast_align64(staged_elems * elem), q = pl.hybrid ? in_batch : 0;
    uint8_t *block = pl_fast_block_new(node, head + taps + pl_fast_align64(packed) + staged + q);
    if (block == NULL)
        return false;
    size_t *tap_at = (size_t *)(block + head);
    plan_taps(&d->p, &f, &pl, real_taps, tap_at);
    pl.job.tap_at = tap_at;
    pl.job.packed = block + head + taps;
    pl.staged = block + head + taps + pl_fast_align64(packed);
    pl.q = pl.hybrid ? (int8_t *)pl.staged + staged : NULL;
    memset(pl.staged, 0, staged_elems * elem);
    float *packed_f = (float *)(block + head + taps);
    bool ok = pl.hybrid ? pack_f32(&pl.job, NULL, f.data, NULL, packed_f)
            : pl.f32    ? pack_f32(&pl.job, f.data, NULL, bias.data, packed_f)
                        : pack_s8(d, &pl.job, real_taps, k8->group, f.data, bias.data,
                                  block + head + taps);
    memcpy(block, &pl, sizeof pl);
    return ok;
}

pl_status pl_fast_depthwise_prepare(pl_context *ctx, pl_node *node)
{
    PL_TRY(pl_fast_reg_of(node)->base->prepare(ctx, node));
    const pl_depthwise_conv_op *d = node->user_data;
    if (!(d->type == PL_INT16 ? pl_fast_depthwise16_plan(ctx, node) : plan(ctx, node)))
        pl_fast_block_drop(node);
    return PL_OK;
}

/* Hybrid: per batch, quantized and staged, then each output row's exact float sums through
** the float stage in place. */
static void invoke_hybrid(const dw_plan *pl, const pl_depthwise_conv_op *d, pl_isa isa,
                          int32_t batches, const float *in, const float *bias, float *out)
{
    const pl_dw_f32 *k = pl_dw_f32_for(isa);
    const pl_hybrid_kernels *h = pl_hybrid_for(isa);
    const size_t in_batch = (size_t)pl->g.in_h * (size_t)pl->g.in_w * (size_t)pl->g.in_c;
    const size_t n = (size_t)pl->job.channels, out_row = (size_t)pl->g.ow * n;
    const size_t row_step = (size_t)pl->g.stride_h * (size_t)pl->g.wp * (size_t)pl->job.cp;
    pl_hybrid_out o = {NULL, d->p.filter_scale, 0.0f, 0, false, bias, d->p.f_act_min,
                       d->p.f_act_max};
    for (int32_t b = 0; b < batches; b++, in += in_batch) {
        h->quantize(in, (int32_t)in_batch, true, 0, (uint8_t *)pl->q, &o.row_scale, &o.zp);
        stage_hybrid(pl, o.zp);
        for (int32_t oy = 0; oy < pl->g.oh; oy++, out += out_row) {
            k->run(&pl->job, (const float *)pl->staged + (size_t)oy * row_step, pl->g.ow, out);
            for (size_t at = 0; at < out_row; at += n)
                h->output_f32(&o, out + at, pl->job.channels, out + at);
        }
    }
}

/* A batch's output rows in tasks of per_task rows (the staged batch is shared, read only). */
enum { DW_ROW_TASKS = 16 };

typedef struct dw_rows {
    const dw_plan *pl;
    pl_isa isa;
    bool fused;
    void *out; /* the batch's first output row */
    int32_t per_task;
} dw_rows;

static size_t dw_row_bytes(const dw_plan *pl)
{
    return (size_t)pl->g.ow * (size_t)pl->job.channels * (pl->f32 ? sizeof(float) : 1);
}

static void dw_run_rows(void *arg, int32_t worker, int32_t task)
{
    (void)worker;
    const dw_rows *j = arg;
    const dw_plan *pl = j->pl;
    const size_t row_step = (size_t)pl->g.stride_h * (size_t)pl->g.wp * (size_t)pl->job.cp;
    int32_t oy = task * j->per_task;
    int32_t end = oy + j->per_task < pl->g.oh ? oy + j->per_task : pl->g.oh;
    uint8_t *o = (uint8_t *)j->out + (size_t)oy * dw_row_bytes(pl);
    if (pl->f32) {
        const pl_dw_f32 *k = pl_dw_f32_for(j->isa);
        void (*run)(const pl_dw_job *, const float *, int32_t, float *) =
            j->fused ? k->run_fused : k->run;
        for (; oy < end; oy++, o += dw_row_bytes(pl))
            run(&pl->job, (const float *)pl->staged + (size_t)oy * row_step, pl->g.ow,
                (float *)o);
    } else {
        const pl_dw_s8 *k = pl_dw_s8_for(j->isa);
        for (; oy < end; oy++, o += dw_row_bytes(pl))
            k->run(&pl->job, (const int16_t *)pl->staged + (size_t)oy * row_step, pl->g.ow,
                   (int8_t *)o);
    }
}

pl_status pl_fast_depthwise_invoke(pl_context *ctx, pl_node *node)
{
    const dw_plan *pl = pl_fast_block(node);
    if (pl == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    if (((const pl_depthwise_conv_op *)node->user_data)->type == PL_INT16)
        return pl_fast_depthwise16_invoke(ctx, node, pl);
    pl_tensor in, bias, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 2), &bias));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    pl_isa isa = pl_fast_isa_of(node);
    if (pl->hybrid) {
        invoke_hybrid(pl, node->user_data, isa, in.dims[0], in.data, bias.data, out.data);
        return PL_OK;
    }
    const size_t in_batch = (size_t)pl->g.in_h * (size_t)pl->g.in_w * (size_t)pl->g.in_c;
    dw_rows job = {pl, isa, ((const pl_depthwise_conv_op *)node->user_data)->p.fused, NULL,
                   (pl->g.oh + DW_ROW_TASKS - 1) / DW_ROW_TASKS};
    const double work = (double)pl->g.oh * pl->g.ow * pl->job.channels * pl->job.taps;
    for (int32_t b = 0; b < in.dims[0]; b++) {
        job.out = (uint8_t *)out.data +
                  (size_t)b * (size_t)pl->g.oh * dw_row_bytes(pl);
        if (pl->f32)
            stage_f32(pl, (const float *)in.data + (size_t)b * in_batch);
        else
            stage_s8(pl, pl_dw_s8_for(isa), (const int8_t *)in.data + (size_t)b * in_batch);
        pl_fast_parallel(node, (pl->g.oh + job.per_task - 1) / job.per_task, work, dw_run_rows,
                         &job);
    }
    return PL_OK;
}
