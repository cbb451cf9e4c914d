/* logistic_tanh.c - LOGISTIC and TANH (see logistic_tanh.h); Prepare as
** tensorflow/lite/kernels/activations.cc SigmoidPrepare/TanhPrepare<kReference>. */
#include "logistic_tanh.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/activation/activations.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/common/fmath.h"
#include "kernels/common/lut.h"
#include "kernels/registry.h"
#include "picolite/pl_node_io.h"

enum { LOGISTIC_CODE = 14, TANH_CODE = 28 };

/* 16 bytes per node. int8 in TFLM's arithmetic (the picolite and TFLM targets) is computed
** per element from the multiplier, shift, radius and zero point, as TFLM's reference kernel
** does: no table in the arena (the host fast path tabulates it in host memory, lut8.c).
** uint8, and int8 in LiteRT's arithmetic, read a 256-byte table (uint8 entries for uint8)
** allocated apart in prepare, so only they pay for it. int16 uses multiplier and shift. */
typedef struct opdata {
    union {
        PL_SLOT(int8_t *, lut); /* the table (per_element false) */
        struct {
            int32_t radius;     /* |input - zero point| from which the output saturates */
            int32_t zero_point; /* the input's */
        } s8;                   /* int8 per element */
    };
    int32_t input_multiplier;
    int32_t input_left_shift;
} opdata;
_Static_assert(sizeof(opdata) == 16, "LOGISTIC and TANH keep 16 bytes of op data");

/* Whether an 8-bit node computes per element (else it reads its table); prepare and invoke
** ask alike. */
static bool per_element(pl_type type, pl_arith arith)
{
    return type == PL_INT8 && arith != PL_ARITH_LITERT;
}

void pl_logistic_f32(const float *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = in[i];
        if (v > PL_LOGISTIC_F32_UPPER)
            out[i] = 1.0f;
        else if (v < PL_LOGISTIC_F32_LOWER) /* 1 + e^-v would round e^v's bits away */
            out[i] = pl_fmath_expf(v);
        else
            out[i] = 1.0f / (1.0f + pl_fmath_expf(-v));
    }
}

void pl_tanh_f32(const float *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = pl_fmath_tanhf(in[i]);
}

void pl_logistic_s8(const int8_t lut[256], const int8_t *in, int8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = lut[(uint8_t)in[i]];
}

void pl_logistic_u8(const uint8_t lut[256], const uint8_t *in, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = lut[in[i]];
}

/* The input on the table's scale: x * multiplier, rounding-shifted right. TFLite does this
** in int and wraps on overflow; so does this, without undefined behaviour. */
static int32_t rescale(int32_t x, int32_t multiplier, int32_t left_shift)
{
    uint32_t round = left_shift > 0 ? 1u << (left_shift - 1) : 0u;
    int32_t v = (int32_t)((uint32_t)x * (uint32_t)multiplier + round);
    return v >> left_shift;
}

void pl_logistic_s16(int32_t multiplier, int32_t left_shift, const int16_t *in, int16_t *out,
                     size_t n)
{
    if (multiplier == 0) { /* power-of-two scale: 3/4 widens [-8, 8] to [-10.7, 10.7] */
        multiplier = 3 << left_shift;
        left_shift = 0;
    }
    for (size_t i = 0; i < n; i++) {
        int32_t x = rescale(in[i], multiplier, left_shift);
        uint32_t ax = (uint32_t)abs(x);
        uint32_t uh = ax >> 9, r;
        if (uh >= 255) {
            r = 0x7FFFu << 10;
        } else {
            uint32_t ua = pl_lut_sigmoid_u16[uh], ub = pl_lut_sigmoid_u16[uh + 1];
            r = (ua << 9) + (ax & 0x1ffu) * (ub - ua);
        }
        r = x >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1u;
        out[i] = (int16_t)(r >> 10);
    }
}

void pl_tanh_s16(int32_t multiplier, int32_t left_shift, const int16_t *in, int16_t *out,
                 size_t n)
{
    if (multiplier == 0) {
        multiplier = 3 << left_shift;
        left_shift = 0;
    }
    for (size_t i = 0; i < n; i++) {
        int32_t x = rescale(in[i], multiplier, left_shift);
        uint32_t ax = (uint32_t)abs(x);
        uint32_t uh = ax >> 8;
        int32_t r;
        if (uh >= 255) {
            r = 0xFFFF << 8;
        } else {
            uint32_t ua = pl_lut_sigmoid_u16[uh], ub = pl_lut_sigmoid_u16[uh + 1];
            r = (int32_t)((ua << 8) + (ax & 0xffu) * (ub - ua));
        }
        /* tanh(x) = 2 sigmoid(2x) - 1 */
        r = x >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
        out[i] = (int16_t)(r >> 8);
    }
}

