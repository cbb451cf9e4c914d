/* depthwise.c - DEPTHWISE_CONV_2D's fast path, int8, float32 and hybrid (see depthwise.h):
** the input staged with its padding written out and its depth multiplier expanded, a band
** of output rows at a time (the band's input rows, into a worker's buffer that stays in the
** cache), then one table run per output row (16x8: depthwise16.c). A band is a task: bands
** split over the threads. Hybrid
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
    int32_t band;       /* output rows per band */
    int32_t span;       /* staged rows one output row reads: (kh - 1) * dilation + 1 */
    size_t band_bytes;  /* between two workers' buffers */
    size_t q_at;        /* hybrid: one batch quantized, in the scratch after the bands */
    /* Float with multiplier 1 and channels a PL_DW_PAD multiple (the input is laid out as
    ** the staged rows): windows whole in the input (output rows oy_lo..oy_hi - 1, columns
    ** ox_lo..ox_hi - 1) are read there by job_in; the others from staged rows, of which
    ** staged rows in [top_full, bottom_full) need only the columns below strip_l and from
    ** strip_r on (padded coordinates). */
    bool in_place;
    pl_dw_job job_in;
    int32_t oy_lo, oy_hi, ox_lo, ox_hi, top_full, bottom_full, strip_l, strip_r;
    int32_t ix_lo; /* the input column of window ox_lo's first tap */
} dw_plan;

/* A band's staged rows (per worker) are kept to about this many bytes (the L2 cache). */
#define BAND_BYTES ((size_t)128 * 1024)

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

/* The least right shift of a depthwise channel the quick output stage takes: with 9 or 25
** products an output, a fallback's mispredicted branch weighs more than in a convolution.
** EfficientNet-B0-96 int8's depthwise nodes (right shifts 7 to 9), sum of node minima: 292 ->
** 312 us taking it from 6 (one run); from 8, 314-324 -> 317-325 us (three runs). The
** AVX-512 rows take their tilted form from a right shift of 1 instead (rescale_avx512.h). */
enum { DW_QUICK_RIGHT = 8 };

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
                    float *quick = (float *)(arrays + 4 * g); /* scale, limit, tilt */
                    pl_fast_s8_quick_of(arrays[g + k], arrays[2 * g + k], arrays[3 * g + k],
                                        DW_QUICK_RIGHT, &quick[k], &quick[g + k]);
                    quick[2 * g + k] = pl_fast_s8_tilt_of(arrays[g + k], arrays[2 * g + k],
                                                          arrays[3 * g + k]);
                    if (c >= n)
                        quick[g + k] = 0.5f; /* padding channels: never the exact form */
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

/* What a band stages from: one batch of the input (int8 or float) or, hybrid, of q with
** its zero point. */
typedef struct dw_source {
    const void *batch;
    const pl_dw_s8 *k8;
    int32_t zp;
} dw_source;

/* The columns of an input row that windows not whole in the input read: staged columns
** below strip_l and from strip_r on (the rest is read in place). */
static void stage_strips(const dw_plan *pl, const float *s, float *o)
{
    const int32_t cols = pl->g.cols, c = pl->g.cp;
    int32_t left = pl->strip_l - pl->g.pad_w, right = pl->strip_r - pl->g.pad_w;
    left = left < 0 ? 0 : left < cols ? left : cols;
    right = right < left ? left : right < cols ? right : cols;
    memcpy(o, s, (size_t)left * (size_t)c * sizeof(float));
    memcpy(o + (size_t)right * (size_t)c, s + (size_t)right * (size_t)c,
           (size_t)(cols - right) * (size_t)c * sizeof(float));
}

