/* fully_connected.c - FULLY_CONNECTED's fast path: the matrix product with the weights
** packed at prepare. int8 rows are copied (plus 128, padded) into the host block a chunk
** at a time; their int32 sums go through the convolutions' integer output stage in vector
** registers for TFLM's arithmetic (bias folded in, so a bias that is not constant keeps the
** portable kernel), or are rescaled in double lanes as LiteRT's reference does. float32
** reads the input rows in place; 16x8 is fully_connected16.c, hybrid (float input, int8
** weights) fully_connected_hybrid.c. uint8 and weights with a zero point (or not constant)
** keep the portable kernel. */
#include <string.h>

#include "fast/fast.h"
#include "fast/gemm.h"
#include "fast/hybrid.h"
#include "fast/s16.h"
#include "kernels/conv/convq_views_fast.h"
#include "kernels/conv/fully_connected_fast.h"

typedef struct fc_plan {
    int32_t kp;      /* int8: depth rounded up to 4 */
    int32_t rows;    /* int8: batch rows per chunk */
    bool f32;
    void *packed;
    int32_t *fold;   /* int8, LiteRT: (input offset - 128) * the unit's weight sum, mod 2^32 */
    double *scale;   /* int8, LiteRT: the unit's output scale */
    pl_s8_stage st;  /* int8, TFLM: the whole output stage, bias and offsets folded */
    uint8_t *a;      /* int8: rows x kp */
    int32_t *sums;   /* int8, LiteRT: rows x units */
} fc_plan;

/* The TFLM output stage of the units: their Q31 multipliers and shifts (one per unit, the
** per-tensor one repeated) handed to the stage the convolutions use, with the bias and the
** input zero point folded into its addends. arrays holds PL_S8_STAGE_ARRAYS + 2 lanes of int32. */
static bool stage_init(const pl_fully_connected_params *p, const int8_t *w, const int32_t *bias,
                       int32_t *arrays, int32_t lanes, pl_s8_stage *st)
{
    int32_t *mult = arrays + PL_S8_STAGE_ARRAYS * lanes, *shift = mult + lanes;
    for (int32_t u = 0; u < p->units; u++) {
        int32_t c = p->per_channel ? u : 0;
        mult[u] = p->rescale[2 * c];
        shift[u] = p->rescale[2 * c + 1];
    }
    const pl_s8_requant q = {p->input_offset, mult, shift, p->output_offset, p->act_min,
                             p->act_max};
    return pl_fast_s8_stage_init(&q, w, p->units, p->depth, bias, arrays, lanes, st);
}

/* LiteRT's output stage: the input zero point as a per-unit fold, the double scales. */
static void fold_init(const pl_fully_connected_params *p, const int8_t *w, fc_plan *fp)
{
    for (int32_t u = 0; u < p->units; u++) {
        int64_t sum = 0;
        for (int32_t i = 0; i < p->depth; i++)
            sum += w[(size_t)u * (size_t)p->depth + (size_t)i];
        fp->fold[u] = (int32_t)(uint32_t)(int64_t)((p->input_offset - 128) * sum);
        fp->scale[u] = p->scale[p->per_channel ? u : 0];
    }
}