static float logistic_fn(float x)
{
    return 1.0f / (1.0f + pl_fmath_expf(-x));
}

static float tanh_fn(float x)
{
    return pl_fmath_tanhf(x);
}

/* TFLite CheckedLog2: log2(x) rounded, and whether x is within 1e-3 of that power. */
static bool checked_log2(float x, int32_t *log2)
{
    float l = logf(x) * (1.0f / logf(2.0f));
    float r = pl_fx_roundf(l);
    *log2 = (int32_t)r;
    return fabsf(l - r) < 1e-3f;
}

/* int16: zero points 0, output scale 2^-15; input scale 2^-12 (logistic) or 2^-12/2^-11
** (tanh) uses the table directly, any other scale gets a multiplier to 1/(3 * 4096). */
static pl_status prepare_s16(pl_context *ctx, opdata *d, const char *op, bool is_tanh,
                             const pl_act_q *in, const pl_act_q *out)
{
    int32_t log2_in = 0, log2_out = 0;
    if (in->zero_point != 0 || out->zero_point != 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: int16 needs zero points 0, got %d and %d",
                         op, in->zero_point, out->zero_point);
    if (!checked_log2(out->scale, &log2_out) || log2_out != -15 ||
        (!is_tanh && (double)out->scale != 1.0 / 32768))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: int16 output scale must be 2^-15, got %g",
                         op, (double)out->scale);
    bool pot = checked_log2(in->scale, &log2_in);
    d->input_left_shift = 12 + log2_in;
    pot = pot && (d->input_left_shift == 0 || (is_tanh && d->input_left_shift == 1));
    if (!pot) {
        double m = (double)in->scale * 4096.0 * 3.0;
        d->input_left_shift = 0;
        while (m <= 32767.0 / 2.0 && d->input_left_shift <= 30) {
            d->input_left_shift++;
            m *= 2.0;
        }
        /* TFLite's int conversion would be undefined above; a multiplier of 0 would be
        ** taken for the power-of-two case, whose 3 << 31 is undefined too */
        if (!(m >= 1.0 && m < 2147483648.0))
            return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: int16 input scale %g is out of "
                             "range", op, (double)in->scale);
        d->input_multiplier = (int32_t)m;
    }
    return PL_OK;
}

/* TFLM's int8 LOGISTIC and TANH (reference_integer_ops): the input minus its zero point,
** saturated beyond TFLM's radius, else rescaled into Q4.27 by a multiplier from the input
** scale, gemmlowp's fixed-point logistic or tanh, and the Q0.31 result rounded to 2^-8 with
** zero point -128 (LOGISTIC) or to 2^-7 with 0 (TANH): TFLM's fixed output quantization,
** whatever the output tensor says. */
static void tflm_params_s8(float input_scale, int32_t input_zp, opdata *d)
{
    int shift = 0; /* frexp's int: int32_t is long on arm-none-eabi */
    double q = frexp((double)input_scale * (double)(1 << 27), &shift);
    double r = pl_fx_round(q * 2147483648.0);
    d->input_multiplier = r >= 2147483647.0 ? INT32_MAX : (int32_t)r; /* a carry saturates */
    d->input_left_shift = shift;
    /* CalculateInputRadius: floor(15 * 2^27 / 2^shift), saturated */
    double radius_d = floor(15.0 * 134217728.0 / ldexp(1.0, shift));
    d->s8.radius = radius_d >= 2147483647.0 ? INT32_MAX : (int32_t)radius_d;
    d->s8.zero_point = input_zp;
}

static int8_t tflm_one_s8(const opdata *d, bool is_tanh, int8_t v)
{
    int32_t x = v - d->s8.zero_point, y;
    if (x <= -d->s8.radius)
        return INT8_MIN;
    if (x >= d->s8.radius)
        return INT8_MAX;
    int32_t in_q4 = pl_fx_mul_by_qm(x, d->input_multiplier, d->input_left_shift);
    y = is_tanh ? pl_fx_rdbpot(pl_lut_tanh_q31(in_q4, 4), 24)
                : pl_fx_rdbpot(pl_lut_logistic_q31(in_q4, 4), 23) - 128;
    return (int8_t)pl_fx_clamp(y, INT8_MIN, INT8_MAX);
}

static void tflm_s8(const opdata *d, bool is_tanh, const int8_t *in, int8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = tflm_one_s8(d, is_tanh, in[i]);
}

