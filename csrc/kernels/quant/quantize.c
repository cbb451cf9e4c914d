/* quantize.c - QUANTIZE and DEQUANTIZE (see quantize.h); Prepare/Eval as
** tensorflow/lite/kernels/quantize.cc and dequantize.h with the reference kernels. */
#include "quantize.h"

#include <stdbool.h>
#include <string.h>

#include "kernels/activation/activations.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/quant/dequantize_fast.h"
#include "kernels/registry.h"
#include "picolite/pl_node_io.h"

enum { DEQUANTIZE_CODE = 6, QUANTIZE_CODE = 114 };

typedef struct opdata {
    pl_quant_layout layout;
    PL_SLOT(const float *, scale); /* layout.channels entries */
    PL_SLOT(const int32_t *, zero_point);
    float scale1;       /* the per-tensor case points scale/zero_point here */
    int32_t zero_point1;
    union {
        pl_requant_params rq; /* QUANTIZE of an integer input */
        /* DEQUANTIZE of a constant into a variable tensor: LiteRT dequantizes a constant
        ** once (its output persists), so a kernel that updates the variable in place (an
        ** LSTM's state, in float16-weight models) carries it from invoke to invoke. */
        struct {
            bool once, done;
        };
    };
} opdata;

static size_t channel_of(const pl_quant_layout *l, size_t i)
{
    return l->channels == 1 ? 0 : (i / l->inner) % l->channels;
}

/* (int32)round(x / scale) + zp, clamped: LiteRT's AffineQuantize converts before it
** clamps, and on its platforms an out-of-range or NaN conversion gives INT32_MIN (so +inf
** quantizes to the minimum too); the zero point is then added with wraparound. */
static int32_t quantize_one(float x, float scale, int32_t zp, int32_t lo, int32_t hi)
{
    float r = pl_fx_roundf(x / scale);
    int32_t q = r > -2147483904.0f && r < 2147483648.0f ? (int32_t)r : INT32_MIN;
    return pl_fx_clamp((int32_t)((uint32_t)q + (uint32_t)zp), lo, hi);
}

void pl_quantize_f32_s8(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                        const float *in, int8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t c = channel_of(l, i);
        out[i] = (int8_t)quantize_one(in[i], scale[c], zp[c], INT8_MIN, INT8_MAX);
    }
}

void pl_quantize_f32_u8(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                        const float *in, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t c = channel_of(l, i);
        out[i] = (uint8_t)quantize_one(in[i], scale[c], zp[c], 0, UINT8_MAX);
    }
}

void pl_quantize_f32_s16(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                         const float *in, int16_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t c = channel_of(l, i);
        out[i] = (int16_t)quantize_one(in[i], scale[c], zp[c], INT16_MIN, INT16_MAX);
    }
}

static int32_t load(pl_type type, const void *p, size_t i)
{
    switch (type) {
    case PL_INT8: return ((const int8_t *)p)[i];
    case PL_UINT8: return ((const uint8_t *)p)[i];
    case PL_INT16: return ((const int16_t *)p)[i];
    default: return ((const int32_t *)p)[i];
    }
}

static void store(pl_type type, void *p, size_t i, int32_t v)
{
    switch (type) {
    case PL_INT8: ((int8_t *)p)[i] = (int8_t)pl_fx_clamp(v, INT8_MIN, INT8_MAX); break;
    case PL_UINT8: ((uint8_t *)p)[i] = (uint8_t)pl_fx_clamp(v, 0, UINT8_MAX); break;
    case PL_INT16: ((int16_t *)p)[i] = (int16_t)pl_fx_clamp(v, INT16_MIN, INT16_MAX); break;
    default: ((int32_t *)p)[i] = v; break;
    }
}

void pl_quantize_requant(const pl_requant_params *p, pl_type in_type, const void *in,
                         pl_type out_type, void *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        /* int32 inputs and int16 zero points can leave int32 on hostile scales: wrap the
        ** difference as TFLite's hardware does, saturate the sum (the store clamps anyway) */
        int32_t x = (int32_t)((uint32_t)load(in_type, in, i) - (uint32_t)p->input_zero_point);
        int64_t v = (int64_t)pl_fx_mul_by_qm(x, p->multiplier, p->shift) + p->output_zero_point;
        store(out_type, out, i, v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v);
    }
}

