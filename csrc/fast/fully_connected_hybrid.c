/* fully_connected_hybrid.c - FULLY_CONNECTED's hybrid fast path (float input, int8 weights
** packed at prepare): each batch row quantized as the portable kernel does it (hybrid.h's
** vector quantizer, symmetric or asymmetric) into the host block a chunk of rows at a time,
** the int8 matrix product's int32 sums, then the float stage in the portable kernel's order:
** (bias or 0) + sum * (row scale * weight scale). An input of zeros only keeps the portable
** kernel (which then leaves the bias alone), as do weights that are not a constant. */
#include <string.h>

#include "fast/gemm.h"
#include "fast/hybrid.h"
#include "kernels/conv/fully_connected_fast.h"

typedef struct fc_hybrid_plan {
    int32_t kp;          /* depth rounded up to 4 */
    int32_t rows;        /* batch rows per chunk */
    void *packed;
    int32_t *weight_sum; /* per unit */
    float *scale;        /* per unit: the weight scale (a per-tensor one repeated) */
    float *zeros;        /* units zeros: the bias when there is none */
    /* a, sums, row_scale and zp lie in the resolver's scratch (carve_scratch, at invoke) */
    uint8_t *a;          /* rows x kp: q + 128 (the padding anything: zero weights) */
    int32_t *sums;       /* rows x units */
    float *row_scale;    /* per row of a chunk */
    int32_t *zp;
} fc_hybrid_plan;

#define TAKE(field, bytes)                                                                \
    do {                                                                                  \
        if (base != NULL)                                                                 \
            fp->field = (void *)(base + at);                                              \
        at += pl_fast_align64(bytes);                                                     \
    } while (0)

/* The arrays after the plan's head in the block (each 64-byte aligned); base NULL: only the
** size. */
static size_t carve_block(const pl_fully_connected_params *p, const pl_gemm_s8 *g8,
                          uint8_t *base, fc_hybrid_plan *fp)
{
    const size_t units = (size_t)p->units;
    size_t at = pl_fast_align64(sizeof *fp);
    TAKE(packed, g8->packed_bytes(p->units, fp->kp));
    TAKE(weight_sum, sizeof(int32_t) * units);
    TAKE(scale, sizeof(float) * units);
    TAKE(zeros, sizeof(float) * units);
    return at;
}

/* What an invoke writes, in the resolver's scratch from base (NULL: only the size). */
static size_t carve_scratch(const pl_fully_connected_params *p, uint8_t *base,
                            fc_hybrid_plan *fp)
{
    const size_t units = (size_t)p->units, rows = (size_t)fp->rows;
    size_t at = 0;
    TAKE(a, rows * (size_t)fp->kp);
    TAKE(sums, sizeof(int32_t) * rows * units);
    TAKE(row_scale, sizeof(float) * rows);
    TAKE(zp, sizeof(int32_t) * rows);
    return at;
}
#undef TAKE

bool pl_fast_fully_connected_hybrid_plan(pl_context *ctx, const pl_node *node)
{
    const pl_fully_connected_op *d = node->user_data;
    const pl_fully_connected_params *p = &d->p;
    const pl_gemm_s8 *g8 = pl_gemm_s8_for(pl_fast_isa_of(node));
    pl_tensor f;
    if (!d->hybrid || g8 == NULL || pl_hybrid_for(pl_fast_isa_of(node)) == NULL ||
        p->batches <= 0 || p->units <= 0 || p->depth <= 0 || p->depth > INT32_MAX - 3 ||
        pl_fast_eval_constant(ctx, node, pl_node_input(node, 1), &f) != PL_OK ||
        f.data == NULL || !f.is_constant)
        return false;
    fc_hybrid_plan fp = {0};
    fp.kp = pl_fast_round_up(p->depth, 4);
    fp.rows = pl_fast_chunk_rows((size_t)fp.kp, (size_t)p->batches);
    uint8_t *block = pl_fast_block_new(node, carve_block(p, g8, NULL, &fp));
    if (block == NULL || !pl_fast_scratch_reserve(node, carve_scratch(p, NULL, &fp)))
        return false;
    carve_block(p, g8, block, &fp);
    const int8_t *w = f.data;
    g8->pack(w, p->units, p->depth, fp.kp, fp.packed);
    for (int32_t u = 0; u < p->units; u++) {
        int64_t sum = 0;
        for (int32_t i = 0; i < p->depth; i++)
            sum += w[(size_t)u * (size_t)p->depth + (size_t)i];
        fp.weight_sum[u] = (int32_t)(uint32_t)(uint64_t)sum; /* the kernel's int32 sum */
        fp.scale[u] = p->filter_scale[p->per_channel ? u : 0];
        fp.zeros[u] = 0.0f;
    }
    memcpy(block, &fp, sizeof fp);
    return true;
}

pl_status pl_fast_fully_connected_hybrid_invoke(pl_context *ctx, pl_node *node,
                                                const void *block)
{
    const pl_fully_connected_params *p = &((const pl_fully_connected_op *)node->user_data)->p;
    fc_hybrid_plan here = *(const fc_hybrid_plan *)block;
    carve_scratch(p, pl_fast_scratch(node), &here);
    const fc_hybrid_plan *fp = &here;
    pl_tensor bias; /* the filter is packed */
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 2), &bias));
    const size_t depth = (size_t)p->depth, units = (size_t)p->units;
    const float *in = pl_fast_data(ctx, pl_node_input(node, 0));
    float *out = pl_fast_data(ctx, pl_node_output(node, 0));
    if (pl_hybrid_all_zero(in, (size_t)p->batches * depth))
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const pl_gemm_s8 *g8 = pl_gemm_s8_for(pl_fast_isa_of(node));
    const pl_hybrid_kernels *k = pl_hybrid_for(pl_fast_isa_of(node));
    pl_hybrid_out o = {fp->weight_sum, fp->scale, 0.0f, 0, false,
                       bias.data != NULL ? bias.data : fp->zeros, p->f_act_min,
                       p->f_act_max};
    for (int32_t b0 = 0; b0 < p->batches; b0 += fp->rows) {
        int32_t rows = p->batches - b0 < fp->rows ? p->batches - b0 : fp->rows;
        for (int32_t r = 0; r < rows; r++) /* a row's padding meets zero weights */
            k->quantize(in + (size_t)(b0 + r) * depth, p->depth, p->asymmetric, 0x80,
                        fp->a + (size_t)r * (size_t)fp->kp, &fp->row_scale[r], &fp->zp[r]);
        g8->run(rows, p->units, fp->kp, fp->a, (size_t)fp->kp, fp->packed, NULL, NULL,
                fp->sums, units);
        for (int32_t r = 0; r < rows; r++) {
            o.row_scale = fp->row_scale[r];
            o.zp = fp->zp[r];
            k->output(&o, fp->sums + (size_t)r * units, p->units,
                      out + (size_t)(b0 + r) * units);
        }
    }
    return PL_OK;
}
