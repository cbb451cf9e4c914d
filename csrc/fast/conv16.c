/* conv16.c - CONV_2D's 16x8 fast path: the input windows of a chunk of output points
** gathered as int16 rows (im2col; the zero point is 0, so padded taps hold 0) into the host
** block, exact int64 sums from the 16x8 matrix product and TFLite's ConvPerChannel output
** stage on the vectors, as the portable kernel does it: int64 accumulator and the 64-bit
** rescale with an int64 bias (or none), int32 (wrapping) and the 32-bit rescale with an
** int32 one.
** Groups keep the portable kernel, as does a model whose filter or bias is not constant. */
#include <string.h>

#include "fast/gemm.h"
#include "fast/gemm16.h"
#include "fast/s16.h"
#include "kernels/conv/conv_window_fast.h"
#include "kernels/conv/convq_views_fast.h"

typedef struct conv16_plan {
    int32_t k, kp, n; /* taps x input channels, k rounded up to 4, output channels */
    int32_t rows;     /* output points per chunk */
    void *packed;
    int16_t *a;       /* rows x kp gathered taps */
    pl_s16_stage st;
} conv16_plan;

static inline void zero16(int16_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = 0;
}

/* n int16s: short runs (a few taps of few channels) skip the library call. */
static inline void copy16(int16_t *dst, const int16_t *src, size_t n)
{
    if (n > 16) {
        memcpy(dst, src, n * sizeof(int16_t));
        return;
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i];
}

/* The taps of one window row fy in the input: a run when the taps touch (dilation 1). */
static inline void gather_row(const pl_conv_params *p, const pl_conv_window *w,
                              const int32_t *in_dims, const int16_t *in, int32_t fy,
                              int32_t kw, int16_t *row)
{
    const size_t ic = (size_t)in_dims[3];
    if (fy < w->fy0 || fy >= w->fy1 || w->fx0 >= w->fx1) {
        zero16(row, (size_t)kw * ic);
        return;
    }
    size_t iy = (size_t)(w->y0 + fy * p->dilation_h);
    const int16_t *line = in + ((size_t)w->b * (size_t)in_dims[1] + iy) * (size_t)in_dims[2] * ic;
    zero16(row, (size_t)w->fx0 * ic);
    if (p->dilation_w == 1)
        copy16(row + (size_t)w->fx0 * ic, line + (size_t)(w->x0 + w->fx0) * ic,
               (size_t)(w->fx1 - w->fx0) * ic);
    else
        for (int32_t fx = w->fx0; fx < w->fx1; fx++)
            copy16(row + (size_t)fx * ic, line + (size_t)(w->x0 + fx * p->dilation_w) * ic, ic);
    zero16(row + (size_t)w->fx1 * ic, (size_t)(kw - w->fx1) * ic);
}

static void gather(const pl_conv_params *p, const conv16_plan *cp, const int32_t *in_dims,
                   const int16_t *in, const int32_t *f_dims, const int32_t *out_dims,
                   size_t first, int32_t rows)
{
    const size_t span = (size_t)f_dims[2] * (size_t)in_dims[3];
    const size_t line = (size_t)in_dims[2] * (size_t)in_dims[3];
    pl_conv_walk k = pl_conv_walk_from(out_dims, first);
    for (int32_t r = 0; r < rows; r++, pl_conv_walk_next(&k)) {
        pl_conv_window w = pl_conv_window_at(p, in_dims, f_dims, k.b, k.oy, k.ox);
        int16_t *row = cp->a + (size_t)r * (size_t)cp->kp;
        if (w.fy0 == 0 && w.fy1 == f_dims[1] && w.fx0 == 0 && w.fx1 == f_dims[2] &&
            p->dilation_w == 1) { /* the whole window inside: one run per filter row */
            const int16_t *src = in + ((size_t)w.b * (size_t)in_dims[1] + (size_t)w.y0) * line +
                                 (size_t)w.x0 * (size_t)in_dims[3];
            for (int32_t fy = 0; fy < f_dims[1]; fy++, row += span)
                copy16(row, src + (size_t)(fy * p->dilation_h) * line, span);
        } else {
            for (int32_t fy = 0; fy < f_dims[1]; fy++, row += span)
                gather_row(p, &w, in_dims, in, fy, f_dims[2], row);
        }
        zero16(row, (size_t)(cp->kp - cp->k));
    }
}

