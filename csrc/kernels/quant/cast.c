/* cast.c - CAST between numeric types and BOOL (TFLite cast.cc: static_cast per element).
**
** Integer to integer wraps (two's complement); to BOOL is "!= 0"; float to integer
** truncates toward zero and saturates (NaN gives the maximum), as LiteRT does. */
#include "cast.h"
#include "picolite/pl_node_io.h"

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

/* float -> integer type t: truncated toward zero and saturated to t's range, NaN giving
** the maximum, which is what LiteRT's CAST returns (C leaves these undefined). */
static uint64_t float_to_int(double f, pl_type t)
{
    if (t == PL_INT64 || t == PL_UINT64) {
        bool u = t == PL_UINT64;
        double top = u ? 18446744073709551616.0 : 9223372036854775808.0;
        if (f != f || f >= top)
            return u ? UINT64_MAX : (uint64_t)INT64_MAX;
        if (u)
            return f <= 0.0 ? 0u : (uint64_t)f;
        return f <= -top ? (uint64_t)INT64_MIN : (uint64_t)(int64_t)f;
    }
    double lo = 0.0, hi = 0.0;
    switch (t) {
    case PL_INT8: lo = INT8_MIN; hi = INT8_MAX; break;
    case PL_UINT8: hi = UINT8_MAX; break;
    case PL_INT16: lo = INT16_MIN; hi = INT16_MAX; break;
    case PL_UINT16: hi = UINT16_MAX; break;
    case PL_INT32: lo = INT32_MIN; hi = INT32_MAX; break;
    default: hi = UINT32_MAX; break;
    }
    double c = f != f ? hi : f < lo ? lo : f > hi ? hi : f;
    return (uint64_t)(int64_t)c;
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
    uint64_t u = v->is_float ? float_to_int(v->f, t) : (uint64_t)v->i;
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
    pl_tensor *in, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(1, 1), &in, &out));
    if (!castable(in->type) || !castable(out->type))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "cast from %s to %s is not supported",
                         pl_type_name(in->type), pl_type_name(out->type));
    PL_TRY(pl_set_output_like(ctx, out, in));
    if (pl_tensor_count(in) != pl_tensor_count(out))
        return ctx->fail(ctx, PL_ERR_MODEL, "input has %zu elements, output %zu",
                         pl_tensor_count(in), pl_tensor_count(out));
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    pl_cast_copy(in.type, out.type, pl_tensor_count(&in), in.data, out.data);
    return PL_OK;
}

const pl_registration *pl_cast_registration(void)
{
    static const pl_registration r = {.name = "CAST", .builtin_code = OP_CAST,
                                      .prepare = prepare, .invoke = invoke};
    return &r;
}
