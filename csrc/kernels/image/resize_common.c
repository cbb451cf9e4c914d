/* resize_common.c - the checks and output shape shared by the RESIZE_* kernels. */
#include "resize.h"

#include "kernels/shape/operand.h"
#include "picolite/pl_node_io.h"

static pl_status read_size(pl_context *ctx, const char *name, const pl_tensor *in,
                           const pl_tensor *size, int32_t *dims)
{
    const pl_nhwc in_shape = pl_nhwc_of(in);
    const int32_t *s = size->data;
    if (in_shape.h < 1 || in_shape.w < 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: input of %d x %d pixels", name,
                         (int)in_shape.h, (int)in_shape.w);
    if (s[0] < 1 || s[1] < 1 || s[0] > PL_RESIZE_MAX_SIDE || s[1] > PL_RESIZE_MAX_SIDE)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: size %d x %d must be in 1..%d", name,
                         (int)s[0], (int)s[1], PL_RESIZE_MAX_SIDE);
    dims[0] = in_shape.n;
    dims[1] = s[0];
    dims[2] = s[1];
    dims[3] = in_shape.c;
    return PL_OK;
}

static pl_status check(pl_context *ctx, const char *name, const pl_tensor *in,
                       const pl_tensor *size, const pl_tensor *out)
{
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES_FIXED_SIZE));
    if (in->ndims != 4 || in->dims[1] > PL_RESIZE_MAX_SIDE || in->dims[2] > PL_RESIZE_MAX_SIDE)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: input must be 4-D NHWC with sides up "
                         "to %d", name, PL_RESIZE_MAX_SIDE);
    if (size->type != PL_INT32 || size->ndims != 1 || size->dims[0] != 2)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: size must be an INT32 [2] tensor", name);
    if (in->q.count != out->q.count ||
        (in->q.count > 0 && (in->q.scale[0] != out->q.scale[0] ||
                             in->q.zero_point[0] != out->q.zero_point[0])))
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: input and output quantization differ", name);
    return PL_OK;
}

pl_status pl_resize_prepare(pl_context *ctx, pl_node *node, const char *name)
{
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *in, *size, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &in, &size, &out));
    PL_TRY(check(ctx, name, in, size, out));
    if (!pl_operand_known(size))
        return ctx->set_shape(ctx, oi, out->ndims, out->dims);
    int32_t dims[4];
    PL_TRY(read_size(ctx, name, in, size, dims));
    return ctx->set_shape(ctx, oi, 4, dims);
}

pl_status pl_resize_size(pl_context *ctx, const char *name, const pl_tensor *in,
                         const pl_tensor *size, const pl_tensor *out)
{
    int32_t dims[4];
    PL_TRY(read_size(ctx, name, in, size, dims));
    return pl_operand_check_out(ctx, name, out, 4, dims);
}
