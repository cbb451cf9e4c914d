/* broadcast_args.c - BROADCAST_ARGS (TFLite broadcast_args.cc): the shape two shapes
** broadcast to, as a vector of their type (INT32 or INT64). Values are read at invoke, so
** computed shapes work; incompatible ones are refused then. */
#include "broadcast_to.h"

#include <string.h>

#include "operand.h"
#include "picolite/pl_node_io.h"

enum { OP_BROADCAST_ARGS = 145 };

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *a, *b, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &a, &b, &out));
    if (!pl_operand_is_index(a->type) || b->type != a->type || out->type != a->type ||
        a->ndims != 1 || b->ndims != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "BROADCAST_ARGS: inputs and output must be 1-D "
                         "INT32 or INT64 of one type (got %s, %s -> %s)",
                         pl_type_name(a->type), pl_type_name(b->type),
                         pl_type_name(out->type));
    int32_t n = a->dims[0] > b->dims[0] ? a->dims[0] : b->dims[0];
    PL_TRY(ctx->set_shape(ctx, oi, 1, &n));
    return pl_operand_fold(ctx, node);
}

static void store(const pl_tensor *out, size_t i, int64_t v)
{
    if (out->type == PL_INT64)
        memcpy((uint8_t *)out->data + 8 * i, &v, sizeof v);
    else
        ((int32_t *)out->data)[i] = (int32_t)v;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor a, b, out;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &a, &b, &out));
    int32_t n = out.dims[0];
    for (int32_t k = 0; k < n; k++) {
        /* right-aligned: entry k of the output pairs with a[k - (n - na)], b likewise */
        int32_t i = k - (n - a.dims[0]), j = k - (n - b.dims[0]);
        int64_t x = i >= 0 ? pl_operand_at(&a, (size_t)i) : 1;
        int64_t y = j >= 0 ? pl_operand_at(&b, (size_t)j) : 1;
        if (x != y && x != 1 && y != 1)
            return ctx->fail(ctx, PL_ERR_MODEL, "BROADCAST_ARGS: entry %d: %lld and %lld do not "
                             "broadcast", (int)k, (long long)x, (long long)y);
        store(&out, (size_t)k, x == 1 ? y : x);
    }
    return PL_OK;
}

const pl_registration *pl_broadcast_args_registration(void)
{
    static const pl_registration r = {.name = "BROADCAST_ARGS",
                                      .builtin_code = OP_BROADCAST_ARGS, .prepare = prepare,
                                      .invoke = invoke};
    return &r;
}
