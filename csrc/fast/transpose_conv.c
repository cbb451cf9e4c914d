/* transpose_conv.c - TRANSPOSE_CONV's fast path, int8 and float32. The reference scatters
** every input pixel into the outputs its window covers; here each output pixel gathers the
** input pixels that reach it instead, one row per output point, and the convolution's
** matrix product does the rest. The row holds the filter taps in reverse order (last row and
** column first), so the input pixels come in the order the reference adds them (row, column,
** channel ascending): float sums are the reference's. A tap no input pixel reaches holds the
** zero point (int8: contributes 0) or 0.0f. Uint8 and 16x8 keep the portable kernel.
**
** A node whose filter is at least its stride on both axes runs one product per stride
** phase instead: an output point with (oy + pad_h) mod stride_h = ry takes only the filter
** rows of that residue (and columns alike), so each phase's rows hold those taps alone,
** still last first (a 3x3 filter at stride 2: 9 taps a point where the gathered rows held
** 9 for every one of 2.25 reaching it). Only an unreached tap at the border adds 0 * w, as
** before (float: a sum that starts at +0 is never -0, so adding +-0 changes no bit; int8:
** the zero point, with each phase's own output stage, whose weight sums are the phase's).
** Output rows are split over the threads. */
#include <string.h>

#include "fast/conv_gather.h"
#include "fast/fast.h"
#include "fast/gemm.h"
#include "kernels/conv/transpose_conv_fast.h"

/* TRANSPOSE_CONV's inputs (schema order). */
enum { IN_WEIGHTS = 1, IN_INPUT = 2, IN_BIAS = 3 };

/* The stride phases a node may run by (stride_h x stride_w of them). */
enum { MAX_PHASES = 16 };

typedef struct tconv_plan {
    int32_t k, kp, n, rows; /* taps x input channels (k padded for int8), outputs, chunk */
    bool f32;
    uint8_t pad;            /* int8: the zero point + 128 */
    void *packed;
    void *a;
    pl_s8_stage st;
    /* by phases: phase ry * stride_w + rx's taps (int8: padded to phase_kp), packed filter
    ** (an offset from packed) and int8 output stage; each worker's rows in the scratch,
    ** `chunk` points of at most kmax values */
    bool phased;
    int32_t phase_k[MAX_PHASES], phase_kp[MAX_PHASES];
    size_t phase_at[MAX_PHASES];
    pl_s8_stage phase_st[MAX_PHASES];
    int32_t kmax, chunk;
    size_t a_stride;
} tconv_plan;

/* Where the input pixel reaching output coordinate o through filter tap t lies along one
** axis, or -1 when none does (o + pad - t is not a multiple of the stride, or outside). */
static inline int32_t source(int32_t o, int32_t pad, int32_t t, int32_t stride, int32_t size)
{
    int32_t at = o + pad - t;
    if (at < 0 || at % stride != 0 || at / stride >= size)
        return -1;
    return at / stride;
}

/* Row r: the taps of output point pt, last filter row and column first. */
static void gather(const pl_transpose_conv_params *p, const tconv_plan *tp,
                   const int32_t *in_dims, const void *in, const int32_t *f_dims,
                   const int32_t *out_dims, size_t pt, void *row)
{
    const size_t ic = (size_t)in_dims[3], elem = tp->f32 ? sizeof(float) : 1;
    const size_t ow = (size_t)out_dims[2], oh = (size_t)out_dims[1];
    const int32_t ox = (int32_t)(pt % ow), oy = (int32_t)(pt / ow % oh);
    const size_t b = pt / ow / oh;
    uint8_t *at = row;
    for (int32_t fy = f_dims[1] - 1; fy >= 0; fy--) {
        int32_t y = source(oy, p->pad_h, fy, p->stride_h, in_dims[1]);
        for (int32_t fx = f_dims[2] - 1; fx >= 0; fx--, at += ic * elem) {
            int32_t x = y < 0 ? -1 : source(ox, p->pad_w, fx, p->stride_w, in_dims[2]);
            size_t pixel = ((b * (size_t)in_dims[1] + (size_t)y) * (size_t)in_dims[2] +
                            (size_t)x) * ic;
            if (tp->f32) {
                float *dst = (float *)at;
                for (size_t c = 0; c < ic; c++)
                    dst[c] = x < 0 ? 0.0f : ((const float *)in)[pixel + c];
            } else if (x < 0) {
                memset(at, tp->pad, ic);
            } else {
                const int8_t *src = (const int8_t *)in + pixel;
                for (size_t c = 0; c < ic; c++)
                    at[c] = (uint8_t)((uint8_t)src[c] ^ 0x80u);
            }
        }
    }
    if (!tp->f32)
        memset(at, 0, (size_t)(tp->kp - tp->k));
}