/* The stage's arrays (lanes entries each, from arrays on): TFLite's 16x8 rescale split for
** vectors as pl_fx_mul_by_qm64 and pl_fx_mul_by_qm compute it, for sums of k products.
** False when a 32-bit multiplier could saturate (never from TFLite's rounding). */
static bool plan_stage(const pl_conv_op *d, const pl_tensor *bias, int32_t n, int32_t k,
                       int32_t lanes, void *arrays, pl_s16_stage *st)
{
    int64_t *b64 = arrays, *reduced = b64 + lanes, *round = reduced + lanes,
            *shift = round + lanes;
    int32_t *mult = (int32_t *)(shift + lanes), *left = mult + lanes, *right = left + lanes;
    memset(arrays, 0, (4 * sizeof(int64_t) + 3 * sizeof(int32_t)) * (size_t)lanes);
    int64_t bias_max = 0;
    for (int32_t c = 0; c < n; c++) {
        if (bias->index >= 0 && bias->type == PL_INT64) {
            memcpy(&b64[c], (const int64_t *)bias->data + c, sizeof(int64_t));
        } else if (bias->index >= 0) {
            int32_t b32;
            memcpy(&b32, (const int32_t *)bias->data + c, sizeof b32);
            b64[c] = b32;
        }
        int64_t mag = b64[c] < -(int64_t)INT32_MAX ? INT64_MAX : b64[c] < 0 ? -b64[c] : b64[c];
        bias_max = mag > bias_max ? mag : bias_max;
        int32_t m = d->p.multiplier[c], sh = d->p.shift[c];
        reduced[c] = m < 0x7FFF0000 ? ((int64_t)m + (1 << 15)) >> 16 : 0x7FFF;
        int64_t total = 15 - (int64_t)sh;
        shift[c] = total < 1 ? 1 : total > 63 ? 63 : total;
        round[c] = (int64_t)(UINT64_C(1) << (shift[c] - 1));
        mult[c] = m;
        left[c] = sh > 0 ? sh : 0;
        right[c] = sh > 0 ? 0 : sh < -31 ? 31 : -sh;
        if (d->bias_type != PL_INT64 && m == INT32_MIN)
            return false;
    }
    *st = (pl_s16_stage){b64, reduced, round, shift, mult, left, right,
                         d->bias_type == PL_INT64, d->p.output_offset, d->p.act_min,
                         d->p.act_max, pl_s16_narrow(k, bias_max)};
    return true;
}

bool pl_fast_conv16_plan(pl_context *ctx, const pl_node *node)
{
    const pl_conv_op *d = node->user_data;
    const pl_gemm_s16 *g = pl_gemm_s16_for(pl_fast_isa_of(node));
    pl_tensor in, f, bias, out;
    if (d->hybrid || d->type != PL_INT16 || g == NULL ||
        ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        ctx->get_eval(ctx, pl_node_input(node, 1), &f) != PL_OK ||
        ctx->get_eval(ctx, pl_node_input(node, 2), &bias) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK)
        return false;
    if (f.data == NULL || !f.is_constant || f.dims[3] != in.dims[3] || f.dims[0] <= 0 ||
        (int64_t)f.dims[1] * f.dims[2] * f.dims[3] <= 0 ||
        (int64_t)f.dims[1] * f.dims[2] * f.dims[3] > INT32_MAX / 4 ||
        (bias.index >= 0 && (bias.data == NULL || !bias.is_constant)))
        return false;
    conv16_plan cp = {0};
    cp.n = f.dims[0];
    cp.k = f.dims[1] * f.dims[2] * f.dims[3];
    if (cp.k <= 0 || cp.n <= 0) /* an empty filter: the portable kernel (the bias alone) */
        return false;
    cp.kp = pl_fast_round_up(cp.k, 4);
    size_t points = pl_tensor_count(&out) / (size_t)cp.n;
    cp.rows = pl_fast_chunk_rows((size_t)cp.kp * sizeof(int16_t), points);
    size_t packed = pl_fast_align64(g->packed_bytes(cp.n, cp.kp));
    size_t a = pl_fast_align64((size_t)cp.rows * (size_t)cp.kp * sizeof(int16_t));
    int32_t lanes = pl_fast_round_up(cp.n, PL_FAST_LANES);
    size_t arrays = pl_fast_align64((4 * sizeof(int64_t) + 3 * sizeof(int32_t)) * (size_t)lanes);
    size_t head = pl_fast_align64(sizeof cp);
    uint8_t *block = pl_fast_block_new(node, head + packed + a + arrays);
    if (block == NULL)
        return false;
    cp.packed = block + head;
    cp.a = (int16_t *)(block + head + packed);
    g->pack(f.data, cp.n, cp.k, cp.kp, cp.packed);
    if (!plan_stage(d, &bias, cp.n, cp.k, lanes, block + head + packed + a, &cp.st))
        return false;
    memcpy(block, &cp, sizeof cp);
    return true;
}

pl_status pl_fast_conv16_invoke(pl_context *ctx, const pl_node *node, const void *block)
{
    const conv16_plan *cp = block;
    const pl_conv_op *d = node->user_data;
    const pl_gemm_s16 *g = pl_gemm_s16_for(pl_fast_isa_of(node));
    pl_convq_views v;
    PL_TRY(pl_convq_views_get(ctx, node, &v));
    size_t points = pl_tensor_count(&v.out) / (size_t)cp->n;
    for (size_t first = 0; first < points; first += (size_t)cp->rows) {
        int32_t rows = (int32_t)(points - first < (size_t)cp->rows ? points - first
                                                                     : (size_t)cp->rows);
        gather(&d->p, cp, v.in.dims, v.in.data, v.f.dims, v.out.dims, first, rows);
        g->run(rows, cp->n, cp->kp, cp->a, (size_t)cp->kp, cp->packed, &cp->st,
               (int16_t *)v.out.data + first * (size_t)cp->n, NULL, (size_t)cp->n);
    }
    return PL_OK;
}
