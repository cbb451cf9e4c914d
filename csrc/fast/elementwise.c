/* elementwise.c - ADD, SUB and MUL's fast path (see elementwise.h): int8 and float32 when
** both inputs have the output's element count (then the broadcast walk is flat). Anything
** else (broadcasting, int16, uint8, int32, int64) keeps the portable kernel. */
#include <string.h>

#include "fast/elementwise.h"
#include "fast/fast.h"
#include "kernels/elementwise/elementwise.h"

enum { OP_ADD = 0, OP_SUB = 41, OP_MUL = 18 }; /* builtin codes */

typedef struct ew_plan {
    bool f32;
    pl_ew_f32_op op;
    pl_ew_q q;
} ew_plan;

const pl_ew *pl_ew_for(pl_isa isa)
{
#if defined(PL_FAST_X86)
    if (isa == PL_ISA_AVX512)
        return &pl_ew_avx512;
    if (isa == PL_ISA_AVX2)
        return &pl_ew_avx2;
    if (isa == PL_ISA_SSE41)
        return &pl_ew_sse41;
#elif defined(PL_FAST_ARM64)
    if (isa == PL_ISA_NEON || isa == PL_ISA_NEON_DOT)
        return &pl_ew_neon;
#endif
    (void)isa;
    return NULL;
}

/* False for INT32_MIN (the vector rescale assumes the doubling high multiply cannot
** saturate; TFLite's rounding never gives it). */
static bool split(int32_t mult, int32_t shift, pl_ew_scale *s)
{
    s->mult = mult;
    s->left = shift > 0 ? shift : 0;
    s->right = shift > 0 ? 0 : shift < -31 ? 31 : -shift;
    return mult != INT32_MIN;
}

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_elementwise_op *d = node->user_data;
    pl_tensor a, b, o;
    if (pl_ew_for(pl_fast_isa_of(node)) == NULL ||
        ctx->get_eval(ctx, pl_node_input(node, 0), &a) != PL_OK ||
        ctx->get_eval(ctx, pl_node_input(node, 1), &b) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &o) != PL_OK ||
        (o.type != PL_INT8 && o.type != PL_FLOAT32) || pl_tensor_count(&a) != pl_tensor_count(&o) ||
        pl_tensor_count(&b) != pl_tensor_count(&o))
        return false;
    ew_plan pl = {0};
    int32_t op = node->builtin_code;
    pl.f32 = o.type == PL_FLOAT32;
    pl.op = op == OP_ADD ? PL_EW_ADD : op == OP_SUB ? PL_EW_SUB : PL_EW_MUL;
    const pl_add_params *p = &d->q;
    pl.q = (pl_ew_q){p->input1_offset, p->input2_offset, op == OP_MUL ? 0 : p->left_shift,
                     {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, p->output_offset, p->act_min,
                     p->act_max};
    bool ok = pl.f32 || (split(p->output_multiplier, p->output_shift, &pl.q.out) &&
                         (op == OP_MUL ||
                          (split(p->input1_multiplier, p->input1_shift, &pl.q.in1) &&
                           split(p->input2_multiplier, p->input2_shift, &pl.q.in2))));
    void *block = ok ? pl_fast_block_new(node, sizeof pl) : NULL;
    if (block == NULL)
        return false;
    memcpy(block, &pl, sizeof pl);
    return true;
}

pl_status pl_fast_elementwise_prepare(pl_context *ctx, pl_node *node)
{
    PL_TRY(pl_fast_reg_of(node)->base->prepare(ctx, node));
    if (!plan(ctx, node))
        pl_fast_block_drop(node);
    return PL_OK;
}

pl_status pl_fast_elementwise_invoke(pl_context *ctx, pl_node *node)
{
    const ew_plan *pl = pl_fast_block(node);
    if (pl == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const pl_elementwise_op *d = node->user_data;
    pl_tensor a, b, o;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &a));
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 1), &b));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &o));
    size_t n = pl_tensor_count(&o);
    if (pl_tensor_count(&a) != n || pl_tensor_count(&b) != n)
        return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
    const pl_ew *k = pl_ew_for(pl_fast_isa_of(node));
    if (pl->f32)
        k->f32(pl->op, a.data, b.data, n, d->f_min, d->f_max, o.data);
    else if (pl->op == PL_EW_MUL)
        k->mul_s8(&pl->q, a.data, b.data, n, o.data);
    else
        k->add_s8(&pl->q, a.data, b.data, n, o.data);
    return PL_OK;
}
