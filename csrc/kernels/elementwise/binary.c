/* binary.c - shared prepare/invoke steps of the elementwise kernels (see binary.h). */
#include "binary.h"
#include "picolite/pl_node_io.h"

pl_status pl_binary_prepare(pl_context *ctx, pl_node *node, pl_tensor *t[3])
{
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &t[0], &t[1], &t[2]));
    return pl_bcast_set_output(ctx, t[0], t[1], t[2]);
}

pl_status pl_unary_prepare(pl_context *ctx, pl_node *node, pl_tensor **in, pl_tensor **out)
{
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(1, 1), in, out));
    return pl_set_output_like(ctx, *out, *in);
}

pl_status pl_binary_eval(pl_context *ctx, const pl_node *node, pl_tensor t[3], pl_bcast *bc)
{
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &t[0], &t[1], &t[2]));
    if (pl_bcast_setup(bc, &t[0], &t[1], &t[2]) != PL_BCAST_OK)
        return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
    return PL_OK;
}

pl_status pl_unary_eval(pl_context *ctx, const pl_node *node, pl_tensor *in, pl_tensor *out,
                        size_t *n)
{
    PL_TRY(pl_node_evals(ctx, node, 1, 1, in, out));
    *n = pl_tensor_count(in);
    if (pl_tensor_count(out) != *n)
        return ctx->fail(ctx, PL_ERR_STATE, "output has %zu elements for %zu",
                         pl_tensor_count(out), *n);
    return PL_OK;
}
