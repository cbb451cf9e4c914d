/* softmax.c - SOFTMAX's fast path for int8 input (int8 or int16 output): the exps of the
** 256 possible differences to the row maximum computed once at prepare into the host block,
** then the portable kernel's own row arithmetic reading them (pl_softmax_s8_exps), so the
** bits are the reference's. No vectors: rows are short (classes), the exp was the cost.
** float32 keeps the portable kernel: its exps are of any float (no table), and a vector exp
** would have to repeat pl_fmath_expf's double arithmetic step for step. */
#include <string.h>

#include "fast/fast.h"
#include "kernels/activation/softmax.h"

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_softmax_op *d = node->user_data;
    pl_tensor in, out;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK || in.type != PL_INT8 ||
        (out.type != PL_INT8 && out.type != PL_INT16))
        return false;
    int32_t *exps = pl_fast_block_new(node, sizeof(int32_t) * PL_SOFTMAX_EXPS);
    if (exps == NULL)
        return false;
    pl_softmax_exp_table(&d->p, exps);
    return true;
}

pl_status pl_fast_softmax_prepare(pl_context *ctx, pl_node *node)
{
    PL_TRY(pl_fast_reg_of(node)->base->prepare(ctx, node));
    if (!plan(ctx, node))
        pl_fast_block_drop(node);
    return PL_OK;
}

pl_status pl_fast_softmax_invoke(pl_context *ctx, pl_node *node)
{
    const int32_t *exps = pl_fast_block(node);
    if (exps == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const pl_softmax_op *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    size_t depth = (size_t)in.dims[in.ndims - 1];
    size_t outer = depth == 0 ? 0 : pl_tensor_count(&in) / depth;
    if (out.type == PL_INT8)
        pl_softmax_s8_exps(&d->p, exps, in.data, out.data, outer, depth);
    else
        pl_softmax_s8_s16_exps(&d->p, exps, in.data, out.data, outer, depth);
    return PL_OK;
}
