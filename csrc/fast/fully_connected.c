/* fully_connected.c - FULLY_CONNECTED's fast path: the matrix product with the weights
** packed at prepare. int8 rows are copied (plus 128, padded) into the host block a chunk
** at a time and their int32 sums rescaled in double as LiteRT's reference does; float32
** reads the input rows in place; 16x8 is fully_connected16.c. uint8, hybrid and weights
** with a zero point (or not constant) keep the portable kernel. */
#include <string.h>

#include "fast/fast.h"
#include "fast/gemm.h"
#include "fast/s16.h"
#include "kernels/conv/conv_params.h"
#include "kernels/conv/fully_connected.h"


typedef struct fc_plan {
    int32_t kp;      /* int8: depth rounded up to 4 */
    int32_t rows;    /* int8: batch rows per chunk */
    bool f32;
    void *packed;
    int32_t *fold;   /* int8: (input offset - 128) * the unit's weight sum, mod 2^32 */
    double *scale;   /* int8: the unit's output scale */
    uint8_t *a;      /* int8: rows x kp */
    int32_t *sums;   /* int8: rows x units */
} fc_plan;

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_fully_connected_op *d = node->user_data;
    const pl_fully_connected_params *p = &d->p;
    pl_isa isa = pl_fast_isa_of(node);
    const pl_gemm_s8 *g8 = pl_gemm_s8_for(isa);
    const pl_gemm_f32 *gf = pl_gemm_f32_for(isa);
    pl_tensor f;
    if (d->hybrid || (d->type != PL_INT8 && d->type != PL_FLOAT32) || g8 == NULL ||
        gf == NULL || ctx->get_eval(ctx, pl_node_input(node, 1), &f) != PL_OK ||
        f.data == NULL || !f.is_constant || (d->type == PL_INT8 && p->filter_offset != 0))
        return false;
    fc_plan fp = {0};
    fp.f32 = d->type == PL_FLOAT32;
    fp.kp = fp.f32 ? p->depth : pl_fast_round_up(p->depth, 4);
    fp.rows = pl_fast_chunk_rows((size_t)fp.kp, (size_t)p->batches);
    size_t packed = fp.f32 ? gf->packed_bytes(p->units, p->depth)
                           : g8->packed_bytes(p->units, fp.kp);
    size_t fold = fp.f32 ? 0 : pl_fast_align64(sizeof(int32_t) * (size_t)p->units);
    size_t scale = fp.f32 ? 0 : pl_fast_align64(sizeof(double) * (size_t)p->units);
    size_t a = fp.f32 ? 0 : pl_fast_align64((size_t)fp.rows * (size_t)fp.kp);
    size_t sums = fp.f32 ? 0 : pl_fast_align64(sizeof(int32_t) * (size_t)fp.rows * (size_t)p->units);
    size_t head = pl_fast_align64(sizeof fp);
    uint8_t *block =
        pl_fast_block_new(node, head + pl_fast_align64(packed) + fold + scale + a + sums);
    if (block == NULL)
        return false;
    fp.packed = block + head;
    if (fp.f32) {
        gf->pack(f.data, p->units, p->depth, fp.packed);
    } else {
        const int8_t *w = f.data;
        fp.fold = (int32_t *)(block + head + pl_fast_align64(packed));
        fp.scale = (double *)((uint8_t *)fp.fold + fold);
        fp.a = (uint8_t *)fp.scale + scale;
        fp.sums = (int32_t *)(fp.a + a);
        g8->pack(w, p->units, p->depth, fp.kp, fp.packed);
        for (int32_t u = 0; u < p->units; u++) {
            int64_t sum = 0;
            for (int32_t i = 0; i < p->depth; i++)
                sum += w[(size_t)u * (size_t)p->depth + (size_t)i];
            fp.fold[u] = (int32_t)(uint32_t)(int64_t)((p->input_offset - 128) * sum);
            fp.scale[u] = p->scale[p->per_channel ? u : 0];
        }
    }
    memcpy(block, &fp, sizeof fp);
    return true;
}

pl_status pl_fast_fully_connected_prepare(pl_context *ctx, pl_node *node)
{
    PL_TRY(pl_fast_reg_of(node)->base->prepare(ctx, node));
    const pl_fully_connected_op *d = node->user_data;
    if (!(d->type == PL_INT16 ? pl_fast_fully_connected16_plan(ctx, node) : plan(ctx, node)))
        pl_fast_block_drop(node);
    return PL_OK;
}

static void invoke_s8(const fc_plan *fp, const pl_fully_connected_params *p,
                      const pl_gemm_s8 *g8, const int8_t *in, const int32_t *bias,
                      int8_t *out)
{
    const size_t depth = (size_t)p->depth, units = (size_t)p->units;
    const pl_fc_output o = {p, fp->fold, bias, fp->scale};
    for (int32_t b0 = 0; b0 < p->batches; b0 += fp->rows) {
        int32_t rows = p->batches - b0 < fp->rows ? p->batches - b0 : fp->rows;
        for (int32_t r = 0; r < rows; r++) {
            const int8_t *x = in + (size_t)(b0 + r) * depth;
            uint8_t *row = fp->a + (size_t)r * (size_t)fp->kp;
            for (size_t i = 0; i < depth; i++)
                row[i] = (uint8_t)((uint8_t)x[i] ^ 0x80u);
            memset(row + depth, 0, (size_t)fp->kp - depth);
        }
        g8->run(rows, p->units, fp->kp, fp->a, (size_t)fp->kp, fp->packed, NULL, NULL,
                fp->sums, units);
        for (int32_t r = 0; r < rows; r++)
            g8->fc_output(&o, fp->sums + (size_t)r * units, p->units,
                          out + (size_t)(b0 + r) * units);
    }
}

pl_status pl_fast_fully_connected_invoke(pl_context *ctx, pl_node *node)
{
    const fc_plan *fp = pl_fast_block(node);
    if (fp == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const pl_fully_connected_op *d = node->user_data;
    if (d->type == PL_INT16)
        return pl_fast_fully_connected16_invoke(ctx, node, fp);
    pl_convq_views v;
    PL_TRY(pl_convq_views_get(ctx, node, &v));
    pl_isa isa = pl_fast_isa_of(node);
    if (fp->f32)
        pl_gemm_f32_for(isa)->run(d->p.batches, d->p.units, d->p.depth, v.in.data,
                                  (size_t)d->p.depth, fp->packed, v.bias.data,
                                  d->p.f_act_min, d->p.f_act_max, v.out.data,
                                  (size_t)d->p.units);
    else
        invoke_s8(fp, &d->p, pl_gemm_s8_for(isa), v.in.data, v.bias.data, v.out.data);
    return PL_OK;
}