/* Per tensor the reference widens the scale to double (reference_integer_ops::Dequantize);
** per channel the product is float (PerChannelDequantize). While |q - zp| < 2^24 the double
** product is exact (24 + 24 bits), so rounding it to float is the float product's one
** rounding: the float multiply gives the same bits without double arithmetic (an MCU's
** soft-double), which only a hostile zero point's far values need. */
static float dequantize_one(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                            int32_t q, size_t i)
{
    size_t c = channel_of(l, i);
    int64_t v = (int64_t)q - zp[c];
    if (l->channels == 1 && (v >= (1 << 24) || v <= -(1 << 24)))
        return (float)((double)scale[0] * (double)v);
    return scale[c] * (float)v;
}

void pl_dequantize_s8(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                      const int8_t *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = dequantize_one(l, scale, zp, in[i], i);
}

void pl_dequantize_u8(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                      const uint8_t *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = dequantize_one(l, scale, zp, in[i], i);
}

void pl_dequantize_s16(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                       const int16_t *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = dequantize_one(l, scale, zp, in[i], i);
}

/* IEEE half -> float is exact: widen the exponent, shift the significand. */
static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112u) << 23) | (man << 13);
    } else {
        float f = (float)man * 0x1p-24f; /* subnormal (or zero): exact in float */
        memcpy(&bits, &f, sizeof bits);
        bits |= sign;
    }
    float out;
    memcpy(&out, &bits, sizeof out);
    return out;
}

void pl_dequantize_f16(const uint16_t *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = half_to_float(in[i]);
}

/* Copies t's scales and zero points into op data (per-channel when more than one). */
static pl_status keep_quant(pl_context *ctx, opdata *d, const pl_tensor *t)
{
    uint32_t n = t->q.count;
    d->layout.channels = 1;
    d->layout.inner = 1;
    d->scale1 = t->q.scale[0];
    d->zero_point1 = (int32_t)t->q.zero_point[0];
    d->scale = &d->scale1;
    d->zero_point = &d->zero_point1;
    if (n == 1)
        return PL_OK;
    int32_t qd = t->q.quantized_dimension;
    if (qd < 0 || qd >= t->ndims || (uint32_t)t->dims[qd] != n)
        return ctx->fail(ctx, PL_ERR_MODEL,
                         "tensor %d: %u scales do not match quantized dimension %d",
                         t->index, n, qd);
    void *scale_mem, *zp_mem;
    PL_TRY(ctx->alloc_persistent(ctx, n * sizeof(float), &scale_mem));
    PL_TRY(ctx->alloc_persistent(ctx, n * sizeof(int32_t), &zp_mem));
    float *scale = scale_mem;
    int32_t *zp = zp_mem;
    for (uint32_t c = 0; c < n; c++) {
        scale[c] = t->q.scale[c];
        zp[c] = (int32_t)t->q.zero_point[c];
    }
    d->layout.channels = n;
    for (int32_t k = qd + 1; k < t->ndims; k++)
        d->layout.inner *= (size_t)t->dims[k];
    d->scale = scale;
    d->zero_point = zp;
    return PL_OK;
}

bool pl_quant_per_tensor(const pl_node *node, float *scale, int32_t *zp)
{
    const opdata *d = node->user_data;
    if (d->layout.channels != 1)
        return false;
    *scale = d->scale1;
    *zp = d->zero_point1;
    return true;
}

bool pl_quant_requant_of(const pl_node *node, pl_requant_params *rq)
{
    const opdata *d = node->user_data;
    if (node->builtin_code != QUANTIZE_CODE)
        return false;
    *rq = d->rq;
    return true;
}

/* The input/output pairs LiteRT's quantize.cc or TFLM's quantize_common.cc accepts (TFLM
** alone: int8 -> int32; LiteRT alone: uint8 -> uint8, int16), all the same Requantize. */
static bool quantize_pair_ok(pl_type in, pl_type out)
{
    switch (in) {
    case PL_FLOAT32: return out == PL_INT8 || out == PL_UINT8 || out == PL_INT16;
    case PL_INT16: return out == PL_INT8 || out == PL_INT16 || out == PL_INT32;
    case PL_INT32: return out == PL_INT8 || out == PL_INT16;
    case PL_INT8: return out == PL_INT8 || out == PL_UINT8 || out == PL_INT16 || out == PL_INT32;
    case PL_UINT8: return out == PL_INT8 || out == PL_UINT8 || out == PL_INT16;
    default: return false;
    }
}

