/* binary.c - shared prepare/invoke steps of the elementwise kernels (see binary.h). */
#include "binary.h"

/* The first dim (counted from the right) where a and b neither match nor have a 1. */
static int32_t clash(const pl_tensor *a, const pl_tensor *b, int32_t *x, int32_t *y)
{
    for (int32_t d = PL_BCAST_MAX_DIMS - 1; d >= 0; d--) {
        *x = pl_bcast_dim(a, d);
        *y = pl_bcast_dim(b, d);
        if (*x != *y && *x != 1 && *y != 1)
            return PL_BCAST_MAX_DIMS - 1 - d;
    }
    return -1;
}

static pl_status broadcast_shape(pl_context *ctx, const pl_tensor *a, const pl_tensor *b,
                                 int32_t out)
{
    if (pl_bcast_same_dims(a, b))
        return ctx->set_shape(ctx, out, a->ndims, a->dims);
    if (a->ndims > PL_BCAST_MAX_DIMS || b->ndims > PL_BCAST_MAX_DIMS)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "broadcasting ranks %d and %d: above rank %d is not supported",
                         (int)a->ndims, (int)b->ndims, PL_BCAST_MAX_DIMS);
    int32_t ndims, dims[PL_BCAST_MAX_DIMS], x, y;
    if (!pl_bcast_shape(a, b, &ndims, dims)) {
        int32_t k = clash(a, b, &x, &y);
        return ctx->fail(ctx, PL_ERR_MODEL,
                         "input shapes do not broadcast: dim %d from the end is %d and %d",
                         (int)k, (int)x, (int)y);
    }
    return ctx->set_shape(ctx, out, ndims, dims + (PL_BCAST_MAX_DIMS - ndims));
}

pl_status pl_binary_prepare(pl_context *ctx, pl_node *node, pl_tensor *t[3])
{
    int32_t idx[3] = {pl_node_input(node, 0), pl_node_input(node, 1),
                      pl_node_output(node, 0)};
    if (node->inputs.n != 2 || node->outputs.n != 1 || idx[0] < 0 || idx[1] < 0 || idx[2] < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "needs 2 inputs and 1 output, got %u and %u",
                         (unsigned)node->inputs.n, (unsigned)node->outputs.n);
    for (int k = 0; k < 3; k++)
        PL_TRY(ctx->get_tensor(ctx, idx[k], &t[k]));
    return broadcast_shape(ctx, t[0], t[1], idx[2]);
}

pl_status pl_unary_prepare(pl_context *ctx, pl_node *node, pl_tensor **in, pl_tensor **out)
{
    int32_t i = pl_node_input(node, 0), o = pl_node_output(node, 0);
    if (node->inputs.n != 1 || node->outputs.n != 1 || i < 0 || o < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "needs 1 input and 1 output, got %u and %u",
                         (unsigned)node->inputs.n, (unsigned)node->outputs.n);
    PL_TRY(ctx->get_tensor(ctx, i, in));
    PL_TRY(ctx->get_tensor(ctx, o, out));
    return ctx->set_shape(ctx, o, (*in)->ndims, (*in)->dims);
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
