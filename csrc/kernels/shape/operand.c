/* operand.c - shape vectors and output checks for kernels whose shape comes from data. */
#include "operand.h"

pl_status pl_operand_shape(pl_context *ctx, const char *name, const pl_tensor *t,
                           int32_t *ndims, int32_t *dims)
{
    if (!pl_operand_is_index(t->type) || t->ndims != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: the shape operand must be a 1-D INT32 or "
                         "INT64 tensor (got %s of rank %d)", name, pl_type_name(t->type),
                         (int)t->ndims);
    if (t->dims[0] > PL_MAX_DIMS)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: shape of rank %d (at most %d)", name,
                         (int)t->dims[0], PL_MAX_DIMS);
    *ndims = t->dims[0];
    for (int32_t i = 0; i < *ndims; i++) {
        int64_t v = pl_operand_at(t, (size_t)i);
        if (v < 0 || v > INT32_MAX)
            return ctx->fail(ctx, PL_ERR_MODEL, "%s: shape entry %d is %lld", name, (int)i,
                             (long long)v);
        dims[i] = (int32_t)v;
    }
    return PL_OK;
}

pl_status pl_operand_check_out(pl_context *ctx, const char *name, const pl_tensor *out,
                               int32_t ndims, const int32_t *dims)
{
    bool same = out->ndims == ndims;
    for (int32_t i = 0; same && i < ndims; i++)
        same = out->dims[i] == dims[i];
    if (same)
        return PL_OK;
    if (out->ndims != ndims)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: the operand values give rank %d but output "
                         "tensor %d has rank %d", name, (int)ndims, (int)out->index,
                         (int)out->ndims);
    int32_t d = 0;
    while (out->dims[d] == dims[d])
        d++;
    return ctx->fail(ctx, PL_ERR_MODEL, "%s: the operand values give dim %d = %d but output "
                     "tensor %d has %d there", name, (int)d, (int)dims[d], (int)out->index,
                     (int)out->dims[d]);
}

size_t pl_operand_count(int32_t ndims, const int32_t *dims)
{
    size_t n = 1;
    for (int32_t i = 0; i < ndims; i++)
        n *= (size_t)dims[i];
    return n;
}