static pl_status requant_prepare(pl_context *ctx, opdata *d, const pl_tensor *in,
                                 const pl_tensor *out)
{
    pl_act_q iq, oq;
    PL_TRY(pl_act_quant(ctx, in, &iq));
    PL_TRY(pl_act_quant(ctx, out, &oq));
    if (in->type == PL_INT16 && out->type == PL_INT16 &&
        (iq.zero_point != 0 || oq.zero_point != 0))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "QUANTIZE: int16 to int16 needs zero points 0, got %d and %d",
                         iq.zero_point, oq.zero_point);
    pl_fx_quantize_multiplier((double)iq.scale / (double)oq.scale, &d->rq.multiplier,
                              &d->rq.shift);
    d->rq.input_zero_point = iq.zero_point;
    d->rq.output_zero_point = oq.zero_point;
    return PL_OK;
}

static pl_status quantize_prepare(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    pl_tensor *in, *out;
    PL_TRY(pl_act_unary(ctx, node, &in, &out));
    if (!quantize_pair_ok(in->type, out->type))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "QUANTIZE: input type %s with output type %s is not supported",
                         pl_type_name(in->type), pl_type_name(out->type));
    if (out->q.count < 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "QUANTIZE: the output has no quantization");
    if (in->type == PL_FLOAT32)
        return keep_quant(ctx, d, out);
    if (out->q.count > 1 || in->q.count > 1)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "QUANTIZE: per-channel requantization is not supported");
    return requant_prepare(ctx, d, in, out);
}

static pl_status quantize_invoke(pl_context *ctx, pl_node *node)
{
    const opdata *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    size_t n = pl_tensor_count(&in);
    if (in.type != PL_FLOAT32)
        pl_quantize_requant(&d->rq, in.type, in.data, out.type, out.data, n);
    else if (out.type == PL_INT8)
        pl_quantize_f32_s8(&d->layout, d->scale, d->zero_point, in.data, out.data, n);
    else if (out.type == PL_UINT8)
        pl_quantize_f32_u8(&d->layout, d->scale, d->zero_point, in.data, out.data, n);
    else
        pl_quantize_f32_s16(&d->layout, d->scale, d->zero_point, in.data, out.data, n);
    return PL_OK;
}

static pl_status dequantize_prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *out;
    PL_TRY(pl_act_unary(ctx, node, &in, &out));
    bool ok = out->type == PL_FLOAT32 && (in->type == PL_INT8 || in->type == PL_UINT8 ||
                                          in->type == PL_INT16 || in->type == PL_FLOAT16);
    if (!ok)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "DEQUANTIZE: input type %s with output type %s is not supported",
                         pl_type_name(in->type), pl_type_name(out->type));
    opdata *d = node->user_data;
    d->once = in->is_constant && out->is_variable;
    d->done = false;
    if (in->type == PL_FLOAT16)
        return PL_OK;
    if (in->q.count < 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "DEQUANTIZE: the input has no quantization");
    if (in->type == PL_INT16 && in->q.count > 1)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "DEQUANTIZE: per-channel int16 is not supported");
    return keep_quant(ctx, d, in);
}

static pl_status dequantize_invoke(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    if (d->once && d->done)
        return PL_OK;
    d->done = true;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    size_t n = pl_tensor_count(&in);
    if (in.type == PL_INT8)
        pl_dequantize_s8(&d->layout, d->scale, d->zero_point, in.data, out.data, n);
    else if (in.type == PL_UINT8)
        pl_dequantize_u8(&d->layout, d->scale, d->zero_point, in.data, out.data, n);
    else if (in.type == PL_FLOAT16)
        pl_dequantize_f16(in.data, out.data, n);
    else
        pl_dequantize_s16(&d->layout, d->scale, d->zero_point, in.data, out.data, n);
    return PL_OK;
}

const pl_registration *pl_quantize_registration(void)
{
    static const pl_registration reg = {.name = "QUANTIZE", .builtin_code = QUANTIZE_CODE,
                                        .prepare = quantize_prepare, .invoke = quantize_invoke,
                                        .user_data_size = sizeof(opdata)};
    return &reg;
}

const pl_registration *pl_dequantize_registration(void)
{
    static const pl_registration reg = {.name = "DEQUANTIZE", .builtin_code = DEQUANTIZE_CODE,
                                        .prepare = dequantize_prepare,
                                        .invoke = dequantize_invoke,
                                        .user_data_size = sizeof(opdata)};
    return &reg;
}
