/* tile.c - TILE (see tile.h). */
#include "tile.h"

#include <string.h>

#include "operand.h"
#include "picolite/pl_node_io.h"

enum { OP_TILE = 69 };

/* The output shape: in->dims[i] * multiples[i], each within int32. */
static pl_status tiled_shape(pl_context *ctx, const pl_tensor *in, const pl_tensor *mult,
                             int32_t *dims)
{
    if (!pl_operand_is_index(mult->type) || mult->ndims != 1 || mult->dims[0] != in->ndims)
        return ctx->fail(ctx, PL_ERR_MODEL, "TILE: multiples must be an INT32 or INT64 vector "
                         "of %d (the input rank), got %s of rank %d", (int)in->ndims,
                         pl_type_name(mult->type), (int)mult->ndims);
    for (int32_t a = 0; a < in->ndims; a++) {
        int64_t m = pl_operand_at(mult, (size_t)a), d = m * in->dims[a];
        if (m < 0 || m > INT32_MAX || d > INT32_MAX)
            return ctx->fail(ctx, PL_ERR_MODEL, "TILE: multiple %lld on axis %d (dim %d) is "
                             "negative or too large", (long long)m, (int)a, (int)in->dims[a]);
        dims[a] = (int32_t)d;
    }
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *in, *mult, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &in, &mult, &out));
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES_FIXED_SIZE));
    if (!pl_operand_known(mult)) {
        if (out->ndims != in->ndims)
            return ctx->fail(ctx, PL_ERR_MODEL, "TILE: output rank %d, input rank %d",
                             (int)out->ndims, (int)in->ndims);
        return ctx->set_shape(ctx, oi, out->ndims, out->dims);
    }
    int32_t dims[PL_MAX_DIMS];
    PL_TRY(tiled_shape(ctx, in, mult, dims));
    PL_TRY(ctx->set_shape(ctx, oi, in->ndims, dims));
    return pl_operand_fold(ctx, node);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor in, mult, out;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &in, &mult, &out));
    int32_t dims[PL_MAX_DIMS];
    PL_TRY(tiled_shape(ctx, &in, &mult, dims));
    PL_TRY(pl_operand_check_out(ctx, "TILE", &out, in.ndims, dims));
    size_t esize = pl_type_size(out.type), total = pl_operand_count(in.ndims, dims);
    if (total == 0)
        return PL_OK;
    /* an odometer over the output; src follows it, wrapping each axis at the input's dim
    ** (an output axis carries exactly when its input index wraps: dims are multiples) */
    size_t stride[PL_MAX_DIMS], src = 0, s = 1;
    int32_t at[PL_MAX_DIMS] = {0}, from[PL_MAX_DIMS] = {0};
    for (int32_t a = in.ndims - 1; a >= 0; a--) {
        stride[a] = s;
        s *= (size_t)in.dims[a];
    }
    for (size_t i = 0; i < total; i++) {
        memcpy((uint8_t *)out.data + i * esize, (const uint8_t *)in.data + src * esize, esize);
        for (int32_t a = in.ndims - 1; a >= 0; a--) {
            if (++from[a] == in.dims[a]) {
                from[a] = 0;
                src -= stride[a] * (size_t)(in.dims[a] - 1);
            } else {
                src += stride[a];
            }
            if (++at[a] < dims[a])
                break;
            at[a] = 0;
        }
    }
    return PL_OK;
}

const pl_registration *pl_tile_registration(void)
{
    static const pl_registration r = {.name = "TILE", .builtin_code = OP_TILE,
                                      .prepare = prepare, .invoke = invoke};
    return &r;
}
