/* logical.c - LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT (see logical.h).
**
** bool tensors hold one byte per element; any non-zero byte reads as true, as C++'s bool
** loads do on TFLite's platforms, and results are stored as 0 or 1. */
#include "logical.h"

#include "kernels/elementwise/binary.h"

enum { OP_LOGICAL_OR = 84, OP_LOGICAL_AND = 86, OP_LOGICAL_NOT = 87 };

static pl_status prepare_binary(pl_context *ctx, pl_node *node)
{
    pl_tensor *t[3];
    PL_TRY(pl_binary_prepare(ctx, node, t));
    if (t[0]->type != PL_BOOL || t[1]->type != PL_BOOL || t[2]->type != PL_BOOL)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "inputs %s and %s, output %s: needs bool",
                         pl_type_name(t[0]->type), pl_type_name(t[1]->type),
                         pl_type_name(t[2]->type));
    return PL_OK;
}

static pl_status invoke_binary(pl_context *ctx, pl_node *node)
{
    pl_tensor t[3];
    pl_bcast bc;
    PL_TRY(pl_binary_eval(ctx, node, t, &bc));
    const uint8_t *a = t[0].data, *b = t[1].data;
    uint8_t *out = t[2].data;
    bool is_and = node->builtin_code == OP_LOGICAL_AND;
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc.count; i++, pl_bcast_next(&bc, &it)) {
        bool x = a[it.i1] != 0, y = b[it.i2] != 0;
        out[i] = (uint8_t)(is_and ? (x && y) : (x || y));
    }
    return PL_OK;
}

static pl_status prepare_not(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *out;
    PL_TRY(pl_unary_prepare(ctx, node, &in, &out));
    if (in->type != PL_BOOL || out->type != PL_BOOL)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "input %s, output %s: needs bool",
                         pl_type_name(in->type), pl_type_name(out->type));
    return PL_OK;
}

static pl_status invoke_not(pl_context *ctx, pl_node *node)
{
    pl_tensor in, out;
    size_t n;
    PL_TRY(pl_unary_eval(ctx, node, &in, &out, &n));
    const uint8_t *x = in.data;
    uint8_t *y = out.data;
    for (size_t i = 0; i < n; i++)
        y[i] = (uint8_t)(x[i] == 0);
    return PL_OK;
}

const pl_registration *pl_logical_and_registration(void)
{
    static const pl_registration r = {.name = "LOGICAL_AND", .builtin_code = OP_LOGICAL_AND,
                                      .prepare = prepare_binary, .invoke = invoke_binary};
    return &r;
}

const pl_registration *pl_logical_or_registration(void)
{
    static const pl_registration r = {.name = "LOGICAL_OR", .builtin_code = OP_LOGICAL_OR,
                                      .prepare = prepare_binary, .invoke = invoke_binary};
    return &r;
}

const pl_registration *pl_logical_not_registration(void)
{
    static const pl_registration r = {.name = "LOGICAL_NOT", .builtin_code = OP_LOGICAL_NOT,
                                      .prepare = prepare_not, .invoke = invoke_not};
    return &r;
}
