/* dynamic_update_slice.c - DYNAMIC_UPDATE_SLICE (TFLite dynamic_update_slice.cc): the operand
** with `update` written over the box at start_indices, for any fixed-size element type.
**
** start_indices (INT32/INT64, one per dim) are runtime data. As TFLite (and XLA) define the
** op, each start is clamped into 0..operand_dim - update_dim, so every index is in bounds and
** the result is TFLite's for any value. */
#include "dynamic_update_slice.h"

#include <string.h>

#include "operand.h"
#include "slice.h"
#include "picolite/pl_node_io.h"

enum { OP_DYNAMIC_UPDATE_SLICE = 151 };

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *a, *u, *s, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(3, 1), &a, &u, &s, &out));
    if (u->type != a->type || out->type != a->type || pl_type_size(a->type) == 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "DYNAMIC_UPDATE_SLICE: operand %s, update %s,"
                         " output %s", pl_type_name(a->type), pl_type_name(u->type),
                         pl_type_name(out->type));
    if (!pl_operand_is_index(s->type) || s->ndims != 1 || s->dims[0] != a->ndims)
        return ctx->fail(ctx, PL_ERR_MODEL, "DYNAMIC_UPDATE_SLICE: start_indices must be an "
                         "INT32 or INT64 vector of %d entries", (int)a->ndims);
    if (u->ndims != a->ndims)
        return ctx->fail(ctx, PL_ERR_MODEL, "DYNAMIC_UPDATE_SLICE: update rank %d, operand "
                         "rank %d", (int)u->ndims, (int)a->ndims);
    for (int32_t d = 0; d < a->ndims; d++)
        if (u->dims[d] > a->dims[d])
            return ctx->fail(ctx, PL_ERR_MODEL, "DYNAMIC_UPDATE_SLICE: update dim %d is %d, "
                             "above the operand's %d", (int)d, (int)u->dims[d],
                             (int)a->dims[d]);
    return ctx->set_shape(ctx, oi, a->ndims, a->dims);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor a, u, s, out;
    PL_TRY(pl_node_evals(ctx, node, 3, 1, &a, &u, &s, &out));
    int32_t start[PL_MAX_DIMS];
    for (int32_t d = 0; d < a.ndims; d++) {
        int64_t v = pl_operand_at(&s, (size_t)d), hi = (int64_t)a.dims[d] - u.dims[d];
        start[d] = (int32_t)(v < 0 ? 0 : v > hi ? hi : v);
    }
    size_t esize = pl_type_size(a.type);
    if (out.data != a.data)
        memmove(out.data, a.data, pl_tensor_count(&a) * esize);
    pl_slice_box(a.ndims, a.dims, start, u.dims, esize, out.data, u.data, true);
    return PL_OK;
}

const pl_registration *pl_dynamic_update_slice_registration(void)
{
    static const pl_registration r = {.name = "DYNAMIC_UPDATE_SLICE",
                                      .builtin_code = OP_DYNAMIC_UPDATE_SLICE,
                                      .prepare = prepare, .invoke = invoke};
    return &r;
}
