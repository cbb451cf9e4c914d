/* gather.c - GATHER (TFLite gather.cc and reference Gather) for any fixed-size element type
** and 1-D STRING params (gather_string.c), INT16/INT32/INT64 indices, negative axis and
** batch_dims.
**
** Output shape: params[:axis] + indices[batch_dims:] + params[axis + 1:]. Indices are runtime
** data: every one is checked against the axis size before any copy, and an index outside
** 0..size - 1 fails the invoke naming it (TFLite fails too), never reading out of bounds. */
#include "gather.h"

#include <string.h>

#include "gather_string.h"
#include "kernels/shape/operand.h"
#include "picolite/pl_node_io.h"

enum { OP_GATHER = 36 };

/* GatherOptions field ids (schema.fbs). */
enum { OPT_AXIS = 0, OPT_BATCH_DIMS = 1 };

typedef pl_gather_op opdata;

static pl_status check_types(pl_context *ctx, const pl_tensor *p, const pl_tensor *idx,
                             const pl_tensor *out)
{
    if (p->type != out->type || (pl_type_size(p->type) == 0 && p->type != PL_STRING))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "GATHER: params type %s with output type %s "
                         "is not supported", pl_type_name(p->type), pl_type_name(out->type));
    if (p->type == PL_STRING && p->ndims != 1) /* as TFLite */
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "GATHER: STRING params must be 1-D, not of "
                         "rank %d", (int)p->ndims);
    if (!pl_operand_is_index(idx->type) && idx->type != PL_INT16)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "GATHER: indices must be INT16, INT32 or "
                         "INT64, not %s", pl_type_name(idx->type));
    if (p->q.count != out->q.count ||
        (p->q.count > 0 && (p->q.scale[0] != out->q.scale[0] ||
                            p->q.zero_point[0] != out->q.zero_point[0])))
        return ctx->fail(ctx, PL_ERR_MODEL, "GATHER: params and output quantization differ");
    return PL_OK;
}

/* Resolves axis and batch_dims as TFLite does and computes the output shape and loop sizes. */
static pl_status plan(pl_context *ctx, const pl_node *node, const pl_tensor *p,
                      const pl_tensor *idx, opdata *d, int32_t *ndims, int32_t *dims)
{
    int32_t axis = pl_table_i32(&node->options, OPT_AXIS, 0);
    int32_t bd = pl_table_i32(&node->options, OPT_BATCH_DIMS, 0);
    axis = axis < 0 ? axis + p->ndims : axis;
    bd = bd < 0 ? bd + idx->ndims : bd;
    if (axis < 0 || axis >= p->ndims || bd < 0 || bd > axis || bd > idx->ndims)
        return ctx->fail(ctx, PL_ERR_MODEL, "GATHER: axis %d and batch_dims %d are invalid for "
                         "params rank %d and indices rank %d",
                         (int)pl_table_i32(&node->options, OPT_AXIS, 0),
                         (int)pl_table_i32(&node->options, OPT_BATCH_DIMS, 0), (int)p->ndims,
                         (int)idx->ndims);
    *ndims = p->ndims + idx->ndims - 1 - bd;
    if (*ndims > PL_MAX_DIMS)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "GATHER: output rank %d (at most %d)",
                         (int)*ndims, PL_MAX_DIMS);
    d->batch = d->outer = d->inner = d->coords = 1;
    int32_t n = 0;
    for (int32_t i = 0; i < bd; i++) {
        if (p->dims[i] != idx->dims[i])
            return ctx->fail(ctx, PL_ERR_MODEL, "GATHER: batch dim %d: params %d, indices %d",
                             (int)i, (int)p->dims[i], (int)idx->dims[i]);
        d->batch *= (size_t)p->dims[i];
    }
    for (int32_t i = 0; i < axis; i++)
        dims[n++] = p->dims[i];
    for (int32_t i = bd; i < axis; i++)
        d->outer *= (size_t)p->dims[i];
    for (int32_t i = bd; i < idx->ndims; i++) {
        dims[n++] = idx->dims[i];
        d->coords *= (size_t)idx->dims[i];
    }
    for (int32_t i = axis + 1; i < p->ndims; i++) {
        dims[n++] = p->dims[i];
        d->inner *= (size_t)p->dims[i];
    }
    d->axis_size = p->dims[axis];
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *p, *idx, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &p, &idx, &out));
    PL_TRY(check_types(ctx, p, idx, out));
    int32_t ndims = 0, dims[PL_MAX_DIMS];
    PL_TRY(plan(ctx, node, p, idx, node->user_data, &ndims, dims));
    PL_TRY(ctx->set_shape(ctx, oi, ndims, dims));
    return pl_operand_fold(ctx, node);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const opdata *d = node->user_data;
    pl_tensor p, idx, out;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &p, &idx, &out));
    size_t n = d->batch * d->coords;
    for (size_t k = 0; k < n; k++) {
        int64_t v = pl_operand_at(&idx, k);
        if (v < 0 || v >= d->axis_size)
            return ctx->fail(ctx, PL_ERR_ARG, "GATHER: index %lld (element %zu of the indices)"
                             " is outside 0..%d", (long long)v, k, (int)d->axis_size - 1);
    }
    if (p.type == PL_STRING)
        return pl_gather_strings(ctx, &p, &idx, &out, n);
    size_t row = d->inner * pl_type_size(p.type), o = 0;
    const uint8_t *src = p.data;
    for (size_t b = 0; b < d->batch; b++)
        for (size_t r = 0; r < d->outer; r++)
            for (size_t c = 0; c < d->coords; c++, o++) {
                size_t at = (b * d->outer + r) * (size_t)d->axis_size +
                            (size_t)pl_operand_at(&idx, b * d->coords + c);
                memcpy((uint8_t *)out.data + o * row, src + at * row, row);
            }
    return PL_OK;
}

const pl_registration *pl_gather_registration(void)
{
    static const pl_registration r = {.name = "GATHER", .builtin_code = OP_GATHER,
                                      .prepare = prepare, .invoke = invoke,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}