/* The filter [out][fy][fx][in] with its taps reversed, as the rows gather them. */
static void reverse_taps(const uint8_t *f, const int32_t *f_dims, size_t elem, uint8_t *out)
{
    const size_t taps = (size_t)f_dims[1] * (size_t)f_dims[2];
    const size_t run = (size_t)f_dims[3] * elem;
    for (size_t o = 0; o < (size_t)f_dims[0]; o++)
        for (size_t t = 0; t < taps; t++)
            memcpy(out + (o * taps + (taps - 1 - t)) * run, f + (o * taps + t) * run, run);
}

/* Filter taps of residue r (mod stride) along an axis of `size` taps. */
static int32_t phase_taps(int32_t size, int32_t stride, int32_t r)
{
    return r < size ? (size - 1 - r) / stride + 1 : 0;
}

/* The first tap (counting down from the last) of residue r along an axis. */
static int32_t last_tap(int32_t size, int32_t stride, int32_t r)
{
    return r + (phase_taps(size, stride, r) - 1) * stride;
}

/* Phase (ry, rx)'s filter [out][taps of ry, last first][taps of rx, last first][in] of
** elem-byte values into w. */
static void phase_filter(const uint8_t *f, const int32_t *f_dims, size_t elem, int32_t sh,
                         int32_t sw, int32_t ry, int32_t rx, uint8_t *w)
{
    const size_t run = (size_t)f_dims[3] * elem;
    for (int32_t o = 0; o < f_dims[0]; o++)
        for (int32_t fy = last_tap(f_dims[1], sh, ry); fy >= 0; fy -= sh)
            for (int32_t fx = last_tap(f_dims[2], sw, rx); fx >= 0; fx -= sw, w += run)
                memcpy(w, f + (((size_t)o * (size_t)f_dims[1] + (size_t)fy) *
                                   (size_t)f_dims[2] + (size_t)fx) * run,
                       run);
}

/* The int32 stage arrays each int8 phase keeps, for n output channels. */
static size_t stage_bytes(int32_t n)
{
    return pl_fast_align64(sizeof(int32_t) * PL_S8_STAGE_ARRAYS *
                           (size_t)pl_fast_round_up(n, PL_FAST_LANES));
}

/* Sets up the phases of a plan whose filter is at least its stride on both axes (else false:
** the gathered rows): each phase's filter packed after `*bytes` in block (int8: then its
** stage's arrays), block NULL: sizes only. w: room for a phase's filter. q: int8's rescale. */
static bool plan_phases(const pl_transpose_conv_params *p, const int32_t *f_dims,
                        const void *f, const pl_gemm_f32 *gf, const pl_gemm_s8 *g8,
                        const pl_s8_requant *q, const int32_t *bias, uint8_t *block,
                        uint8_t *w, tconv_plan *tp, size_t *bytes)
{
    const int32_t sh = p->stride_h, sw = p->stride_w;
    const size_t elem = tp->f32 ? sizeof(float) : 1;
    if (sh < 1 || sw < 1 || sh * sw > MAX_PHASES || f_dims[1] < sh || f_dims[2] < sw)
        return false;
    tp->kmax = 0;
    for (int32_t ry = 0; ry < sh; ry++)
        for (int32_t rx = 0; rx < sw; rx++) {
            const int32_t ph = ry * sw + rx;
            const int32_t k = phase_taps(f_dims[1], sh, ry) * phase_taps(f_dims[2], sw, rx) *
                              f_dims[3];
            const int32_t kp = tp->f32 ? k : pl_fast_round_up(k, 4);
            tp->phase_k[ph] = k;
            tp->phase_kp[ph] = kp;
            tp->kmax = kp > tp->kmax ? kp : tp->kmax;
            tp->phase_at[ph] = *bytes;
            const size_t packed = tp->f32 ? gf->packed_bytes(tp->n, k) : g8->packed_bytes(tp->n, kp);
            if (block != NULL) {
                phase_filter(f, f_dims, elem, sh, sw, ry, rx, w);
                if (tp->f32) {
                    gf->pack((const float *)(const void *)w, tp->n, k, block + *bytes);
                } else {
                    g8->pack((const int8_t *)w, tp->n, k, kp, block + *bytes);
                    int32_t *arrays = (int32_t *)(block + *bytes + pl_fast_align64(packed));
                    if (!pl_fast_s8_stage_init(q, (const int8_t *)w, tp->n, k, bias, arrays,
                                               pl_fast_round_up(tp->n, PL_FAST_LANES),
                                               &tp->phase_st[ph]))
                        return false;
                }
            }
            *bytes += pl_fast_align64(packed) + (tp->f32 ? 0 : stage_bytes(tp->n));
        }
    return true;
}

