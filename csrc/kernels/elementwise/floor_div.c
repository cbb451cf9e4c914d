/* floor_div.c - FLOOR_DIV, FLOOR_MOD (see floor_div.h). */
#include "floor_div.h"

#include <math.h>

#include "kernels/elementwise/binary.h"

enum { OP_FLOOR_DIV = 90, OP_FLOOR_MOD = 95 };

int32_t pl_floor_div_s32(int32_t a, int32_t b)
{
    if (b == -1) /* INT32_MIN / -1 would trap: its 2^31 wraps to INT32_MIN */
        return (int32_t)(0u - (uint32_t)a);
    int32_t q = a / b, r = a % b; /* C truncates toward zero */
    return r != 0 && ((r < 0) != (b < 0)) ? q - 1 : q;
}

int64_t pl_floor_mod_s64(int64_t a, int64_t b)
{
    int64_t m = b == -1 ? 0 : a % b; /* INT64_MIN % -1 would trap */
    return m != 0 && ((b < 0) != (m < 0)) ? m + b : m;
}

float pl_floor_mod_f32(float a, float b)
{
    float m = fmodf(a, b);
    return m != 0.0f && ((b < 0.0f) != (m < 0.0f)) ? m + b : m;
}

static int64_t load_int(pl_type t, const void *p, size_t i)
{
    switch (t) {
    case PL_INT8: return ((const int8_t *)p)[i];
    case PL_INT16: return ((const int16_t *)p)[i];
    case PL_INT32: return ((const int32_t *)p)[i];
    default: return pl_load_i64(p, i);
    }
}

/* Stores the low bits of v, as the C++ casts to the narrow type do. */
static void store_int(pl_type t, void *p, size_t i, int64_t v)
{
    switch (t) {
    case PL_INT8: ((int8_t *)p)[i] = (int8_t)(uint8_t)(uint64_t)v; break;
    case PL_INT16: ((int16_t *)p)[i] = (int16_t)(uint16_t)(uint64_t)v; break;
    case PL_INT32: ((int32_t *)p)[i] = (int32_t)(uint32_t)(uint64_t)v; break;
    default: ((int64_t *)p)[i] = v; break;
    }
}

static bool supported(int32_t op, pl_type t)
{
    return t == PL_FLOAT32 || t == PL_INT8 || t == PL_INT16 || t == PL_INT32 ||
           (op == OP_FLOOR_MOD && t == PL_INT64);
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *t[3];
    PL_TRY(pl_binary_prepare(ctx, node, t));
    if (t[1]->type != t[0]->type || t[2]->type != t[0]->type)
        return ctx->fail(ctx, PL_ERR_MODEL, "input types %s, %s and output type %s differ",
                         pl_type_name(t[0]->type), pl_type_name(t[1]->type),
                         pl_type_name(t[2]->type));
    if (!supported(node->builtin_code, t[0]->type))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "type %s is not supported",
                         pl_type_name(t[0]->type));
    return PL_OK;
}

/* LiteRT checks every divisor first: FLOOR_DIV for every type, FLOOR_MOD for integers. */
static pl_status check_divisor(pl_context *ctx, int32_t op, const pl_tensor *b)
{
    size_t n = pl_tensor_count(b);
    for (size_t i = 0; i < n; i++) {
        bool zero = b->type == PL_FLOAT32 ? (op == OP_FLOOR_DIV &&
                                             ((const float *)b->data)[i] == 0.0f)
                                          : load_int(b->type, b->data, i) == 0;
        if (zero)
            return ctx->fail(ctx, PL_ERR_ARG, "division by 0 (divisor element %zu)", i);
    }
    return PL_OK;
}

static void run_f32(int32_t op, const pl_bcast *bc, const float *a, const float *b, float *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = op == OP_FLOOR_DIV ? (float)floor((double)a[it.i1] / (double)b[it.i2])
                                    : pl_floor_mod_f32(a[it.i1], b[it.i2]);
}

static void run_int(int32_t op, pl_type t, const pl_bcast *bc, const void *a, const void *b,
                    void *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it)) {
        int64_t x = load_int(t, a, it.i1), y = load_int(t, b, it.i2);
        store_int(t, out, i, op == OP_FLOOR_DIV ? pl_floor_div_s32((int32_t)x, (int32_t)y)
                                                : pl_floor_mod_s64(x, y));
    }
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor t[3];
    pl_bcast bc;
    PL_TRY(pl_binary_eval(ctx, node, t, &bc));
    PL_TRY(check_divisor(ctx, node->builtin_code, &t[1]));
    if (t[0].type == PL_FLOAT32)
        run_f32(node->builtin_code, &bc, t[0].data, t[1].data, t[2].data);
    else
        run_int(node->builtin_code, t[0].type, &bc, t[0].data, t[1].data, t[2].data);
    return PL_OK;
}

const pl_registration *pl_floor_div_registration(void)
{
    static const pl_registration r = {.name = "FLOOR_DIV", .builtin_code = OP_FLOOR_DIV,
                                      .prepare = prepare, .invoke = invoke};
    return &r;
}

const pl_registration *pl_floor_mod_registration(void)
{
    static const pl_registration r = {.name = "FLOOR_MOD", .builtin_code = OP_FLOOR_MOD,
                                      .prepare = prepare, .invoke = invoke};
    return &r;
}
