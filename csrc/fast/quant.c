/* quant.c - QUANTIZE of float32 into int8, uint8 or int16, DEQUANTIZE of a computed int8,
** uint8 or int16 tensor (an int8 model's float input and output), per tensor, and QUANTIZE
** between int8, uint8 and int16 (a requantization: the converter puts them before joins of
** branches quantized apart; 16x8 models between their int16 layers), by vectors (quant.h):
** the portable kernel's element arithmetic, in spans split over the threads. Per-channel
** tensors, int32 sides, zero points whose differences leave float's exact integers (or a
** requantization's output zero point beyond 2^16) and sets without the kernels keep the
** portable kernel. */
#include "fast/quant.h"

#include "fast/fast.h"
#include "kernels/quant/dequantize_fast.h"

const pl_quant_kernels *pl_quant_for(pl_isa isa)
{
    PL_FAST_PICK(isa, &pl_quant_avx2, &pl_quant_avx2, NULL, NULL, NULL);
    return NULL;
}

typedef struct quant_plan {
    uint8_t tag; /* PL_DEQUANTIZE_RUNTIME (fold.c tells its own blocks by it) */
    const pl_quant_kernels *k;
    pl_type type; /* the integer side's; a requantization's output */
    float scale;
    int32_t zp;
    bool quantize;
    pl_type from; /* a requantization's input (INT8, UINT8, INT16), else PL_FLOAT32 */
    pl_requant_params rq;
} quant_plan;

static bool is_small_int(pl_type t)
{
    return t == PL_INT8 || t == PL_UINT8 || t == PL_INT16;
}

/* The plan of a per-tensor node whose integer side has type t. */
static bool put_plan(const pl_node *node, pl_type t, bool quantize)
{
    const pl_quant_kernels *k = pl_quant_for(pl_fast_isa_of(node));
    quant_plan qp = {PL_DEQUANTIZE_RUNTIME, k, t, 0.0f, 0, quantize, PL_FLOAT32, {0}};
    if (k == NULL || !is_small_int(t) || !pl_quant_per_tensor(node, &qp.scale, &qp.zp))
        return false;
    /* DEQUANTIZE: |in - zp| below 2^24 for every input (the float difference is exact) */
    if (!quantize && (qp.zp > (1 << 22) || qp.zp < -(1 << 22)))
        return false;
    return pl_fast_block_put(node, &qp, sizeof qp);
}

bool pl_fast_dequantize_runtime_plan(pl_context *ctx, const pl_node *node)
{
    pl_tensor in, out;
    return ctx->get_eval(ctx, pl_node_input(node, 0), &in) == PL_OK &&
           ctx->get_eval(ctx, pl_node_output(node, 0), &out) == PL_OK && !in.is_constant &&
           out.type == PL_FLOAT32 && put_plan(node, in.type, false);
}

/* A requantization between the small integer types, per tensor (the portable prepare
** refuses per-channel ones). */
static bool put_requant_plan(const pl_node *node, pl_type from, pl_type to)
{
    quant_plan qp = {PL_DEQUANTIZE_RUNTIME, pl_quant_for(pl_fast_isa_of(node)), to, 0.0f, 0,
                     true, from, {0}};
    if (qp.k == NULL || !is_small_int(from) || !is_small_int(to) ||
        !pl_quant_requant_of(node, &qp.rq))
        return false;
    if (qp.rq.output_zero_point > (1 << 16) || qp.rq.output_zero_point < -(1 << 16))
        return false;
    return pl_fast_block_put(node, &qp, sizeof qp);
}

static bool plan_quantize(pl_context *ctx, const pl_node *node)
{
    pl_tensor in, out;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK)
        return false;
    return in.type == PL_FLOAT32 ? put_plan(node, out.type, true)
                                 : put_requant_plan(node, in.type, out.type);
}

pl_status pl_fast_quantize_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan_quantize);
}

/* Elements per task (each on its own: any split gives the same bytes). */
enum { SPAN = 16384 };

typedef struct quant_job {
    const quant_plan *qp;
    const void *in;
    void *out;
} quant_job;

static void span(void *arg, int32_t worker, size_t at, size_t n)
{
    (void)worker;
    const quant_job *j = arg;
    const quant_plan *qp = j->qp;
    const size_t es = pl_type_size(qp->type);
    if (qp->from != PL_FLOAT32)
        qp->k->requant(&qp->rq, qp->from, (const uint8_t *)j->in + at * pl_type_size(qp->from),
                       qp->type, (uint8_t *)j->out + at * es, n);
    else if (qp->quantize)
        qp->k->quantize(qp->type, (const float *)j->in + at, qp->scale, qp->zp,
                        (uint8_t *)j->out + at * es, n);
    else
        qp->k->dequantize(qp->type, (const uint8_t *)j->in + at * es, qp->scale, qp->zp,
                          (float *)j->out + at, n);
}

static pl_status run(pl_context *ctx, pl_node *node, const quant_plan *qp)
{
    pl_tensor in, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    size_t n = pl_tensor_count(&in);
    if (pl_tensor_count(&out) != n)
        return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
    quant_job j = {qp, in.data, out.data};
    pl_fast_spans(node, n, SPAN, (double)n * (qp->quantize ? 4 : 2), span, &j);
    return PL_OK;
}

pl_status pl_fast_dequantize_runtime_invoke(pl_context *ctx, pl_node *node)
{
    return run(ctx, node, pl_fast_block(node));
}

pl_status pl_fast_quantize_invoke(pl_context *ctx, pl_node *node)
{
    const quant_plan *qp = pl_fast_block(node);
    if (qp == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    return run(ctx, node, qp);
}
