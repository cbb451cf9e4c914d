/* fully_connected16.c - FULLY_CONNECTED's 16x8 fast path: exact int64 sums from the 16x8
** matrix product with the weights packed at prepare (input rows read in place when the
** depth is a multiple of 4, else copied a chunk at a time into the host block, padded with
** 0), then LiteRT's output stage from the portable kernel (bias, int32 wrap or not, the
** double rescale). Weights with a zero point (or not constant) keep the portable kernel. */
#include <string.h>

#include "fast/gemm.h"
#include "fast/gemm16.h"
#include "fast/s16.h"
#include "kernels/conv/convq_views_fast.h"
#include "kernels/conv/fully_connected_fast.h"

typedef struct fc16_plan {
    int32_t kp;     /* depth rounded up to 4 */
    int32_t rows;   /* batch rows per chunk */
    void *packed;
    int16_t *a;     /* rows x kp when the depth is not kp, else NULL */
    int64_t *sums;  /* rows x units */
} fc16_plan;

bool pl_fast_fully_connected16_plan(pl_context *ctx, const pl_node *node)
{
    const pl_fully_connected_op *d = node->user_data;
    const pl_fully_connected_params *p = &d->p;
    const pl_gemm_s16 *g = pl_gemm_s16_for(pl_fast_isa_of(node));
    pl_tensor f;
    if (d->hybrid || d->type != PL_INT16 || g == NULL || p->filter_offset != 0 ||
        p->depth <= 0 || p->depth > INT32_MAX / 4 || p->units <= 0 ||
        ctx->get_eval(ctx, pl_node_input(node, 1), &f) != PL_OK || f.data == NULL ||
        !f.is_constant)
        return false;
    fc16_plan fp = {0};
    fp.kp = pl_fast_round_up(p->depth, 4);
    fp.rows = pl_fast_chunk_rows((size_t)fp.kp * sizeof(int16_t), (size_t)p->batches);
    bool copy = fp.kp != p->depth;
    size_t packed = pl_fast_align64(g->packed_bytes(p->units, fp.kp));
    size_t a = copy ? pl_fast_align64((size_t)fp.rows * (size_t)fp.kp * sizeof(int16_t)) : 0;
    size_t sums = pl_fast_align64((size_t)fp.rows * (size_t)p->units * sizeof(int64_t));
    size_t head = pl_fast_align64(sizeof fp);
    uint8_t *block = pl_fast_block_new(node, head + packed + a + sums);
    if (block == NULL)
        return false;
    fp.packed = block + head;
    fp.a = copy ? (int16_t *)(block + head + packed) : NULL;
    fp.sums = (int64_t *)(block + head + packed + a);
    g->pack(f.data, p->units, p->depth, fp.kp, fp.packed);
    memcpy(block, &fp, sizeof fp);
    return true;
}

pl_status pl_fast_fully_connected16_invoke(pl_context *ctx, const pl_node *node,
                                           const void *block)
{
    const fc16_plan *fp = block;
    const pl_fully_connected_op *d = node->user_data;
    const pl_fully_connected_params *p = &d->p;
    const pl_gemm_s16 *g = pl_gemm_s16_for(pl_fast_isa_of(node));
    pl_convq_views v;
    PL_TRY(pl_convq_views_get(ctx, node, &v));
    const size_t depth = (size_t)p->depth, units = (size_t)p->units;
    const int16_t *in = v.in.data;
    int16_t *out = v.out.data;
    for (int32_t b0 = 0; b0 < p->batches; b0 += fp->rows) {
        int32_t rows = p->batches - b0 < fp->rows ? p->batches - b0 : fp->rows;
        const int16_t *a = in + (size_t)b0 * depth;
        if (fp->a != NULL) {
            for (int32_t r = 0; r < rows; r++) {
                int16_t *row = fp->a + (size_t)r * (size_t)fp->kp;
                memcpy(row, a + (size_t)r * depth, depth * sizeof(int16_t));
                for (size_t i = depth; i < (size_t)fp->kp; i++)
                    row[i] = 0;
            }
            a = fp->a;
        }
        g->run(rows, p->units, fp->kp, a, (size_t)fp->kp, fp->packed, NULL, NULL, fp->sums,
               units);
        for (int32_t r = 0; r < rows; r++) {
            const int64_t *s = fp->sums + (size_t)r * units;
            int16_t *o = out + (size_t)(b0 + r) * units;
            for (int32_t u = 0; u < p->units; u++)
                o[u] = pl_fully_connected_s16_output(p, s[u], v.bias.data, d->acc64, u);
        }
    }
    return PL_OK;
}
