/* add.c - ADD's fast path: int8 inputs of equal shape (a residual connection), every
** element through TFLite's three rescales on vector lanes. Broadcasts and other types keep
** the portable kernel. The block only marks the node as taken. */
#include "fast/elementwise.h"
#include "fast/fast.h"

static bool equal_shapes(const pl_tensor *a, const pl_tensor *b)
{
    if (a->ndims != b->ndims)
        return false;
    for (int32_t i = 0; i < a->ndims; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return true;
}

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_elementwise_op *d = node->user_data;
    pl_tensor a, b, out;
    if (pl_fast_add_s8_for(pl_fast_isa_of(node)) == NULL ||
        ctx->get_eval(ctx, pl_node_input(node, 0), &a) != PL_OK ||
        ctx->get_eval(ctx, pl_node_input(node, 1), &b) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK)
        return false;
    if (out.type != PL_INT8 || a.type != PL_INT8 || b.type != PL_INT8 ||
        !equal_shapes(&a, &b) || !equal_shapes(&a, &out) || d->q.input1_multiplier == INT32_MIN ||
        d->q.input2_multiplier == INT32_MIN || d->q.output_multiplier == INT32_MIN)
        return false;
    return pl_fast_block_new(node, 1) != NULL;
}

pl_status pl_fast_add_prepare(pl_context *ctx, pl_node *node)
{
    PL_TRY(pl_fast_reg_of(node)->base->prepare(ctx, node));
    if (!plan(ctx, node))
        pl_fast_block_drop(node);
    return PL_OK;
}

pl_status pl_fast_add_invoke(pl_context *ctx, pl_node *node)
{
    if (pl_fast_block(node) == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const pl_elementwise_op *d = node->user_data;
    pl_tensor a, b, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &a));
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 1), &b));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    pl_fast_add_s8_for(pl_fast_isa_of(node))(&d->q, a.data, b.data, out.data,
                                             pl_tensor_count(&out));
    return PL_OK;
}
