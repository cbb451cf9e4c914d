/* reduce_extreme.c - REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, REDUCE_ALL and REDUCE_ANY as
** LiteRT's reference ReduceGeneric computes them: each output starts at the reducer's identity
** (lowest / highest value of the type, 1, true, false) and folds its inputs in input order.
**
** MAX/MIN: FLOAT32, INT8, UINT8, INT16, INT32, INT64; quantized input and output must share
** scale and zero point (the raw values are compared and copied, as TFLite requires). A NaN
** never replaces the running value (TFLite's `in > current ? in : current`). PROD: FLOAT32,
** INT32, INT64 (integers wrap); its quantized form rescales and is not supported. ALL/ANY:
** BOOL. Integer outputs fold at prepare (shape arithmetic of a resized model). */
#include "reduce.h"

#include <float.h>
#include <stdbool.h>
#include <string.h>

#include "kernels/shape/operand.h"
#include "picolite/pl_node_io.h"

enum { OP_REDUCE_PROD = 81, OP_REDUCE_MAX = 82, OP_REDUCE_MIN = 89, OP_REDUCE_ANY = 91,
       OP_REDUCE_ALL = 140 };

typedef pl_reduce_extreme_op op_data; /* reduce_fast.h: the host fast path reads it */

static bool supported(int32_t op, pl_type t)
{
    if (op == OP_REDUCE_ALL || op == OP_REDUCE_ANY)
        return t == PL_BOOL;
    if (op == OP_REDUCE_PROD)
        return t == PL_FLOAT32 || t == PL_INT32 || t == PL_INT64;
    return t == PL_FLOAT32 || t == PL_INT8 || t == PL_UINT8 || t == PL_INT16 ||
           t == PL_INT32 || t == PL_INT64;
}

static pl_status prepare(pl_context *ctx, pl_node *node, const char *name, int32_t op)
{
    op_data *d = node->user_data;
    pl_tensor *in, *out;
    PL_TRY(pl_reduce_plan(ctx, node, name, &in, &out, &d->p));
    if (!supported(op, in->type))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: input type %s is not supported", name,
                         pl_type_name(in->type));
    if (in->q.count != out->q.count ||
        (in->q.count > 0 && (in->q.scale[0] != out->q.scale[0] ||
                             in->q.zero_point[0] != out->q.zero_point[0])))
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: input and output quantization differ", name);
    return pl_operand_fold(ctx, node);
}

static pl_status prepare_max(pl_context *ctx, pl_node *node)
{
    return prepare(ctx, node, "REDUCE_MAX", OP_REDUCE_MAX);
}

static pl_status prepare_min(pl_context *ctx, pl_node *node)
{
    return prepare(ctx, node, "REDUCE_MIN", OP_REDUCE_MIN);
}

static pl_status prepare_prod(pl_context *ctx, pl_node *node)
{
    return prepare(ctx, node, "REDUCE_PROD", OP_REDUCE_PROD);
}

static pl_status prepare_all(pl_context *ctx, pl_node *node)
{
    return prepare(ctx, node, "REDUCE_ALL", OP_REDUCE_ALL);
}

static pl_status prepare_any(pl_context *ctx, pl_node *node)
{
    return prepare(ctx, node, "REDUCE_ANY", OP_REDUCE_ANY);
}

/* Fills out[0..n) with init, then folds each input x into its slot with `x OP cur`. */
#define FOLD(T, p, in, out, init, OP)                                              \
    do {                                                                           \
        const T *x_ = (const T *)(in);                                             \
        T *o_ = (T *)(out);                                                        \
        for (size_t k_ = 0; k_ < (p)->out_count; k_++)                             \
            o_[k_] = (init);                                                       \
        PL_REDUCE_FOR_EACH(p, o_[slot] = x_[i] OP o_[slot] ? x_[i] : o_[slot]);    \
    } while (0)

static void extreme(const pl_reduce_params *p, pl_type t, const void *in, void *out,
                    bool is_max)
{
    switch (t) {
    case PL_FLOAT32:
        if (is_max)
            FOLD(float, p, in, out, -FLT_MAX, >);
        else
            FOLD(float, p, in, out, FLT_MAX, <);
        break;
    case PL_INT8:
        if (is_max)
            FOLD(int8_t, p, in, out, INT8_MIN, >);
        else
            FOLD(int8_t, p, in, out, INT8_MAX, <);
        break;
    case PL_UINT8:
        if (is_max)
            FOLD(uint8_t, p, in, out, 0, >);
        else
            FOLD(uint8_t, p, in, out, UINT8_MAX, <);
        break;
    case PL_INT16:
        if (is_max)
            FOLD(int16_t, p, in, out, INT16_MIN, >);
        else
            FOLD(int16_t, p, in, out, INT16_MAX, <);
        break;
    case PL_INT32:
        if (is_max)
            FOLD(int32_t, p, in, out, INT32_MIN, >);
        else
            FOLD(int32_t, p, in, out, INT32_MAX, <);
        break;
    default:
        if (is_max)
            FOLD(int64_t, p, in, out, INT64_MIN, >);
        else
            FOLD(int64_t, p, in, out, INT64_MAX, <);
        break;
    }
}

