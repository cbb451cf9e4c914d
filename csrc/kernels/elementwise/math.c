/* math.c - the unary math ops (see math.h). */
#include "math.h"

#include <math.h>
#include <string.h>

#include "kernels/common/registration.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/common/invsqrt.h"
#include "kernels/common/lut.h"
#include "kernels/common/lut_f32.h"
#include "kernels/elementwise/binary.h"

enum {
    OP_FLOOR = 8, OP_EXP = 47, OP_NEG = 59, OP_SIN = 66, OP_LOG = 73, OP_SQRT = 75,
    OP_RSQRT = 76, OP_SQUARE = 92, OP_ZEROS_LIKE = 93, OP_CEIL = 104, OP_COS = 108,
    OP_ROUND = 116
};

typedef struct op_data {
    pl_type type;
    int32_t input_zp, output_zp;
    float input_scale, output_scale;
    int32_t multiplier, shift;
    bool rsqrt_fixed;         /* int16 RSQRT as TFLM: int8's integer path, not the table */
    PL_SLOT(int8_t *, table); /* int8 EXP, LOG: the 256-entry table */
    pl_lut_f32 t16; /* int16 EXP, LOG, RSQRT: the table's description */
    float param;    /* and its transform's parameter */
} op_data;

float pl_math_round_f32(float x)
{
    float lo = floorf(x), diff = x - lo;
    if (diff < 0.5f || (diff == 0.5f && fmodf(lo, 2.0f) == 0.0f))
        return lo;
    return lo + 1.0f;
}

/* The reference's integer RSQRT of one value, clamped to [lo, hi]. */
static int32_t rsqrt_q(int32_t q, int32_t input_zp, int32_t output_zp, int32_t multiplier,
                       int32_t shift, int32_t lo, int32_t hi)
{
    const int32_t value = q - input_zp, keep = 20; /* TFLite's kShift keeps it integral */
    if (value == 0)
        return hi; /* a value near 0 stands for the largest output */
    int32_t m, s;
    pl_invsqrt_multiplier(value, -1, &m, &s);
    int32_t data = pl_fx_mul_by_qm(1, m, s + keep);
    int32_t out = pl_fx_mul_by_qm(data, multiplier, shift - keep) + output_zp;
    return pl_fx_clamp(out, lo, hi);
}

int8_t pl_math_rsqrt_s8(int32_t q, int32_t input_zp, int32_t output_zp, int32_t multiplier,
                        int32_t shift)
{
    return (int8_t)rsqrt_q(q, input_zp, output_zp, multiplier, shift, INT8_MIN, INT8_MAX);
}

void pl_math_rsqrt_s8_table(const pl_node *node, uint8_t table[256], int32_t *least)
{
    const op_data *d = node->user_data;
    for (int32_t q = INT8_MIN; q <= INT8_MAX; q++)
        table[(uint8_t)(int8_t)q] =
            q < d->input_zp ? 0
                            : (uint8_t)pl_math_rsqrt_s8(q, d->input_zp, d->output_zp,
                                                        d->multiplier, d->shift);
    *least = d->input_zp;
}

float pl_math_floor_f32(float x) { return floorf(x); }
float pl_math_ceil_f32(float x) { return ceilf(x); }
static float f_cos(float x) { return cosf(x); }
static float f_sin(float x) { return sinf(x); }
static float f_exp(float x) { return expf(x); }
static float f_log(float x) { return logf(x); }
static float f_sqrt(float x) { return sqrtf(x); }
static float f_rsqrt(float x) { return 1.0f / sqrtf(x); }
static float f_square(float x) { return x * x; }
static float f_neg(float x) { return -x; }
static float f_zero(float x) { (void)x; return 0.0f; }
/* LiteRT's LOG table maps x <= 0 to the output's minimum; -FLT_MAX clamps the same way. */
static float f_log_or_min(float x) { return x <= 0.0f ? -3.40282347e38f : logf(x); }