static pl_status prepare_common(pl_context *ctx, pl_node *node, bool is_tanh)
{
    const char *op = is_tanh ? "TANH" : "LOGISTIC";
    opdata *d = node->user_data;
    pl_tensor *in, *out;
    PL_TRY(pl_act_unary(ctx, node, &in, &out));
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES4(PL_FLOAT32, PL_INT8, PL_INT16, PL_UINT8)));
    if (in->type == PL_FLOAT32)
        return PL_OK;
    pl_act_q iq, oq;
    PL_TRY(pl_act_quant(ctx, in, &iq));
    PL_TRY(pl_act_quant(ctx, out, &oq));
    if (in->type == PL_INT16)
        return prepare_s16(ctx, d, op, is_tanh, &iq, &oq);
    bool tflm = per_element(in->type, ctx->arith);
    if (tflm && !is_tanh && oq.zero_point != INT8_MIN) /* TFLM checks only this */
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "LOGISTIC: int8 output zero point must be -128, got %d", oq.zero_point);
    if (!tflm && !is_tanh && (double)oq.scale != 1.0 / 256)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "LOGISTIC: int8 output scale must be 1/256, got %g", (double)oq.scale);
    if (!is_tanh && in->type == PL_UINT8 && oq.zero_point != 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "LOGISTIC: uint8 output zero point must be 0, got %d", oq.zero_point);
    if (tflm) {
        tflm_params_s8(iq.scale, iq.zero_point, d);
        return PL_OK;
    }
    void *lut = NULL;
    PL_TRY(ctx->alloc_persistent(ctx, 256, &lut));
    d->lut = lut;
    if (in->type == PL_UINT8)
        pl_lut_populate_u8(iq.scale, iq.zero_point, oq.scale, oq.zero_point,
                           is_tanh ? tanh_fn : logistic_fn, lut);
    else
        pl_lut_populate_s8(iq.scale, iq.zero_point, oq.scale, oq.zero_point,
                           is_tanh ? tanh_fn : logistic_fn, d->lut);
    return PL_OK;
}

static pl_status logistic_prepare(pl_context *ctx, pl_node *node)
{
    return prepare_common(ctx, node, false);
}

static pl_status tanh_prepare(pl_context *ctx, pl_node *node)
{
    return prepare_common(ctx, node, true);
}

void pl_logistic_tanh_table(const pl_node *node, pl_type type, pl_arith arith, bool is_tanh,
                            uint8_t table[256])
{
    const opdata *d = node->user_data;
    if (!per_element(type, arith)) {
        memcpy(table, d->lut, 256);
        return;
    }
    for (int v = -128; v <= 127; v++)
        table[(uint8_t)(int8_t)v] = (uint8_t)tflm_one_s8(d, is_tanh, (int8_t)v);
}

static pl_status invoke_common(pl_context *ctx, pl_node *node, bool is_tanh)
{
    const opdata *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    size_t n = pl_tensor_count(&in);
    if (per_element(in.type, ctx->arith))
        tflm_s8(d, is_tanh, in.data, out.data, n);
    else if (in.type == PL_INT8)
        pl_logistic_s8(d->lut, in.data, out.data, n);
    else if (in.type == PL_UINT8)
        pl_logistic_u8((const uint8_t *)d->lut, in.data, out.data, n);
    else if (in.type == PL_INT16 && is_tanh)
        pl_tanh_s16(d->input_multiplier, d->input_left_shift, in.data, out.data, n);
    else if (in.type == PL_INT16)
        pl_logistic_s16(d->input_multiplier, d->input_left_shift, in.data, out.data, n);
    else if (is_tanh)
        pl_tanh_f32(in.data, out.data, n);
    else
        pl_logistic_f32(in.data, out.data, n);
    return PL_OK;
}

static pl_status logistic_invoke(pl_context *ctx, pl_node *node)
{
    return invoke_common(ctx, node, false);
}

static pl_status tanh_invoke(pl_context *ctx, pl_node *node)
{
    return invoke_common(ctx, node, true);
}

const pl_registration *pl_logistic_registration(void)
{
    static const pl_registration reg = {.name = "LOGISTIC", .builtin_code = LOGISTIC_CODE,
                                        .prepare = logistic_prepare, .invoke = logistic_invoke,
                                        .user_data_size = sizeof(opdata)};
    return &reg;
}

const pl_registration *pl_tanh_registration(void)
{
    static const pl_registration reg = {.name = "TANH", .builtin_code = TANH_CODE,
                                        .prepare = tanh_prepare, .invoke = tanh_invoke,
                                        .user_data_size = sizeof(opdata)};
    return &reg;
}
