/* minmax.c - MINIMUM and MAXIMUM with broadcasting (TFLite maximum_minimum.cc).
**
** Elementwise selection only: quantized tensors are compared as stored integers, as TFLite
** does (its converter gives inputs and output one quantization). The comparisons are
** TFLite's (a > b ? a : b and a < b ? a : b), which decides what a NaN gives. */
#include "minmax.h"

#include <stdbool.h>

#include "kernels/common/broadcast.h"
#include "picolite/pl_node_io.h"

enum { OP_MAXIMUM = 55, OP_MINIMUM = 57 };

/* No op data: the broadcast walk is rebuilt from the eval dims at each invoke (a few dozen
** operations) rather than kept in the arena. */

#define PL_MINMAX_LOOP(T, bc, a, b, out, op)                                        \
    do {                                                                            \
        pl_bcast_iter it;                                                           \
        pl_bcast_begin(&it);                                                        \
        for (size_t i = 0; i < (bc)->count; i++, pl_bcast_next((bc), &it)) {       \
            T x = (a)[it.i1], y = (b)[it.i2];                                       \
            (out)[i] = (op) == OP_MAXIMUM ? (x > y ? x : y) : (x < y ? x : y);      \
        }                                                                           \
    } while (0)

void pl_minmax_f32(const pl_bcast *bc, bool maximum, const float *a, const float *b,
                   float *out)
{
    int op = maximum ? OP_MAXIMUM : OP_MINIMUM;
    PL_MINMAX_LOOP(float, bc, a, b, out, op);
}

void pl_minmax_s8(const pl_bcast *bc, bool maximum, const int8_t *a, const int8_t *b,
                  int8_t *out)
{
    int op = maximum ? OP_MAXIMUM : OP_MINIMUM;
    PL_MINMAX_LOOP(int8_t, bc, a, b, out, op);
}

void pl_minmax_s16(const pl_bcast *bc, bool maximum, const int16_t *a, const int16_t *b,
                   int16_t *out)
{
    int op = maximum ? OP_MAXIMUM : OP_MINIMUM;
    PL_MINMAX_LOOP(int16_t, bc, a, b, out, op);
}

static void run_other(const pl_bcast *bc, int op, pl_type type, const void *a, const void *b,
                      void *out)
{
    if (type == PL_INT32)
        PL_MINMAX_LOOP(int32_t, bc, (const int32_t *)a, (const int32_t *)b, (int32_t *)out, op);
    else if (type == PL_INT64)
        PL_MINMAX_LOOP(int64_t, bc, (const int64_t *)a, (const int64_t *)b, (int64_t *)out, op);
    else
        PL_MINMAX_LOOP(uint8_t, bc, (const uint8_t *)a, (const uint8_t *)b, (uint8_t *)out, op);
}

static bool supported(pl_type t)
{
    return t == PL_FLOAT32 || t == PL_INT8 || t == PL_INT16 || t == PL_INT32 ||
           t == PL_INT64 || t == PL_UINT8;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *t[3];
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &t[0], &t[1], &t[2]));
    if (t[1]->type != t[0]->type || t[2]->type != t[0]->type)
        return ctx->fail(ctx, PL_ERR_MODEL, "input types %s, %s and output type %s differ",
                         pl_type_name(t[0]->type), pl_type_name(t[1]->type),
                         pl_type_name(t[2]->type));
    if (!supported(t[0]->type))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "type %s is not supported",
                         pl_type_name(t[0]->type));
    PL_TRY(pl_bcast_set_output(ctx, t[0], t[1], t[2]));
    pl_bcast bc;
    pl_bcast_result br = pl_bcast_setup(&bc, t[0], t[1], t[2]);
    if (br == PL_BCAST_RANK)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "broadcasting above rank %d is not supported",
                         PL_BCAST_MAX_DIMS);
    if (br != PL_BCAST_OK)
        return ctx->fail(ctx, PL_ERR_MODEL, "output shape is not the broadcast of the inputs");
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor a, b, o;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &a, &b, &o));
    pl_bcast bc;
    if (pl_bcast_setup(&bc, &a, &b, &o) != PL_BCAST_OK)
        return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
    bool maximum = node->builtin_code == OP_MAXIMUM;
    if (o.type == PL_FLOAT32)
        pl_minmax_f32(&bc, maximum, a.data, b.data, o.data);
    else if (o.type == PL_INT8)
        pl_minmax_s8(&bc, maximum, a.data, b.data, o.data);
    else if (o.type == PL_INT16)
        pl_minmax_s16(&bc, maximum, a.data, b.data, o.data);
    else
        run_other(&bc, maximum ? OP_MAXIMUM : OP_MINIMUM, o.type, a.data, b.data, o.data);
    return PL_OK;
}

const pl_registration *pl_maximum_registration(void)
{
    static const pl_registration r = {.name = "MAXIMUM", .builtin_code = OP_MAXIMUM,
                                      .prepare = prepare, .invoke = invoke};
    return &r;
}

const pl_registration *pl_minimum_registration(void)
{
    static const pl_registration r = {.name = "MINIMUM", .builtin_code = OP_MINIMUM,
                                      .prepare = prepare, .invoke = invoke};
    return &r;
}
