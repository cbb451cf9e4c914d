/* fill.c - FILL (TFLite fill.cc): a tensor of shape `dims` holding the scalar `value`.
**
** Any fixed-size element type; a quantized value must share the output's quantization (the
** bytes are copied, so only then do they mean the same number). dims is an INT32/INT64
** vector: a constant gives the shape at prepare, a computed one is checked at invoke. */
#include "fill.h"

#include <string.h>

#include "operand.h"
#include "picolite/pl_node_io.h"

enum { OP_FILL = 94 };

static pl_status check_value(pl_context *ctx, const pl_tensor *v, const pl_tensor *out)
{
    if (v->type != out->type || pl_type_size(v->type) == 0 || pl_tensor_count(v) != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "FILL: value must be one %s (got %s, %zu "
                         "elements)", pl_type_name(out->type), pl_type_name(v->type),
                         pl_tensor_count(v));
    if (v->q.count != out->q.count ||
        (v->q.count > 0 && (v->q.scale[0] != out->q.scale[0] ||
                            v->q.zero_point[0] != out->q.zero_point[0])))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "FILL: value is quantized unlike the "
                         "output");
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *dims, *value, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &dims, &value, &out));
    PL_TRY(check_value(ctx, value, out));
    if (!pl_operand_known(dims)) {
        if (!pl_operand_is_index(dims->type) || dims->ndims != 1)
            return ctx->fail(ctx, PL_ERR_MODEL, "FILL: dims must be a 1-D INT32 or INT64 "
                             "tensor");
        return ctx->set_shape(ctx, oi, out->ndims, out->dims);
    }
    int32_t ndims = 0, shape[PL_MAX_DIMS];
    PL_TRY(pl_operand_shape(ctx, "FILL", dims, &ndims, shape));
    PL_TRY(ctx->set_shape(ctx, oi, ndims, shape));
    return pl_operand_fold(ctx, node);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor dims, value, out;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &dims, &value, &out));
    int32_t ndims = 0, shape[PL_MAX_DIMS];
    PL_TRY(pl_operand_shape(ctx, "FILL", &dims, &ndims, shape));
    PL_TRY(pl_operand_check_out(ctx, "FILL", &out, ndims, shape));
    size_t esize = pl_type_size(out.type), n = pl_tensor_count(&out);
    for (size_t i = 0; i < n; i++)
        memcpy((uint8_t *)out.data + i * esize, value.data, esize);
    return PL_OK;
}

const pl_registration *pl_fill_registration(void)
{
    static const pl_registration r = {.name = "FILL", .builtin_code = OP_FILL,
                                      .prepare = prepare, .invoke = invoke};
    return &r;
}
