/* common.c - counts, tensors and state shared by the Signal kernels (see common.h). */
#include "signal/common.h"
#include "picolite/pl_node_io.h"

pl_status pl_signal_tensor(pl_context *ctx, const pl_node *node, bool output, uint32_t i,
                           pl_type type, int32_t ndims, pl_tensor **out)
{
    PL_TRY(pl_node_tensor(ctx, node, output, i, out));
    PL_TRY(pl_check_type(ctx, *out, output, i, PL_TYPE_BIT(type)));
    return ndims >= 0 ? pl_check_rank(ctx, *out, output, i, ndims) : PL_OK;
}

pl_status pl_signal_state(pl_context *ctx, uint64_t need, void **buf, size_t *cap)
{
    if (need > UINT32_MAX)
        return ctx->fail(ctx, PL_ERR_MODEL, "state of %llu bytes exceeds 32 bits",
                         (unsigned long long)need);
    if (*buf != NULL && need <= *cap)
        return PL_OK;
    PL_TRY(ctx->alloc_persistent(ctx, (size_t)need, buf));
    *cap = (size_t)need;
    return PL_OK;
}

pl_status pl_signal_same_shape(pl_context *ctx, const pl_node *node, uint32_t i,
                               const pl_tensor *t)
{
    return ctx->set_shape(ctx, pl_node_output(node, i), t->ndims, t->dims);
}
