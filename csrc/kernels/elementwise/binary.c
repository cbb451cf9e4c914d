/* binary.c - shared prepare/invoke steps of the elementwise kernels (see binary.h). */
#include "binary.h"

pl_status pl_binary_prepare(pl_context *ctx, pl_node *node, pl_tensor *t[3])
{
    int32_t idx[3] = {pl_node_input(node, 0), pl_node_input(node, 1),
                      pl_node_output(node, 0)};
    if (node->inputs.n != 2 || node->outputs.n != 1 || idx[0] < 0 || idx[1] < 0 || idx[2] < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "needs 2 inputs and 1 output, got %u and %u",
                         (unsigned)node->inputs.n, (unsigned)node->outputs.n);
    for (int k = 0; k < 3; k++)
        PL_TRY(ctx->get_tensor(ctx, idx[k], &t[k]));
    return pl_bcast_set_output(ctx, t[0], t[1], t[2]);
}

pl_status pl_unary_prepare(pl_context *ctx, pl_node *node, pl_tensor **in, pl_tensor **out)
{
    int32_t i = pl_node_input(node, 0), o = pl_node_output(node, 0);
    if (node->inputs.n != 1 || node->outputs.n != 1 || i < 0 || o < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "needs 1 input and 1 output, got %u and %u",
                         (unsigned)node->inputs.n, (unsigned)node->outputs.n);
    PL_TRY(ctx->get_tensor(ctx, i, in));
    PL_TRY(ctx->get_tensor(ctx, o, out));
    return pl_set_output_like(ctx, *out, *in);
}

pl_status pl_binary_eval(pl_context *ctx, const pl_node *node, pl_tensor t[3], pl_bcast *bc)
{
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &t[0]));
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 1), &t[1]));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &t[2]));
    if (pl_bcast_setup(bc, &t[0], &t[1], &t[2]) != PL_BCAST_OK)
        return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
    return PL_OK;
}

pl_status pl_unary_eval(pl_context *ctx, const pl_node *node, pl_tensor *in, pl_tensor *out,
                        size_t *n)
{
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), out));
    *n = pl_tensor_count(in);
    if (pl_tensor_count(out) != *n)
        return ctx->fail(ctx, PL_ERR_STATE, "output has %zu elements for %zu",
                         pl_tensor_count(out), *n);
    return PL_OK;
}