/* A plan by phases (plan_phases sized them: `bytes` with the head). */
static bool plan_phased(const pl_node *node, const pl_transpose_conv_op *d,
                        const pl_tensor *f, const pl_tensor *bias, const pl_tensor *out,
                        const pl_gemm_f32 *gf, const pl_gemm_s8 *g8, tconv_plan *tp,
                        size_t bytes)
{
    const pl_transpose_conv_params *p = &d->p;
    const size_t elem = tp->f32 ? sizeof(float) : 1;
    if (tp->f32 && !pl_fast_all_finite(f->data, (size_t)tp->n * (size_t)tp->k))
        return false;
    uint8_t *block = pl_fast_block_new(node, bytes + pl_fast_align64(elem * (size_t)tp->n *
                                                                     (size_t)tp->k));
    if (block == NULL)
        return false;
    size_t at = pl_fast_align64(sizeof *tp);
    tp->phased = true;
    tp->packed = block;
    const pl_s8_requant q = {p->input_offset, p->multiplier, p->shift, p->output_offset,
                             p->act_min, p->act_max};
    if (!plan_phases(p, f->dims, f->data, gf, g8, &q, tp->f32 ? NULL : bias->data, block,
                     block + bytes, tp, &at))
        return false;
    const size_t row = (size_t)tp->kmax * elem;
    const size_t points = ((size_t)out->dims[2] + (size_t)p->stride_w - 1) / (size_t)p->stride_w;
    tp->chunk = pl_fast_chunk_rows(row, points);
    tp->a_stride = pl_fast_align64((size_t)tp->chunk * row);
    memcpy(block, tp, sizeof *tp);
    if (!pl_fast_scratch_reserve(node, tp->a_stride * (size_t)pl_fast_threads_of(node)))
        return false;
    pl_fast_fold_claim(node, pl_node_input(node, IN_WEIGHTS));
    pl_fast_fold_claim(node, pl_node_input(node, IN_BIAS)); /* invoke reads it through the fold */
    return true;
}

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_transpose_conv_op *d = node->user_data;
    pl_isa isa = pl_fast_isa_of(node);
    const pl_gemm_s8 *g8 = pl_gemm_s8_for(isa);
    const pl_gemm_f32 *gf = pl_gemm_f32_for(isa);
    pl_tensor in, f, bias, out;
    if ((d->type != PL_INT8 && d->type != PL_FLOAT32) || d->hybrid || g8 == NULL || gf == NULL ||
        ctx->get_eval(ctx, pl_node_input(node, IN_INPUT), &in) != PL_OK ||
        pl_fast_eval_constant(ctx, node, pl_node_input(node, IN_WEIGHTS), &f) != PL_OK ||
        pl_fast_eval_constant(ctx, node, pl_node_input(node, IN_BIAS), &bias) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK)
        return false;
    if (d->type == PL_FLOAT32 && pl_gemm_f32_run(gf, d->fused) == NULL) /* no FMA */
        return false;
    if (f.data == NULL || !f.is_constant || f.ndims != 4 || in.ndims != 4 ||
        f.dims[3] != in.dims[3] || f.dims[0] <= 0 ||
        (bias.index >= 0 && (bias.data == NULL || !bias.is_constant)))
        return false;
    tconv_plan tp = {0};
    tp.f32 = d->type == PL_FLOAT32;
    tp.n = f.dims[0];
    tp.k = f.dims[1] * f.dims[2] * f.dims[3];
    tp.kp = tp.f32 ? tp.k : pl_fast_round_up(tp.k, 4);
    tp.pad = (uint8_t)(128 - d->p.input_offset);
    size_t elem = tp.f32 ? sizeof(float) : 1;
    size_t points = pl_tensor_count(&out) / (size_t)tp.n;
    size_t phases = pl_fast_align64(sizeof tp);
    if (f.dims[3] > 0 && out.ndims == 4 &&
        plan_phases(&d->p, f.dims, NULL, gf, g8, NULL, NULL, NULL, NULL, &tp, &phases))
        return plan_phased(node, d, &f, &bias, &out, gf, g8, &tp, phases);
    tp.rows = pl_fast_chunk_rows((size_t)tp.kp * elem, points);
    int32_t lanes = pl_fast_round_up(tp.n, PL_FAST_LANES);
    size_t packed = tp.f32 ? gf->packed_bytes(tp.n, tp.k) : g8->packed_bytes(tp.n, tp.kp);
    size_t arrays =
        tp.f32 ? 0 : pl_fast_align64(sizeof(int32_t) * PL_S8_STAGE_ARRAYS * (size_t)lanes);
    size_t gathered = pl_fast_align64((size_t)tp.rows * (size_t)tp.kp * elem);
    size_t reversed = pl_fast_align64((size_t)tp.n * (size_t)tp.k * elem);
    size_t head = pl_fast_align64(sizeof tp);
    uint8_t *block = pl_fast_block_new(node, head + pl_fast_align64(packed) + arrays + gathered +
                                                 reversed);
    if (block == NULL)
        return false;
    tp.packed = block + head;
    tp.a = block + head + pl_fast_align64(packed) + arrays;
    uint8_t *w = (uint8_t *)tp.a + gathered; /* the reversed filter, read once here */
    reverse_taps(f.data, f.dims, elem, w);
    if (tp.f32) {
        const float *wf = (const float *)(const void *)w;
        if (!pl_fast_all_finite(wf, (size_t)tp.n * (size_t)tp.k))
            return false;
        gf->pack(wf, tp.n, tp.k, tp.packed);
    } else {
        g8->pack((const int8_t *)w, tp.n, tp.k, tp.kp, tp.packed);
        const pl_s8_requant q = {d->p.input_offset, d->p.multiplier, d->p.shift,
                                 d->p.output_offset, d->p.act_min, d->p.act_max};
        if (!pl_fast_s8_stage_init(&q, (const int8_t *)w, tp.n, tp.k, bias.data,
                                   (int32_t *)(block + head + pl_fast_align64(packed)), lanes, &tp.st))
            return false;
    }
    memcpy(block, &tp, sizeof tp);
    /* invoke reads them through the fold */
    pl_fast_fold_claim(node, pl_node_input(node, IN_WEIGHTS));
    pl_fast_fold_claim(node, pl_node_input(node, IN_BIAS));
    return true;
}