/* TFLM's stage folds the bias at prepare, so it needs the bias constant (or none). */
static bool bias_foldable(pl_context *ctx, const pl_node *node, const int32_t **bias)
{
    pl_tensor b;
    *bias = NULL;
    if (ctx->get_eval(ctx, pl_node_input(node, 2), &b) != PL_OK)
        return false;
    if (b.index < 0)
        return true;
    *bias = b.data;
    return b.data != NULL && b.is_constant;
}

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_fully_connected_op *d = node->user_data;
    const pl_fully_connected_params *p = &d->p;
    pl_isa isa = pl_fast_isa_of(node);
    const pl_gemm_s8 *g8 = pl_gemm_s8_for(isa);
    const pl_gemm_f32 *gf = pl_gemm_f32_for(isa);
    pl_tensor f;
    const int32_t *bias = NULL;
    if (d->hybrid || (d->type != PL_INT8 && d->type != PL_FLOAT32) || g8 == NULL ||
        gf == NULL || pl_fast_eval_constant(ctx, node, pl_node_input(node, 1), &f) != PL_OK ||
        f.data == NULL || !f.is_constant || f.type == PL_INT4 /* packed: portable */ ||
        (d->type == PL_INT8 && p->filter_offset != 0) ||
        (d->type == PL_FLOAT32 && pl_gemm_f32_run(gf, p->fused) == NULL)) /* no FMA */
        return false;
    fc_plan fp = {0};
    fp.f32 = d->type == PL_FLOAT32;
    bool fixed = !fp.f32 && p->fixed_rescale;
    if (fixed && !bias_foldable(ctx, node, &bias))
        return false;
    fp.kp = fp.f32 ? p->depth : pl_fast_round_up(p->depth, 4);
    fp.rows = pl_fast_chunk_rows((size_t)fp.kp, (size_t)p->batches);
    int32_t lanes = pl_fast_round_up(p->units, PL_FAST_LANES);
    size_t packed = fp.f32 ? gf->packed_bytes(p->units, p->depth)
                           : g8->packed_bytes(p->units, fp.kp);
    const size_t stage = sizeof(int32_t) * (PL_S8_STAGE_ARRAYS + 2) * (size_t)lanes;
    size_t fold = fp.f32 ? 0 : fixed ? pl_fast_align64(stage)
                                     : pl_fast_align64(sizeof(int32_t) * (size_t)p->units);
    size_t scale = fp.f32 || fixed ? 0 : pl_fast_align64(sizeof(double) * (size_t)p->units);
    size_t a = fp.f32 ? 0 : pl_fast_align64((size_t)fp.rows * (size_t)fp.kp);
    size_t sums = fp.f32 || fixed ? 0 : pl_fast_align64(sizeof(int32_t) * (size_t)fp.rows *
                                                        (size_t)p->units);
    size_t head = pl_fast_align64(sizeof fp);
    uint8_t *block =
        pl_fast_block_new(node, head + pl_fast_align64(packed) + fold + scale + a + sums);
    if (block == NULL)
        return false;
    fp.packed = block + head;
    if (fp.f32) {
        gf->pack(f.data, p->units, p->depth, fp.packed);
    } else {
        fp.fold = (int32_t *)(block + head + pl_fast_align64(packed));
        fp.scale = fixed ? NULL : (double *)((uint8_t *)fp.fold + fold);
        fp.a = (uint8_t *)fp.fold + fold + scale;
        fp.sums = fixed ? NULL : (int32_t *)(fp.a + a);
        g8->pack(f.data, p->units, p->depth, fp.kp, fp.packed);
        if (fixed) {
            if (!stage_init(p, f.data, bias, fp.fold, lanes, &fp.st))
                return false;
            fp.fold = NULL;
        } else {
            fold_init(p, f.data, &fp);
        }
    }
    memcpy(block, &fp, sizeof fp);
    pl_fast_claim_folds(node, 1, 2); /* invoke reads the bias through the fold too */
    return true;
}

pl_status pl_fast_fully_connected_prepare(pl_context *ctx, pl_node *node)
{
    PL_TRY(pl_fast_reg_of(node)->base->prepare(ctx, node));
    const pl_fully_connected_op *d = node->user_data;
    bool fast = d->hybrid ? pl_fast_fully_connected_hybrid_plan(ctx, node)
              : d->type == PL_INT16 ? pl_fast_fully_connected16_plan(ctx, node)
                                    : plan(ctx, node);
    if (!fast)
        pl_fast_block_drop(node);
    return PL_OK;
}

/* A block of units (a multiple of 64: every set's panel divides it) against the rows: the
** float product, or TFLM's int8 product with its stage. Blocks split over the threads. */
typedef struct fc_job {
    const fc_plan *fp;
    const pl_fully_connected_op *d;
    pl_isa isa;
    int32_t rows, block;
    const void *in; /* float: the input rows; int8: the copied rows (fp->a) */
    const float *bias;
    void *out;
} fc_job;

