/* softmax.c - SOFTMAX's fast path. int8 input (int8 or int16 output): the exps of the 256
** possible differences to the row maximum computed once at prepare into the host block, then
** the portable kernel's own row arithmetic reading them (pl_softmax_s8_exps), so the bits
** are the reference's; no vectors: rows are short (classes), the exp was the cost. float32:
** the vector exp of exp.h, bit for bit pl_fmath_expf, in the portable kernel's steps. */
#include <string.h>

#include "fast/exp.h"
#include "fast/fast.h"
#include "kernels/activation/softmax.h"

/* The host block: the float kernels, or the int8 exps. */
typedef struct softmax_plan {
    const pl_exp_kernels *f32;
    int32_t exps[PL_SOFTMAX_EXPS];
} softmax_plan;

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_softmax_op *d = node->user_data;
    pl_tensor in, out;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK)
        return false;
    const pl_exp_kernels *k = pl_exp_for(pl_fast_isa_of(node));
    if (in.type == PL_FLOAT32 && k != NULL) {
        softmax_plan *pl = pl_fast_block_new(node, sizeof pl->f32);
        if (pl != NULL)
            pl->f32 = k;
        return pl != NULL;
    }
    if (in.type != PL_INT8 || (out.type != PL_INT8 && out.type != PL_INT16))
        return false;
    softmax_plan *pl = pl_fast_block_new(node, sizeof *pl);
    if (pl == NULL)
        return false;
    pl->f32 = NULL;
    pl_softmax_exp_table(&d->p, pl->exps);
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
    const softmax_plan *pl = pl_fast_block(node);
    if (pl == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const pl_softmax_op *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    size_t depth = (size_t)in.dims[in.ndims - 1];
    size_t outer = depth == 0 ? 0 : pl_tensor_count(&in) / depth;
    if (pl->f32 != NULL)
        pl->f32->softmax(d->p.beta, in.data, out.data, outer, depth);
    else if (out.type == PL_INT8)
        pl_softmax_s8_exps(&d->p, pl->exps, in.data, out.data, outer, depth);
    else
        pl_softmax_s8_s16_exps(&d->p, pl->exps, in.data, out.data, outer, depth);
    return PL_OK;
}