pl_status pl_fast_transpose_conv_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

/* a mod m, in [0, m) */
static int32_t residue(int32_t a, int32_t m)
{
    return (a % m + m) % m;
}

typedef struct phase_job {
    const tconv_plan *tp;
    const pl_transpose_conv_params *p;
    pl_gemm_f32_fn *run;    /* float */
    const pl_gemm_s8 *g8;   /* int8 */
    const uint8_t *in;
    const float *bias;      /* float */
    uint8_t *out;
    const int32_t *in_dims, *f_dims, *out_dims;
    uint8_t *scratch;
} phase_job;

/* Output point (oy, ox)'s taps of phase (ry, rx), last first, into dst: float values, or
** int8 ones + 128 (the zero point's where no input pixel reaches, zeros up to kp). */
static void gather_phase(const phase_job *j, size_t b, int32_t oy, int32_t ox, int32_t ry,
                         int32_t rx, int32_t k, int32_t kp, uint8_t *dst)
{
    const tconv_plan *tp = j->tp;
    const pl_transpose_conv_params *p = j->p;
    const int32_t *in = j->in_dims, *f = j->f_dims;
    const size_t c = (size_t)f[3], elem = tp->f32 ? sizeof(float) : 1, run = c * elem;
    for (int32_t fy = last_tap(f[1], p->stride_h, ry); fy >= 0; fy -= p->stride_h) {
        const int32_t ny = oy + p->pad_h - fy, iy = ny / p->stride_h; /* ny: a multiple */
        const bool row = ny >= 0 && iy < in[1];
        for (int32_t fx = last_tap(f[2], p->stride_w, rx); fx >= 0; fx -= p->stride_w, dst += run) {
            const int32_t nx = ox + p->pad_w - fx, ix = nx / p->stride_w;
            if (!(row && nx >= 0 && ix < in[2])) {
                memset(dst, tp->f32 ? 0 : tp->pad, run);
                continue;
            }
            const uint8_t *src = j->in + ((b * (size_t)in[1] + (size_t)iy) * (size_t)in[2] +
                                          (size_t)ix) * run;
            if (tp->f32)
                memcpy(dst, src, run);
            else
                pl_fast_copy_flipped(dst, (const int8_t *)src, c);
        }
    }
    if (!tp->f32)
        memset(dst, 0, (size_t)(kp - k));
}