/* The int16 tables' transforms with their parameter (LiteRT elementwise.cc, exp.cc). */
static float t_exp(float x, float unused) { (void)unused; return expf(x); }
static float t_log(float x, float output_min) { return x <= 0.0f ? output_min : logf(x); }
static float t_rsqrt(float x, float output_scale)
{
    return x <= 0.0f ? 32767.0f * output_scale : 1.0f / sqrtf(x);
}

static float (*float_fn(int32_t op))(float)
{
    switch (op) {
    case OP_FLOOR: return pl_math_floor_f32;
    case OP_CEIL: return pl_math_ceil_f32;
    case OP_ROUND: return pl_math_round_f32;
    case OP_COS: return f_cos;
    case OP_SIN: return f_sin;
    case OP_EXP: return f_exp;
    case OP_LOG: return f_log;
    case OP_SQRT: return f_sqrt;
    case OP_RSQRT: return f_rsqrt;
    case OP_SQUARE: return f_square;
    case OP_NEG: return f_neg;
    default: return f_zero;
    }
}

static bool supported(int32_t op, pl_type t)
{
    if (t == PL_FLOAT32)
        return true;
    switch (op) {
    case OP_EXP:
    case OP_LOG:
    case OP_RSQRT:
    case OP_SQRT:
        return t == PL_INT8 || t == PL_INT16;
    case OP_NEG:
        return t == PL_INT8 || t == PL_INT16 || t == PL_INT32 || t == PL_INT64;
    case OP_ZEROS_LIKE:
        return t == PL_INT8 || t == PL_INT32 || t == PL_INT64;
    default:
        return false;
    }
}

/* The quantized paths: int8/int16 of every op but NEG (which negates stored integers) and
** ZEROS_LIKE (which stores 0s, as TFLM's int8 kernel). */
static bool is_quantized_path(int32_t op, pl_type t)
{
    return op != OP_NEG && op != OP_ZEROS_LIKE && (t == PL_INT8 || t == PL_INT16);
}

static pl_lut_f32_fn table_fn(int32_t op)
{
    return op == OP_EXP ? t_exp : op == OP_LOG ? t_log : t_rsqrt;
}

static pl_status prepare_table_s16(pl_context *ctx, int32_t op, op_data *d)
{
    pl_lut_f32_init(&d->t16, d->input_scale, 0, d->output_scale, 0);
    if (!isfinite(d->t16.step) || !isfinite(d->t16.inv) || !(d->t16.inv > 0.0f))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "scales %g and %g leave no finite int16 "
                         "table", (double)d->input_scale, (double)d->output_scale);
    /* LOG's output minimum is a float product of int and scale, as in LogLUTPrepare */
    d->param = op == OP_LOG ? (float)(-32768 - d->output_zp) * d->output_scale
                            : d->output_scale;
    return PL_OK;
}

