/* cast.c - CAST between numeric types and BOOL (TFLite cast.cc: static_cast per element).
**
** Integer to integer wraps (two's complement); to BOOL is "!= 0"; float to integer
** truncates toward zero. C leaves out-of-range float to integer undefined, so those give
** what x86 does for TFLite's build (the "integer indefinite" minimum of 32 or 64 bits, then
** narrowed), never undefined behaviour. */
#include "cast.h"

#include <stdbool.h>
#include <string.h>

enum { OP_CAST = 53 };

/* One element, widened: integers as int64 (uint64 keeps its bits), floats as double. */
typedef struct value {
    bool is_float;
    bool is_u64;
    int64_t i;
    double f;
} value;

static bool castable(pl_type t)
{
    return t == PL_FLOAT32 || t == PL_FLOAT64 || t == PL_INT8 || t == PL_UINT8 ||
           t == PL_INT16 || t == PL_UINT16 || t == PL_INT32 || t == PL_UINT32 ||
           t == PL_INT64 || t == PL_UINT64 || t == PL_BOOL;
}

static int64_t load_int(pl_type t, const uint8_t *p)
{
    uint64_t u = 0;
    size_t bytes = pl_type_size(t);
    for (size_t b = 0; b < bytes; b++)
        u |= (uint64_t)p[b] << (8 * b);
    bool is_signed = t == PL_INT8 || t == PL_INT16 || t == PL_INT32;
    if (is_signed && bytes < 8 && (u >> (8 * bytes - 1)) != 0)
        u |= ~(uint64_t)0 << (8 * bytes); /* sign-extend */
    return (int64_t)u;
}

static value load(pl_type t, const uint8_t *p)
{
    value v = {false, t == PL_UINT64, 0, 0.0};
    if (t == PL_FLOAT32) {
        float x;
        memcpy(&x, p, sizeof x);
        v.f = x;
        v.is_float = true;
    } else if (t == PL_FLOAT64) {
        memcpy(&v.f, p, sizeof v.f);
        v.is_float = true;
    } else {
        v.i = load_int(t, p);
    }
    return v;
}

/* float -> integer of `bits` bits, as x86 cvttsd2si does for TFLite's static_cast. */
static int64_t float_to_int(double f, int bits)
{
    if (bits == 64)
        return f > -9223372036854775808.0 - 1.0 && f < 9223372036854775808.0 ? (int64_t)f
                                                                           : INT64_MIN;
    if (bits == 33) /* uint32 goes through a 64-bit conversion */
        return float_to_int(f, 64);
    return f > -2147483649.0 && f < 2147483648.0 ? (int64_t)(int32_t)f : INT32_MIN;
}

static void store_float(pl_type t, const value *v, uint8_t *p)
{
    if (t == PL_FLOAT32) {
        /* one rounding from the source type, as a direct static_cast does */
        float x = v->is_float ? (float)v->f : v->is_u64 ? (float)(uint64_t)v->i : (float)v->i;
        memcpy(p, &x, 4);
    } else {
        double x = v->is_float ? v->f : v->is_u64 ? (double)(uint64_t)v->i : (double)v->i;
        memcpy(p, &x, 8);
    }
}

static void store(pl_type t, const value *v, uint8_t *p)
{
    if (t == PL_FLOAT32 || t == PL_FLOAT64) {
        store_float(t, v, p);
        return;
    }
    if (t == PL_BOOL) {
        p[0] = (uint8_t)(v->is_float ? v->f != 0.0 : v->i != 0);
        return;
    }
    size_t bytes = pl_type_size(t);
    int bits = t == PL_UINT32 ? 33 : (int)bytes * 8;
    uint64_t u = (uint64_t)(v->is_float ? float_to_int(v->f, bits) : v->i);
    for (size_t b = 0; b < bytes; b++) /* little-endian truncation = two's complement wrap */
        p[b] = (uint8_t)(u >> (8 * b));
}

void pl_cast_copy(pl_type from, pl_type to, size_t count, const void *in, void *out)
{
    size_t si = pl_type_size(from), so = pl_type_size(to);
    for (size_t i = 0; i < count; i++) {
        value v = load(from, (const uint8_t *)in + i * si);
        store(to, &v, (uint8_t *)out + i * so);
    }
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    int32_t ii = pl_node_input(node, 0), oi = pl_node_output(node, 0);
    if (node->inputs.n != 1 || node->outputs.n != 1 || ii < 0 || oi < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "needs 1 input and 1 output");
    pl_tensor *in, *out;
    PL_TRY(ctx->get_tensor(ctx, ii, &in));
    PL_TRY(ctx->get_tensor(ctx, oi, &out));
    if (!castable(in->type) || !castable(out->type))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "cast from %s to %s is not supported",
                         pl_type_name(in->type), pl_type_name(out->type));
    if (pl_tensor_count(in) != pl_tensor_count(out))
        return ctx->fail(ctx, PL_ERR_MODEL, "input has %zu elements, output %zu",
                         pl_tensor_count(in), pl_tensor_count(out));
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor in, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    pl_cast_copy(in.type, out.type, pl_tensor_count(&in), in.data, out.data);
    return PL_OK;
}

const pl_registration *pl_cast_registration(void)
{
    static const pl_registration r = {"CAST", OP_CAST, NULL, NULL, prepare, invoke, NULL};
    return &r;
}