static void fc_block(void *arg, int32_t worker, int32_t task)
{
    (void)worker;
    const fc_job *j = arg;
    const fc_plan *fp = j->fp;
    const pl_fully_connected_params *p = &j->d->p;
    const int32_t n0 = task * j->block;
    const int32_t nn = p->units - n0 < j->block ? p->units - n0 : j->block;
    if (fp->f32) {
        const pl_gemm_f32 *gf = pl_gemm_f32_for(j->isa);
        pl_gemm_f32_run(gf, p->fused)(j->rows, nn, p->depth, j->in, (size_t)p->depth,
                                      (const uint8_t *)fp->packed +
                                          gf->packed_bytes(n0, p->depth),
                                      j->bias != NULL ? j->bias + n0 : NULL, p->f_act_min,
                                      p->f_act_max, (float *)j->out + n0, (size_t)p->units);
        return;
    }
    const pl_gemm_s8 *g8 = pl_gemm_s8_for(j->isa);
    const pl_s8_stage st = pl_s8_stage_from(&fp->st, n0); /* the block's units */
    g8->run(j->rows, nn, fp->kp, j->in, (size_t)fp->kp,
            (const uint8_t *)fp->packed + g8->packed_bytes(n0, fp->kp), &st,
            (int8_t *)j->out + n0, NULL, (size_t)p->units);
}

/* Units per task: all of them on one thread, else blocks of 64 for about two per thread. */
static int32_t unit_block(const pl_node *node, int32_t units)
{
    int32_t workers = pl_fast_threads_of(node);
    if (workers <= 1 || units < 128)
        return units;
    int32_t block = pl_fast_round_up((units + 2 * workers - 1) / (2 * workers), 64);
    return block < units ? block : units;
}

static void run_blocks(const pl_node *node, fc_job *j)
{
    const pl_fully_connected_params *p = &j->d->p;
    j->block = unit_block(node, p->units);
    pl_fast_parallel(node, (p->units + j->block - 1) / j->block,
                     (double)j->rows * p->units * p->depth, fc_block, j);
}

static void invoke_s8(const pl_node *node, const fc_plan *fp, const pl_fully_connected_op *d,
                      pl_isa isa, const int8_t *in, const int32_t *bias, int8_t *out)
{
    const pl_fully_connected_params *p = &d->p;
    const pl_gemm_s8 *g8 = pl_gemm_s8_for(isa);
    const size_t depth = (size_t)p->depth, units = (size_t)p->units;
    const pl_fc_output o = {p, fp->fold, bias, fp->scale};
    const bool fixed = fp->sums == NULL;
    for (int32_t b0 = 0; b0 < p->batches; b0 += fp->rows) {
        int32_t rows = p->batches - b0 < fp->rows ? p->batches - b0 : fp->rows;
        for (int32_t r = 0; r < rows; r++) {
            const int8_t *x = in + (size_t)(b0 + r) * depth;
            uint8_t *row = fp->a + (size_t)r * (size_t)fp->kp;
            for (size_t i = 0; i < depth; i++)
                row[i] = (uint8_t)((uint8_t)x[i] ^ 0x80u);
            memset(row + depth, 0, (size_t)fp->kp - depth);
        }
        if (fixed) { /* TFLM: the stage writes the int8 outputs */
            fc_job j = {fp, d, isa, rows, 0, fp->a, NULL, out + (size_t)b0 * units};
            run_blocks(node, &j);
            continue;
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
    if (d->hybrid)
        return pl_fast_fully_connected_hybrid_invoke(ctx, node, fp);
    if (d->type == PL_INT16)
        return pl_fast_fully_connected16_invoke(ctx, node, fp);
    pl_tensor bias; /* the filter is packed; the bias may be a fold's values */
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 2), &bias));
    pl_fast_use_fold(ctx, node, &bias);
    const void *in = pl_fast_data(ctx, pl_node_input(node, 0));
    void *out = pl_fast_data(ctx, pl_node_output(node, 0));
    pl_isa isa = pl_fast_isa_of(node);
    if (fp->f32) {
        fc_job j = {fp, d, isa, d->p.batches, 0, in, bias.data, out};
        run_blocks(node, &j);
    } else {
        invoke_s8(node, fp, d, isa, in, bias.data, out);
    }
    return PL_OK;
}