/* One output row (task: batch x height): each phase's points of the row, `chunk` at a time,
** gathered and multiplied, written every stride_w points. */
static void phase_row(void *arg, int32_t worker, int32_t task)
{
    const phase_job *j = arg;
    const tconv_plan *tp = j->tp;
    const pl_transpose_conv_params *p = j->p;
    const int32_t oh = j->out_dims[1], ow = j->out_dims[2], sw = p->stride_w;
    const size_t b = (size_t)(task / oh), elem = tp->f32 ? sizeof(float) : 1;
    const int32_t oy = task % oh, ry = residue(oy + p->pad_h, p->stride_h);
    uint8_t *a = j->scratch + (size_t)worker * tp->a_stride;
    for (int32_t rx = 0; rx < sw; rx++) {
        const int32_t ph = ry * sw + rx, k = tp->phase_k[ph], kp = tp->phase_kp[ph];
        const uint8_t *packed = (const uint8_t *)tp->packed + tp->phase_at[ph];
        for (int32_t first = residue(rx - p->pad_w, sw); first < ow; first += tp->chunk * sw) {
            int32_t rows = (ow - first + sw - 1) / sw;
            rows = rows < tp->chunk ? rows : tp->chunk;
            for (int32_t r = 0; r < rows; r++)
                gather_phase(j, b, oy, first + r * sw, ry, rx, k, kp,
                             a + (size_t)r * (size_t)kp * elem);
            const size_t o = ((size_t)task * (size_t)ow + (size_t)first) * (size_t)tp->n;
            if (tp->f32)
                j->run(rows, tp->n, k, (const float *)(const void *)a, (size_t)k,
                       packed, j->bias, p->f_act_min, p->f_act_max,
                       (float *)(void *)j->out + o, (size_t)sw * (size_t)tp->n);
            else
                j->g8->run(rows, tp->n, kp, a, (size_t)kp, packed, &tp->phase_st[ph],
                           (int8_t *)j->out + o, NULL, (size_t)sw * (size_t)tp->n);
        }
    }
}

pl_status pl_fast_transpose_conv_invoke(pl_context *ctx, pl_node *node)
{
    const tconv_plan *tp = pl_fast_block(node);
    if (tp == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const pl_transpose_conv_op *d = node->user_data;
    pl_tensor in, f, bias, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, IN_INPUT), &in));
    PL_TRY(pl_fast_eval_constant(ctx, node, pl_node_input(node, IN_WEIGHTS), &f));
    PL_TRY(pl_fast_eval_constant(ctx, node, pl_node_input(node, IN_BIAS), &bias));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    pl_isa isa = pl_fast_isa_of(node);
    if (tp->phased) {
        phase_job j = {tp, &d->p, tp->f32 ? pl_gemm_f32_run(pl_gemm_f32_for(isa), d->fused)
                                          : NULL,
                       pl_gemm_s8_for(isa), in.data, bias.data, out.data, in.dims, f.dims,
                       out.dims, pl_fast_scratch(node)};
        const size_t points = pl_tensor_count(&out) / (size_t)tp->n;
        pl_fast_parallel(node, out.dims[0] * out.dims[1], (double)points * tp->n * tp->kmax,
                         phase_row, &j);
        return PL_OK;
    }
    const size_t elem = tp->f32 ? sizeof(float) : 1, row_bytes = (size_t)tp->kp * elem;
    size_t points = pl_tensor_count(&out) / (size_t)tp->n;
    for (size_t first = 0; first < points; first += (size_t)tp->rows) {
        int32_t rows = (int32_t)(points - first < (size_t)tp->rows ? points - first
                                                                     : (size_t)tp->rows);
        for (int32_t r = 0; r < rows; r++)
            gather(&d->p, tp, in.dims, in.data, f.dims, out.dims, first + (size_t)r,
                   (uint8_t *)tp->a + (size_t)r * row_bytes);
        size_t o = first * (size_t)tp->n;
        if (tp->f32)
            pl_gemm_f32_run(pl_gemm_f32_for(isa), d->fused)(
                rows, tp->n, tp->k, tp->a, (size_t)tp->k, tp->packed, bias.data,
                d->p.f_act_min, d->p.f_act_max, (float *)out.data + o, (size_t)tp->n);
        else
            pl_gemm_s8_for(isa)->run(rows, tp->n, tp->kp, tp->a, (size_t)tp->kp, tp->packed,
                                     &tp->st, (int8_t *)out.data + o, NULL, (size_t)tp->n);
    }
    return PL_OK;
}
