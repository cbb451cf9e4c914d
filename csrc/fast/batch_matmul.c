/* batch_matmul.c - BATCH_MATMUL's fast path, int8 and float32: per batch, the right-hand
** matrix (an activation as often as a constant) is packed into the host block at invoke (a
** float one straight from its rows by depth) and multiplied with the shared matrix
** products. int8 folds both zero points exactly (row and column sums, integer sums being
** exact in any order); float lanes sum depth in the reference's order. int16 keeps the
** portable kernel. */
#include <math.h>
#include <string.h>

#include "fast/fast.h"
#include "fast/gemm.h"
#include "fast/isa_pick.h"
#include "kernels/common/arith_fast.h"
#include "kernels/conv/batch_matmul_fast.h"

/* The host block: this header, then each worker's buffers (stride bytes apart; the pointers
** below are worker 0's). Batches are independent: they split over the threads. */
typedef struct bmm_plan {
    int32_t kp;                /* int8: depth rounded up to 4 */
    size_t stride;
    void *packed;              /* one batch's right-hand matrix, packed */
    void *rhs_t;               /* int8: cols x depth, the right-hand matrix transposed, or NULL */
    void *lhs;                 /* rows x kp (int8, plus 128) or rows x depth (float, adj_x) */
    int32_t *col_sums, *row_sums, *raw; /* int8: the stage's column and row terms, the sums */
} bmm_plan;

/* Carves n bytes from *at. */
static void *take(uint8_t **at, size_t n)
{
    void *p = *at;
    *at += pl_fast_align64(n);
    return p;
}

static bool plan(pl_context *ctx, const pl_node *node)
{
    (void)ctx;
    const pl_batch_matmul_op *d = node->user_data;
    const pl_batch_matmul_params *p = &d->p;
    pl_isa isa = pl_fast_isa_of(node);
    const pl_gemm_s8 *g8 = pl_gemm_s8_for(isa);
    const pl_gemm_f32 *gf = pl_gemm_f32_for(isa);
    bool f32 = d->type == PL_FLOAT32;
    if ((!f32 && d->type != PL_INT8) || g8 == NULL || gf == NULL || p->multiplier == INT32_MIN ||
        (f32 && pl_gemm_f32_run(gf, p->fused) == NULL)) /* no FMA */
        return false;
    size_t rows = (size_t)p->rows, cols = (size_t)p->cols, depth = (size_t)p->depth;
    size_t elem = f32 ? sizeof(float) : 1, kp = f32 ? depth : (depth + 3) / 4 * 4;
    const size_t batches = (size_t)p->batch[0] * (size_t)p->batch[1] * (size_t)p->batch[2];
    if (rows * cols > ((size_t)1 << 24) || (rows + cols) * kp > ((size_t)1 << 26) ||
        batches > INT32_MAX)
        return false; /* beyond what a host block should hold: the portable kernel runs it */
    size_t packed = f32 ? gf->packed_bytes(p->cols, p->depth)
                        : g8->packed_bytes(p->cols, (int32_t)kp);
    size_t rhs_t = p->adj_y || f32 ? 0 : cols * depth * elem; /* float packs by depth */
    size_t lhs = f32 ? (p->adj_x ? rows * depth * elem : 0) : rows * kp;
    size_t sums = f32 ? 0 : pl_fast_align64(cols * 4) + pl_fast_align64(rows * 4) + pl_fast_align64(rows * cols * 4);
    size_t head = pl_fast_align64(sizeof(bmm_plan));
    size_t stride = pl_fast_align64(packed) + pl_fast_align64(rhs_t) + pl_fast_align64(lhs) + sums;
    uint8_t *block = pl_fast_block_new(node, head + stride * (size_t)pl_fast_threads_of(node));
    if (block == NULL)
        return false;
    bmm_plan bp = {0};
    uint8_t *at = block + head;
    bp.kp = (int32_t)kp;
    bp.stride = stride;
    bp.packed = take(&at, packed);
    bp.rhs_t = rhs_t ? take(&at, rhs_t) : NULL;
    bp.lhs = lhs ? take(&at, lhs) : NULL;
    if (!f32) {
        bp.col_sums = take(&at, cols * 4);
        bp.row_sums = take(&at, rows * 4);
        bp.raw = take(&at, rows * cols * 4);
    }
    memcpy(block, &bp, sizeof bp);
    return true;
}

