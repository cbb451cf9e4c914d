/* transpose_conv.c - TRANSPOSE_CONV's fast path, int8 and float32. The reference scatters
** every input pixel into the outputs its window covers; here each output pixel gathers the
** input pixels that reach it instead, one row per output point, and the convolution's
** matrix product does the rest. The row holds the filter taps in reverse order (last row and
** column first), so the input pixels come in the order the reference adds them (row, column,
** channel ascending): float sums are the reference's. A tap no input pixel reaches holds the
** zero point (int8: contributes 0) or 0.0f. Uint8 and 16x8 keep the portable kernel. */
#include <string.h>

#include "fast/fast.h"
#include "fast/gemm.h"
#include "kernels/conv/transpose_conv_fast.h"

/* TRANSPOSE_CONV's inputs (schema order). */
enum { IN_WEIGHTS = 1, IN_INPUT = 2, IN_BIAS = 3 };

typedef struct tconv_plan {
    int32_t k, kp, n, rows; /* taps x input channels (k padded for int8), outputs, chunk */
    bool f32;
    uint8_t pad;            /* int8: the zero point + 128 */
    void *packed;
    void *a;
    pl_s8_stage st;
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
        for (size_t i = 0; i < (size_t)tp.n * (size_t)tp.k; i++)
            if (!(wf[i] - wf[i] == 0.0f)) /* inf or NaN: 0 * w at an unreached tap is not 0 */
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
