/* shape_op.c - SHAPE (TFLite shape.cc): the input's dims as an INT32 or INT64 vector.
**
** The result depends only on the input's shape, never its data: prepare gives the output its
** shape [rank] and invoke writes the dims the input has then, so it follows a resized input
** (a Keras model's dynamic batch runs SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE). */
#include "shape_op.h"

#include <string.h>

#include "operand.h"
#include "picolite/pl_node_io.h"

enum { OP_SHAPE = 77 };

/* ShapeOptions field ids (schema.fbs). */
enum { OPT_OUT_TYPE = 0 };

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *in, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(1, 1), &in, &out));
    int32_t want = pl_table_i8(&node->options, OPT_OUT_TYPE, (int32_t)out->type);
    if ((out->type != PL_INT32 && out->type != PL_INT64) || want != (int32_t)out->type)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "SHAPE: output type %s (option out_type %s);"
                         " INT32 or INT64 are supported", pl_type_name(out->type),
                         pl_type_name(want));
    int32_t rank = in->ndims;
    PL_TRY(ctx->set_shape(ctx, oi, 1, &rank));
    return pl_operand_fold_dims(ctx, node);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    for (int32_t i = 0; i < in.ndims; i++) {
        if (out.type == PL_INT64) {
            int64_t v = in.dims[i];
            memcpy((uint8_t *)out.data + 8 * (size_t)i, &v, sizeof v);
        } else {
            ((int32_t *)out.data)[i] = in.dims[i];
        }
    }
    return PL_OK;
}

const pl_registration *pl_shape_registration(void)
{
    static const pl_registration r = {.name = "SHAPE", .builtin_code = OP_SHAPE,
                                      .prepare = prepare, .invoke = invoke};
    return &r;
}