/* Worker w's buffers. */
static bmm_plan worker_plan(const bmm_plan *bp, int32_t w)
{
    bmm_plan out = *bp;
    const size_t shift = (size_t)w * bp->stride;
    out.packed = (uint8_t *)bp->packed + shift;
    out.rhs_t = bp->rhs_t != NULL ? (uint8_t *)bp->rhs_t + shift : NULL;
    out.lhs = bp->lhs != NULL ? (uint8_t *)bp->lhs + shift : NULL;
    if (bp->raw != NULL) {
        out.col_sums = (int32_t *)(void *)((uint8_t *)bp->col_sums + shift);
        out.row_sums = (int32_t *)(void *)((uint8_t *)bp->row_sums + shift);
        out.raw = (int32_t *)(void *)((uint8_t *)bp->raw + shift);
    }
    return out;
}

pl_status pl_fast_batch_matmul_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

/* The right-hand matrix as rows of depth per column (w[n][k] = rhs(k, n)). */
static const void *rhs_rows(const bmm_plan *bp, const pl_batch_matmul_params *p,
                            const uint8_t *rhs, size_t elem)
{
    if (p->adj_y)
        return rhs;
    uint8_t *t = bp->rhs_t;
    for (int32_t k = 0; k < p->depth; k++)
        for (int32_t n = 0; n < p->cols; n++)
            memcpy(t + ((size_t)n * (size_t)p->depth + (size_t)k) * elem,
                   rhs + ((size_t)k * (size_t)p->cols + (size_t)n) * elem, elem);
    return t;
}

static void batch_f32(const bmm_plan *bp, const pl_batch_matmul_params *p,
                      const pl_gemm_f32 *gf, const float *lhs, const float *rhs, float *out)
{
    if (p->adj_y)
        gf->pack(rhs, p->cols, p->depth, bp->packed);
    else
        gf->pack_by_depth(rhs, p->cols, p->depth, (size_t)p->cols, bp->packed);
    const float *a = lhs;
    if (p->adj_x) {
        float *t = bp->lhs;
        for (int32_t k = 0; k < p->depth; k++)
            for (int32_t m = 0; m < p->rows; m++)
                t[(size_t)m * (size_t)p->depth + (size_t)k] = lhs[(size_t)k * (size_t)p->rows + (size_t)m];
        a = t;
    }
    /* no bias, no clamp: +-infinity bounds pass every value, NaN included */
    pl_gemm_f32_run(gf, p->fused)(p->rows, p->cols, p->depth, a, (size_t)p->depth, bp->packed,
                                  NULL, -INFINITY, INFINITY, out, (size_t)p->cols);
}

/* The portable stage by rows, for the sets without a vector one. */
static void requant_rows_c(const pl_fast_requant *q, const int32_t *raw, const int32_t *col,
                           const int32_t *row, int32_t rows, int32_t cols, int8_t *out)
{
    for (int32_t m = 0; m < rows; m++)
        for (int32_t n = 0; n < cols; n++) {
            size_t o = (size_t)m * (size_t)cols + (size_t)n;
            uint32_t t = (uint32_t)raw[o] + (uint32_t)col[n] + (uint32_t)row[m];
            int32_t v = pl_rescale_qm((int32_t)t, q->multiplier, q->shift) + q->offset;
            out[o] = (int8_t)(v < q->act_min ? q->act_min : v > q->act_max ? q->act_max : v);
        }
}

typedef void requant_rows_fn(const pl_fast_requant *q, const int32_t *raw, const int32_t *col,
                             const int32_t *row, int32_t rows, int32_t cols, int8_t *out);

static requant_rows_fn *requant_rows_for(pl_isa isa)
{
    PL_FAST_PICK(isa, pl_fast_requant_rows_avx2, pl_fast_requant_rows_avx2, requant_rows_c,
                 requant_rows_c, requant_rows_c);
    return requant_rows_c;
}