static pl_status prepare_quant(pl_context *ctx, int32_t op, const pl_tensor *in,
                               const pl_tensor *out, op_data *d)
{
    if (in->q.count == 0 || out->q.count == 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s input and output need a quantization",
                         pl_type_name(in->type));
    d->input_scale = in->q.scale[0];
    d->output_scale = out->q.scale[0];
    d->input_zp = in->q.zero_point[0];
    d->output_zp = out->q.zero_point[0];
    if (!(d->input_scale > 0.0f) || !(d->output_scale > 0.0f) ||
        !isfinite(d->input_scale) || !isfinite(d->output_scale))
        return ctx->fail(ctx, PL_ERR_MODEL, "scales %g and %g must be positive and finite",
                         (double)d->input_scale, (double)d->output_scale);
    int32_t lo = in->type == PL_INT8 ? INT8_MIN : 0, hi = in->type == PL_INT8 ? INT8_MAX : 0;
    if (d->input_zp < lo || d->input_zp > hi || d->output_zp < lo || d->output_zp > hi)
        return ctx->fail(ctx, PL_ERR_MODEL, "zero points %d and %d out of [%d, %d]",
                         (int)d->input_zp, (int)d->output_zp, (int)lo, (int)hi);
    /* TFLM's int16 RSQRT runs int8's integer path; LiteRT's interpolates a table */
    d->rsqrt_fixed = op == OP_RSQRT && in->type == PL_INT16 && ctx->arith != PL_ARITH_LITERT;
    if (in->type == PL_INT16 && !d->rsqrt_fixed)
        return op == OP_SQRT ? PL_OK : prepare_table_s16(ctx, op, d);
    if (d->table == NULL && (op == OP_EXP || op == OP_LOG)) /* only int8 tables cost bytes */
        PL_TRY(ctx->alloc_persistent(ctx, 256, (void **)&d->table));
    if (op == OP_EXP)
        pl_lut_populate_s8(d->input_scale, d->input_zp, d->output_scale, d->output_zp, f_exp,
                           d->table);
    else if (op == OP_LOG)
        pl_lut_populate_s8(d->input_scale, d->input_zp, d->output_scale, d->output_zp,
                           f_log_or_min, d->table);
    else if (op == OP_RSQRT) /* float sqrt and product, or all in double (the wheel's) */
        pl_fx_quantize_multiplier(
            pl_fx_pick(pl_arith_wide(ctx->arith),
                       1. / (sqrt((double)d->input_scale) * (double)d->output_scale),
                       1. / (double)(sqrtf(d->input_scale) * d->output_scale)),
            &d->multiplier, &d->shift);
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    int32_t op = node->builtin_code;
    pl_tensor *in, *out;
    PL_TRY(pl_unary_prepare(ctx, node, &in, &out));
    if (out->type != in->type || !supported(op, in->type))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "input %s, output %s is not supported",
                         pl_type_name(in->type), pl_type_name(out->type));
    d->type = in->type;
    return is_quantized_path(op, in->type) ? prepare_quant(ctx, op, in, out, d) : PL_OK;
}

static void run_f32(int32_t op, const float *in, float *out, size_t n)
{
    float (*fn)(float) = float_fn(op);
    for (size_t i = 0; i < n; i++)
        out[i] = fn(in[i]);
}

/* NEG and ZEROS_LIKE on stored integers; negation wraps (-(-128) is -128). */
static void run_int(int32_t op, pl_type t, const void *in, void *out, size_t n)
{
    if (op == OP_ZEROS_LIKE) {
        memset(out, 0, n * pl_type_size(t));
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (t == PL_INT8)
            ((int8_t *)out)[i] = (int8_t)(uint8_t)(0u - (uint32_t)((const int8_t *)in)[i]);
        else if (t == PL_INT16)
            ((int16_t *)out)[i] = (int16_t)(uint16_t)(0u - (uint32_t)((const int16_t *)in)[i]);
        else if (t == PL_INT32)
            ((int32_t *)out)[i] = (int32_t)(0u - (uint32_t)((const int32_t *)in)[i]);
        else
            ((int64_t *)out)[i] = (int64_t)(0u - (uint64_t)pl_load_i64(in, i));
    }
}

/* LiteRT SqrtEvalQuantized: float sqrt of the dequantized value, truncated. */
static pl_status run_sqrt_q(pl_context *ctx, const op_data *d, const void *in, void *out,
                            size_t n)
{
    int32_t lo = d->type == PL_INT8 ? INT8_MIN : INT16_MIN;
    int32_t hi = d->type == PL_INT8 ? INT8_MAX : INT16_MAX;
    for (size_t i = 0; i < n; i++) {
        int32_t q = d->type == PL_INT8 ? ((const int8_t *)in)[i] : ((const int16_t *)in)[i];
        float x = d->input_scale * (float)(q - d->input_zp);
        if (!(x >= 0.0f))
            return ctx->fail(ctx, PL_ERR_ARG, "SQRT of a negative value (element %zu, %d)",
                             i, (int)q);
        float y = sqrtf(x) / d->output_scale;
        int32_t v = y < 1.0e6f ? (int32_t)y : 1000000; /* clamped below anyway */
        v = pl_fx_clamp(v + d->output_zp, lo, hi);
        if (d->type == PL_INT8)
            ((int8_t *)out)[i] = (int8_t)v;
        else
            ((int16_t *)out)[i] = (int16_t)v;
    }
    return PL_OK;
}

