/* add_n.c - ADD_N (see add_n.h). */
#include "add_n.h"

#include "kernels/common/broadcast.h"

enum { OP_ADD_N = 106 };

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    int32_t o = pl_node_output(node, 0);
    if (node->inputs.n < 2 || node->outputs.n != 1 || o < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "needs at least 2 inputs and 1 output, got %u "
                         "and %u", (unsigned)node->inputs.n, (unsigned)node->outputs.n);
    pl_tensor *first = NULL, *t, *out;
    PL_TRY(ctx->get_tensor(ctx, o, &out));
    pl_type type = out->type;
    if (type != PL_FLOAT32 && type != PL_INT32)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "type %s is not supported",
                         pl_type_name(type));
    for (uint32_t i = 0; i < node->inputs.n; i++) {
        int32_t idx = pl_node_input(node, i);
        if (idx < 0)
            return ctx->fail(ctx, PL_ERR_MODEL, "input %u is absent", (unsigned)i);
        PL_TRY(ctx->get_tensor(ctx, idx, &t));
        if (t->type != type)
            return ctx->fail(ctx, PL_ERR_MODEL, "input %u is %s, output %s", (unsigned)i,
                             pl_type_name(t->type), pl_type_name(type));
        if (i == 0) {
            first = t;
            PL_TRY(ctx->set_shape(ctx, o, first->ndims, first->dims));
        } else if (!pl_bcast_same_dims(first, t)) {
            return ctx->fail(ctx, PL_ERR_MODEL, "input %u's shape differs from input 0's",
                             (unsigned)i);
        }
    }
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor out, in;
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    size_t n = pl_tensor_count(&out);
    for (uint32_t k = 0; k < node->inputs.n; k++) {
        PL_TRY(ctx->get_eval(ctx, pl_node_input(node, k), &in));
        if (pl_tensor_count(&in) != n)
            return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
        for (size_t i = 0; i < n; i++) {
            if (out.type == PL_FLOAT32) {
                float x = ((const float *)in.data)[i];
                ((float *)out.data)[i] = k == 0 ? x : ((float *)out.data)[i] + x;
            } else {
                uint32_t x = (uint32_t)((const int32_t *)in.data)[i];
                uint32_t acc = k == 0 ? 0u : (uint32_t)((int32_t *)out.data)[i];
                ((int32_t *)out.data)[i] = (int32_t)(acc + x);
            }
        }
    }
    return PL_OK;
}

const pl_registration *pl_add_n_registration(void)
{
    static const pl_registration r = {"ADD_N", OP_ADD_N, NULL, NULL, prepare, invoke, NULL};
    return &r;
}