/* sum (r + ro)(l + lo) = raw + (lo - 128) colsum + ro rowsum + depth lo ro, with raw the
** product of l + 128 and r: every term mod 2^32, as the reference's int32 sum. The column
** terms (with the constant) and the row terms are added in the stage. */
static void batch_s8(const bmm_plan *bp, const pl_batch_matmul_params *p, pl_isa isa,
                     const int8_t *lhs, const int8_t *rhs, int8_t *out)
{
    const pl_gemm_s8 *g8 = pl_gemm_s8_for(isa);
    const size_t depth = (size_t)p->depth, kp = (size_t)bp->kp;
    const uint32_t lo = (uint32_t)p->lhs_offset, ro = (uint32_t)p->rhs_offset;
    const uint32_t both = (uint32_t)p->depth * lo * ro;
    const int8_t *w = rhs_rows(bp, p, (const uint8_t *)rhs, 1);
    g8->pack(w, p->cols, p->depth, bp->kp, bp->packed);
    for (int32_t n = 0; n < p->cols; n++) { /* plain loops: the compiler's vectors */
        uint32_t s = 0;
        for (size_t k = 0; k < depth; k++)
            s += (uint32_t)(int32_t)w[(size_t)n * depth + k];
        bp->col_sums[n] = (int32_t)((lo - 128u) * s + both);
    }
    uint8_t *a = bp->lhs;
    for (int32_t m = 0; m < p->rows; m++) {
        uint8_t *am = a + (size_t)m * kp;
        uint32_t s = 0;
        if (p->adj_x) {
            for (size_t k = 0; k < depth; k++)
                am[k] = (uint8_t)lhs[k * (size_t)p->rows + (size_t)m];
        } else {
            memcpy(am, lhs + (size_t)m * depth, depth);
        }
        for (size_t k = 0; k < depth; k++) {
            s += (uint32_t)(int32_t)(int8_t)am[k];
            am[k] ^= 0x80u;
        }
        memset(am + depth, 0, kp - depth);
        bp->row_sums[m] = (int32_t)(ro * s);
    }
    g8->run(p->rows, p->cols, bp->kp, a, kp, bp->packed, NULL, NULL, bp->raw, (size_t)p->cols);
    const pl_fast_requant q = {p->multiplier, p->shift, p->output_offset, p->act_min, p->act_max};
    requant_rows_for(isa)(&q, bp->raw, bp->col_sums, bp->row_sums, p->rows, p->cols, out);
}

/* Multiply-adds below which the batches stay on the caller: split, a keyword transformer's
** four 50x16x50 heads (160K) made its two-thread run slower (151.5 -> 157 us; 19.7 -> 23.4 us
** for the four nodes when this 2-vCPU host hands work over slowly), where a 128-token,
** 8-head layer's (8M) gains (175 -> 89 us). */
#define BMM_SPLIT_WORK 1048576.0

typedef struct bmm_job {
    const bmm_plan *bp;
    const pl_batch_matmul_params *p;
    pl_isa isa;
    bool f32;
    const uint8_t *l, *r;
    uint8_t *out;
} bmm_job;

/* Batch `task` (in output order) with the worker's buffers. */
static void bmm_batch(void *arg, int32_t worker, int32_t task)
{
    const bmm_job *j = arg;
    const pl_batch_matmul_params *p = j->p;
    const bmm_plan wp = worker_plan(j->bp, worker);
    const size_t t = (size_t)task, n2 = (size_t)p->batch[2], n1 = (size_t)p->batch[1];
    const size_t b2 = t % n2, b1 = t / n2 % n1, b0 = t / (n1 * n2);
    const size_t elem = j->f32 ? sizeof(float) : 1, plane = (size_t)p->rows * (size_t)p->cols;
    size_t lb = b0 * p->lhs_stride[0] + b1 * p->lhs_stride[1] + b2 * p->lhs_stride[2];
    size_t rb = b0 * p->rhs_stride[0] + b1 * p->rhs_stride[1] + b2 * p->rhs_stride[2];
    const uint8_t *lhs = j->l + lb * elem, *rhs = j->r + rb * elem;
    uint8_t *o = j->out + t * plane * elem;
    if (j->f32)
        batch_f32(&wp, p, pl_gemm_f32_for(j->isa), (const float *)lhs, (const float *)rhs,
                  (float *)o);
    else
        batch_s8(&wp, p, j->isa, (const int8_t *)lhs, (const int8_t *)rhs, (int8_t *)o);
}

pl_status pl_fast_batch_matmul_invoke(pl_context *ctx, pl_node *node)
{
    const bmm_plan *bp = pl_fast_block(node);
    if (bp == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const pl_batch_matmul_op *d = node->user_data;
    const pl_batch_matmul_params *p = &d->p;
    bmm_job job = {bp, p, pl_fast_isa_of(node), d->type == PL_FLOAT32,
                   pl_fast_data(ctx, pl_node_input(node, 0)),
                   pl_fast_data(ctx, pl_node_input(node, 1)),
                   pl_fast_data(ctx, pl_node_output(node, 0))};
    const size_t batches = (size_t)p->batch[0] * (size_t)p->batch[1] * (size_t)p->batch[2];
    const double work = (double)batches * p->rows * (double)p->cols * (double)p->depth;
    pl_fast_parallel(node, (int32_t)batches, work >= BMM_SPLIT_WORK ? work : 0.0, bmm_batch,
                     &job);
    return PL_OK;
}
