/* gather_nd.c - GATHER_ND (TFLite gather_nd.cc) for any fixed-size element type with
** INT16/INT32/INT64 indices.
**
** indices [..., k] pick slices params[i0, ..., ik-1, :]; output shape indices[:-1] +
** params[k:]. Every index tuple is checked against params before its copy: one outside the
** dims fails the invoke (as TFLite does), never reading out of bounds. */
#include "gather.h"

#include <string.h>

#include "kernels/shape/operand.h"
#include "picolite/pl_node_io.h"

enum { OP_GATHER_ND = 107 };

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *p, *idx, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &p, &idx, &out));
    PL_TRY(pl_check_types(ctx, p, out, PL_TYPES_FIXED_SIZE));
    if (!pl_operand_is_index(idx->type) && idx->type != PL_INT16)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "GATHER_ND: indices must be INT16, INT32 or "
                         "INT64, not %s", pl_type_name(idx->type));
    int32_t k = idx->ndims > 0 ? idx->dims[idx->ndims - 1] : -1;
    if (idx->ndims < 1 || k > p->ndims || p->ndims < 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "GATHER_ND: index depth %d for params rank %d",
                         (int)k, (int)p->ndims);
    int32_t ndims = idx->ndims - 1 + p->ndims - k, dims[PL_MAX_DIMS], n = 0;
    if (ndims > PL_MAX_DIMS)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "GATHER_ND: output rank %d (at most %d)",
                         (int)ndims, PL_MAX_DIMS);
    for (int32_t i = 0; i + 1 < idx->ndims; i++)
        dims[n++] = idx->dims[i];
    for (int32_t i = k; i < p->ndims; i++)
        dims[n++] = p->dims[i];
    PL_TRY(ctx->set_shape(ctx, oi, ndims, dims));
    return pl_operand_fold(ctx, node);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor p, idx, out;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &p, &idx, &out));
    int32_t k = idx.dims[idx.ndims - 1];
    size_t slice = 1, lookups = 1;
    for (int32_t i = k; i < p.ndims; i++)
        slice *= (size_t)p.dims[i];
    for (int32_t i = 0; i + 1 < idx.ndims; i++)
        lookups *= (size_t)idx.dims[i];
    size_t row = slice * pl_type_size(p.type);
    for (size_t l = 0; l < lookups; l++) {
        size_t at = 0;
        for (int32_t j = 0; j < k; j++) {
            int64_t v = pl_operand_at(&idx, l * (size_t)k + (size_t)j);
            if (v < 0 || v >= p.dims[j])
                return ctx->fail(ctx, PL_ERR_ARG, "GATHER_ND: index %lld of lookup %zu (dim %d)"
                                 " is outside 0..%d", (long long)v, l, (int)j,
                                 (int)p.dims[j] - 1);
            at = at * (size_t)p.dims[j] + (size_t)v;
        }
        memcpy((uint8_t *)out.data + l * row, (const uint8_t *)p.data + at * row, row);
    }
    return PL_OK;
}

const pl_registration *pl_gather_nd_registration(void)
{
    static const pl_registration r = {.name = "GATHER_ND", .builtin_code = OP_GATHER_ND,
                                      .prepare = prepare, .invoke = invoke};
    return &r;
}