static pl_status run_s8(pl_context *ctx, int32_t op, const op_data *d, const int8_t *in,
                        int8_t *out, size_t n)
{
    if (op == OP_SQRT)
        return run_sqrt_q(ctx, d, in, out, n);
    for (size_t i = 0; i < n; i++) {
        if (op != OP_RSQRT) {
            out[i] = d->table[(uint8_t)in[i]];
            continue;
        }
        if (in[i] < d->input_zp)
            return ctx->fail(ctx, PL_ERR_ARG, "RSQRT of a negative value (element %zu, %d "
                             "below zero point %d)", i, (int)in[i], (int)d->input_zp);
        out[i] = pl_math_rsqrt_s8(in[i], d->input_zp, d->output_zp, d->multiplier, d->shift);
    }
    return PL_OK;
}

/* int16 EXP, LOG, RSQRT: LUTLookup, its two entries computed per value (see lut_f32.h);
** RSQRT refuses negative inputs first, as LiteRT. */
static pl_status run_table_s16(pl_context *ctx, int32_t op, const op_data *d,
                               const int16_t *in, int16_t *out, size_t n)
{
    for (size_t i = 0; op == OP_RSQRT && i < n; i++) {
        if (in[i] < 0)
            return ctx->fail(ctx, PL_ERR_ARG, "RSQRT of a negative value (element %zu, %d)",
                             i, (int)in[i]);
    }
    if (d->rsqrt_fixed) {
        for (size_t i = 0; i < n; i++)
            out[i] = (int16_t)rsqrt_q(in[i], 0, 0, d->multiplier, d->shift, INT16_MIN,
                                      INT16_MAX);
        return PL_OK;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = pl_lut_f32_lookup(&d->t16, table_fn(op), d->param, in[i]);
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    int32_t op = node->builtin_code;
    pl_tensor in, out;
    size_t n;
    PL_TRY(pl_unary_eval(ctx, node, &in, &out, &n));
    if (d->type == PL_FLOAT32)
        run_f32(op, in.data, out.data, n);
    else if (!is_quantized_path(op, d->type))
        run_int(op, d->type, in.data, out.data, n);
    else if (d->type == PL_INT8)
        return run_s8(ctx, op, d, in.data, out.data, n);
    else if (op == OP_SQRT)
        return run_sqrt_q(ctx, d, in.data, out.data, n);
    else
        return run_table_s16(ctx, op, d, in.data, out.data, n);
    return PL_OK;
}

PL_SHARED_REGISTRATION(ceil, "CEIL", OP_CEIL, sizeof(op_data), prepare, invoke)
PL_SHARED_REGISTRATION(cos, "COS", OP_COS, sizeof(op_data), prepare, invoke)
PL_SHARED_REGISTRATION(exp, "EXP", OP_EXP, sizeof(op_data), prepare, invoke)
PL_SHARED_REGISTRATION(floor, "FLOOR", OP_FLOOR, sizeof(op_data), prepare, invoke)
PL_SHARED_REGISTRATION(log, "LOG", OP_LOG, sizeof(op_data), prepare, invoke)
PL_SHARED_REGISTRATION(neg, "NEG", OP_NEG, sizeof(op_data), prepare, invoke)
PL_SHARED_REGISTRATION(round, "ROUND", OP_ROUND, sizeof(op_data), prepare, invoke)
PL_SHARED_REGISTRATION(rsqrt, "RSQRT", OP_RSQRT, sizeof(op_data), prepare, invoke)
PL_SHARED_REGISTRATION(sin, "SIN", OP_SIN, sizeof(op_data), prepare, invoke)
PL_SHARED_REGISTRATION(sqrt, "SQRT", OP_SQRT, sizeof(op_data), prepare, invoke)
PL_SHARED_REGISTRATION(square, "SQUARE", OP_SQUARE, sizeof(op_data), prepare, invoke)
PL_SHARED_REGISTRATION(zeros_like, "ZEROS_LIKE", OP_ZEROS_LIKE, sizeof(op_data), prepare, invoke)