/* Products from 1; integers wrap as TFLite's (two's complement) multiplication does. */
static void product(const pl_reduce_params *p, pl_type t, const void *in, void *out)
{
    if (t == PL_FLOAT32) {
        const float *x = in;
        float *o = out;
        for (size_t k = 0; k < p->out_count; k++)
            o[k] = 1.0f;
        PL_REDUCE_FOR_EACH(p, o[slot] *= x[i]);
    } else if (t == PL_INT32) {
        const int32_t *x = in;
        uint32_t *o = out;
        for (size_t k = 0; k < p->out_count; k++)
            o[k] = 1u;
        PL_REDUCE_FOR_EACH(p, o[slot] *= (uint32_t)x[i]);
    } else {
        uint64_t *o = out;
        for (size_t k = 0; k < p->out_count; k++)
            o[k] = 1u;
        PL_REDUCE_FOR_EACH(p, o[slot] *= (uint64_t)pl_load_i64(in, i));
    }
}

/* ALL starts true and ANY false; a BOOL byte is 0 or not. */
static void logical(const pl_reduce_params *p, const uint8_t *in, uint8_t *out, bool all)
{
    memset(out, all ? 1 : 0, p->out_count);
    if (all)
        PL_REDUCE_FOR_EACH(p, out[slot] = out[slot] && in[i]);
    else
        PL_REDUCE_FOR_EACH(p, out[slot] = out[slot] || in[i]);
}

static pl_status invoke(pl_context *ctx, pl_node *node, int32_t op)
{
    const op_data *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    if (op == OP_REDUCE_PROD)
        product(&d->p, in.type, in.data, out.data);
    else if (op == OP_REDUCE_ALL || op == OP_REDUCE_ANY)
        logical(&d->p, in.data, out.data, op == OP_REDUCE_ALL);
    else
        extreme(&d->p, in.type, in.data, out.data, op == OP_REDUCE_MAX);
    return PL_OK;
}

static pl_status invoke_max(pl_context *ctx, pl_node *node)
{
    return invoke(ctx, node, OP_REDUCE_MAX);
}

static pl_status invoke_min(pl_context *ctx, pl_node *node)
{
    return invoke(ctx, node, OP_REDUCE_MIN);
}

static pl_status invoke_prod(pl_context *ctx, pl_node *node)
{
    return invoke(ctx, node, OP_REDUCE_PROD);
}

static pl_status invoke_all(pl_context *ctx, pl_node *node)
{
    return invoke(ctx, node, OP_REDUCE_ALL);
}

static pl_status invoke_any(pl_context *ctx, pl_node *node)
{
    return invoke(ctx, node, OP_REDUCE_ANY);
}

const pl_registration *pl_reduce_max_registration(void)
{
    static const pl_registration r = {.name = "REDUCE_MAX", .builtin_code = OP_REDUCE_MAX,
                                      .prepare = prepare_max, .invoke = invoke_max,
                                      .user_data_size = sizeof(op_data)};
    return &r;
}

const pl_registration *pl_reduce_min_registration(void)
{
    static const pl_registration r = {.name = "REDUCE_MIN", .builtin_code = OP_REDUCE_MIN,
                                      .prepare = prepare_min, .invoke = invoke_min,
                                      .user_data_size = sizeof(op_data)};
    return &r;
}

const pl_registration *pl_reduce_prod_registration(void)
{
    static const pl_registration r = {.name = "REDUCE_PROD", .builtin_code = OP_REDUCE_PROD,
                                      .prepare = prepare_prod, .invoke = invoke_prod,
                                      .user_data_size = sizeof(op_data)};
    return &r;
}

const pl_registration *pl_reduce_all_registration(void)
{
    static const pl_registration r = {.name = "REDUCE_ALL", .builtin_code = OP_REDUCE_ALL,
                                      .prepare = prepare_all, .invoke = invoke_all,
                                      .user_data_size = sizeof(op_data)};
    return &r;
}

const pl_registration *pl_reduce_any_registration(void)
{
    static const pl_registration r = {.name = "REDUCE_ANY", .builtin_code = OP_REDUCE_ANY,
                                      .prepare = prepare_any, .invoke = invoke_any,
                                      .user_data_size = sizeof(op_data)};
    return &r;
}