/* Staged rows sr0 .. sr0 + count - 1 into buf, in the shared scratch (another node wrote
** there last): an input row is staged between its padding columns, zeroed, a padding row
** zeroed whole. The lanes past the channels (cp) may hold anything: their weights are 0 and
** their outputs are never stored. */
static void stage_band(const dw_plan *pl, const dw_source *src, void *buf, int32_t sr0,
                       int32_t count)
{
    const size_t cin = (size_t)pl->g.in_c, cp = (size_t)pl->job.cp, cols = (size_t)pl->g.cols;
    const size_t row = (size_t)pl->g.in_w * cin, m = (size_t)pl->g.m;
    const size_t elem = pl->f32 ? sizeof(float) : sizeof(int16_t);
    const size_t wp = (size_t)pl->g.wp, left = (size_t)pl->g.pad_w < wp ? (size_t)pl->g.pad_w : wp;
    for (int32_t i = 0; i < count; i++) {
        int32_t iy = sr0 + i - pl->g.pad_h;
        uint8_t *line = (uint8_t *)buf + (size_t)i * wp * cp * elem;
        uint8_t *o = line + left * cp * elem;
        const int32_t pr = sr0 + i; /* padded row */
        if (iy < 0 || iy >= pl->g.rows) {
            memset(line, 0, wp * cp * elem);
            continue;
        }
        memset(line, 0, left * cp * elem);
        memset(o + cols * cp * elem, 0, (wp - left - cols) * cp * elem);
        if (pl->in_place && pr >= pl->top_full && pr < pl->bottom_full) {
            stage_strips(pl, (const float *)src->batch + (size_t)iy * row, (float *)o);
        } else if (pl->hybrid) {
            stage_row_hybrid((const int8_t *)src->batch + (size_t)iy * row, (float *)o, cols,
                             cin, m, cp, src->zp);
        } else if (pl->f32) {
            stage_row_f32((const float *)src->batch + (size_t)iy * row, (float *)o, cols, cin,
                          m, cp);
        } else if (m == 1 && src->k8->stage != NULL) {
            src->k8->stage((const int8_t *)src->batch + (size_t)iy * row, (int16_t *)o, cols,
                           cin, cp, pl->offset);
        } else {
            stage_row_expand_s8((const int8_t *)src->batch + (size_t)iy * row, (int16_t *)o,
                                cols, cin, m, cp, pl->offset);
        }
    }
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

/* Output rows per band: their staged rows (stride apart, span each) in about BAND_BYTES,
** at least one row, and small enough that workers > 1 threads get about four bands each. */
static int32_t band_rows(const pl_dw_geometry *g, int32_t span, size_t row_bytes,
                         int32_t workers)
{
    int64_t fit = (int64_t)(BAND_BYTES / row_bytes) - span;
    int64_t band = fit > 0 ? fit / g->stride_h + 1 : 1;
    if (workers > 1) {
        int64_t share = ((int64_t)g->oh + 4 * workers - 1) / (4 * workers);
        band = band < share ? band : share;
    }
    band = band < g->oh ? band : g->oh;
    return band < 1 ? 1 : (int32_t)band;
}

/* The first output position whose window starts inside the input. */
static int32_t first_whole(int32_t pad, int32_t stride)
{
    return (pad + stride - 1) / stride;
}

/* Output positions from 0 whose windows end inside size: o stride - pad + (taps - 1)
** dilation <= size - 1, at most out. */
static int32_t end_whole(int32_t size, int32_t pad, int32_t taps, int32_t stride,
                         int32_t dilation, int32_t out)
{
    int64_t last = (int64_t)size - 1 + pad - (int64_t)(taps - 1) * dilation;
    int64_t n = last < 0 ? 0 : last / stride + 1;
    return n < out ? (int32_t)n : out;
}

/* dw_plan's in-place fields for float with multiplier 1 and channels a PL_DW_PAD multiple;
** in_place false unless a row has IN_PLACE_W windows whole in the input (fewer: three runs
** a row cost more than the staging saves; kws's 5-point rows, 3 of them whole: 1.9 us
** staged, 2.6 in place). */
enum { IN_PLACE_W = 16 };
static void plan_in_place(const pl_depthwise_conv_params *p, const pl_tensor *f, dw_plan *pl)
{
    const int32_t kh = f->dims[1], kw = f->dims[2];
    pl->in_place = pl->f32 && !pl->hybrid && pl->g.m == 1 && pl->g.in_c == pl->g.cp;
    if (!pl->in_place)
        return;
    pl->oy_lo = first_whole(p->pad_h, p->stride_h);
    pl->oy_hi = end_whole(pl->g.in_h, p->pad_h, kh, p->stride_h, p->dilation_h, pl->g.oh);
    pl->ox_lo = first_whole(p->pad_w, p->stride_w);
    pl->ox_hi = end_whole(pl->g.in_w, p->pad_w, kw, p->stride_w, p->dilation_w, pl->g.ow);
    if (pl->oy_hi <= pl->oy_lo || pl->ox_hi - pl->ox_lo < IN_PLACE_W) {
        pl->in_place = false;
        return;
    }
    pl->top_full = pl->oy_lo > 0 ? (pl->oy_lo - 1) * p->stride_h + (kh - 1) * p->dilation_h + 1
                                 : 0;
    pl->bottom_full = pl->oy_hi < pl->g.oh ? pl->oy_hi * p->stride_h : INT32_MAX;
    pl->strip_l = pl->ox_lo > 0 ? (pl->ox_lo - 1) * p->stride_w + (kw - 1) * p->dilation_w + 1
                                : 0;
    pl->strip_r = pl->ox_hi < pl->g.ow ? pl->ox_hi * p->stride_w : INT32_MAX - pl->g.pad_w;
    pl->ix_lo = pl->ox_lo * p->stride_w - p->pad_w;
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
    size_t head = pl_fast_align64(sizeof pl);
    size_t taps = pl_fast_align64(sizeof(size_t) * (size_t)pl.job.taps);
    const int32_t workers = pl_fast_threads_of(node);
    pl.span = (f.dims[1] - 1) * d->p.dilation_h + 1;
    pl.band = band_rows(&pl.g, pl.span, (size_t)pl.g.wp * (size_t)pl.g.cp * elem, workers);
    const size_t band_elems = (size_t)((pl.band - 1) * pl.g.stride_h + pl.span) *
                              (size_t)pl.g.wp * (size_t)pl.g.cp;
    pl.band_bytes = pl_fast_align64(band_elems * elem);
    pl.q_at = pl.band_bytes * (size_t)workers;
    plan_in_place(&d->p, &f, &pl);
    size_t taps_in = pl.in_place ? taps : 0;
    uint8_t *block = pl_fast_block_new(node, head + taps + pl_fast_align64(packed) + taps_in);
    if (block == NULL)
        return false;
    size_t *tap_at = (size_t *)(block + head);
    plan_taps(&d->p, &f, &pl, real_taps, tap_at);
    pl.job.tap_at = tap_at;
    pl.job.packed = block + head + taps;
    if (pl.in_place) { /* the same job, its taps in the input's rows */
        size_t *tap_in = (size_t *)(block + head + taps + pl_fast_align64(packed));
        for (int32_t t = 0; t < pl.job.taps; t++) {
            int32_t fy = t / f.dims[2], fx = t % f.dims[2];
            tap_in[t] = ((size_t)fy * (size_t)d->p.dilation_h * (size_t)pl.g.in_w +
                         (size_t)fx * (size_t)d->p.dilation_w) * (size_t)pl.job.cp;
        }
        pl.job_in = pl.job;
        pl.job_in.tap_at = tap_in;
    }
    float *packed_f = (float *)(block + head + taps);
    bool ok = pl.hybrid ? pack_f32(&pl.job, NULL, f.data, NULL, packed_f)
            : pl.f32    ? pack_f32(&pl.job, f.data, NULL, bias.data, packed_f)
                        : pack_s8(d, &pl.job, real_taps, k8->group, f.data, bias.data,
                                  block + head + taps);
    memcpy(block, &pl, sizeof pl);
    ok = ok && pl_fast_scratch_reserve(node, pl.q_at + (pl.hybrid ? in_batch : 0));
    if (ok)
        pl_fast_claim_folds(node, 1, 2); /* invoke reads the bias through the fold too */
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

/* One batch's bands: each task stages its band's rows into its worker's buffer, then runs
** the band's output rows (hybrid: each row's sums through the float stage in place). */
typedef struct dw_bands {
    const dw_plan *pl;
    pl_isa isa;
    bool fused;
    dw_source src;
    const pl_hybrid_out *o; /* hybrid */
    void *out;              /* the batch's first output row */
    uint8_t *scratch;       /* the resolver's, each worker's band at band_bytes times its id */
} dw_bands;

static size_t dw_row_bytes(const dw_plan *pl)
{
    return (size_t)pl->g.ow * (size_t)pl->job.channels * (pl->f32 ? sizeof(float) : 1);
}

/* Output row oy, its windows whole in the input read there, the others from its staged
** rows (staged: the row's first staged row). */
static void run_row_in_place(const dw_plan *pl,
                             void (*run)(const pl_dw_job *, const float *, int32_t, float *),
                             const void *batch, int32_t oy, const float *staged, float *y)
{
    const size_t n = (size_t)pl->job.channels, c = (size_t)pl->g.cp;
    const int32_t lo = pl->ox_lo, hi = pl->ox_hi, ow = pl->g.ow;
    if (lo > 0)
        run(&pl->job, staged, lo, y);
    if (hi > lo) {
        size_t iy = (size_t)(oy * pl->g.stride_h - pl->g.pad_h);
        run(&pl->job_in, (const float *)batch + (iy * (size_t)pl->g.in_w + (size_t)pl->ix_lo) * c,
            hi - lo, y + (size_t)lo * n);
    }
    if (ow > hi)
        run(&pl->job, staged + (size_t)hi * pl->job.step, ow - hi, y + (size_t)hi * n);
}

static void dw_run_band(void *arg, int32_t worker, int32_t task)
{
    const dw_bands *j = arg;
    const dw_plan *pl = j->pl;
    const int32_t oy0 = task * pl->band;
    const int32_t rows = pl->g.oh - oy0 < pl->band ? pl->g.oh - oy0 : pl->band;
    void *buf = j->scratch + (size_t)worker * pl->band_bytes;
    stage_band(pl, &j->src, buf, oy0 * pl->g.stride_h,
               (rows - 1) * pl->g.stride_h + pl->span);
    const size_t row_step = (size_t)pl->g.stride_h * (size_t)pl->g.wp * (size_t)pl->job.cp;
    uint8_t *o = (uint8_t *)j->out + (size_t)oy0 * dw_row_bytes(pl);
    if (pl->f32) {
        const pl_dw_f32 *k = pl_dw_f32_for(j->isa);
        void (*run)(const pl_dw_job *, const float *, int32_t, float *) =
            j->fused ? k->run_fused : k->run;
        const pl_hybrid_kernels *h = pl->hybrid ? pl_hybrid_for(j->isa) : NULL;
        const size_t n = (size_t)pl->job.channels, out_row = (size_t)pl->g.ow * n;
        for (int32_t r = 0; r < rows; r++, o += dw_row_bytes(pl)) {
            float *y = (float *)o;
            const float *staged = (const float *)buf + (size_t)r * row_step;
            if (pl->in_place && oy0 + r >= pl->oy_lo && oy0 + r < pl->oy_hi)
                run_row_in_place(pl, run, j->src.batch, oy0 + r, staged, y);
            else
                run(&pl->job, staged, pl->g.ow, y);
            for (size_t at = 0; h != NULL && at < out_row; at += n)
                h->output_f32(j->o, y + at, pl->job.channels, y + at);
        }
    } else {
        const pl_dw_s8 *k = j->src.k8;
        for (int32_t r = 0; r < rows; r++, o += dw_row_bytes(pl))
            k->run(&pl->job, (const int16_t *)buf + (size_t)r * row_step, pl->g.ow,
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
    PL_TRY(pl_fast_eval_constant(ctx, node, pl_node_input(node, 2), &bias));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    const pl_depthwise_conv_op *d = node->user_data;
    const size_t in_batch = (size_t)pl->g.in_h * (size_t)pl->g.in_w * (size_t)pl->g.in_c;
    pl_hybrid_out o = {NULL, d->p.filter_scale, 0.0f, 0, false, bias.data, d->p.f_act_min,
                       d->p.f_act_max};
    /* hybrid: every product and partial sum is an exact integer, so fused or not gives the
    ** same floats: the fused rows where the set has them (one instruction a tap), else not
    ** (SSE4.1 has none, whatever the target) */
    const bool fused = pl->hybrid ? pl_dw_f32_for(pl_fast_isa_of(node))->run_fused != NULL
                                  : d->p.fused;
    dw_bands job = {pl, pl_fast_isa_of(node), fused, {NULL, NULL, 0}, &o, NULL,
                    pl_fast_scratch(node)};
    job.src.k8 = pl_dw_s8_for(job.isa);
    const int32_t bands = (pl->g.oh + pl->band - 1) / pl->band;
    const double work = (double)pl->g.oh * pl->g.ow * pl->job.channels * pl->job.taps;
    for (int32_t b = 0; b < in.dims[0]; b++) {
        job.out = (uint8_t *)out.data + (size_t)b * (size_t)pl->g.oh * dw_row_bytes(pl);
        if (pl->hybrid) { /* the batch quantized whole, as the portable kernel does */
            pl_hybrid_for(job.isa)->quantize((const float *)in.data + (size_t)b * in_batch,
                                             (int32_t)in_batch, true, 0, job.scratch + pl->q_at,
                                             &o.row_scale, &o.zp);
            job.src.batch = job.scratch + pl->q_at;
            job.src.zp = o.zp;
        } else {
            job.src.batch = (const uint8_t *)in.data +
                            (size_t)b * in_batch * (pl->f32 ? sizeof(float) : 1);
        }
        pl_fast_parallel(node, bands, work, dw_run_band, &job);
    }
    return PL_OK;
}
