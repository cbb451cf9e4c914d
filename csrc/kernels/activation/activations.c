/* activations.c - RELU, RELU6, RELU_N1_TO_1, LEAKY_RELU, HARD_SWISH (see activations.h).
**
** Prepare and arithmetic follow tensorflow/lite/kernels/activations.cc (ReluPrepare,
** QuantizedReluX, LeakyReluPrepare, HardSwishPrepare) and reference_ops::ReluX,
** QuantizeLeakyRelu and HardSwish. LiteRT and TFLM 90b983c compute several multipliers as
** float quotients before widening them to double, the wheel's TFLM in double (pl_fx_ratio);
** and TFLM's RELU6 clamps without rescaling. */
#include "activations.h"

#include <float.h>
#include <math.h>

#include "kernels/common/fixedpoint.h"
#include "kernels/registry.h"
#include "picolite/pl_node_io.h"

enum { RELU_CODE = 19, RELU_N1_TO_1_CODE = 20, RELU6_CODE = 21, LEAKY_RELU_CODE = 98,
       HARD_SWISH_CODE = 117 };

/* ---- ReLU family ------------------------------------------------------------------- */

void pl_relu_f32(const float *in, float *out, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++) {
        float v = in[i] < lo ? lo : in[i];
        out[i] = hi < v ? hi : v;
    }
}

static int32_t relu_one(const pl_relu_params *p, int32_t x)
{
    int32_t v = p->output_offset +
                pl_fx_mul_by_qm(x - p->input_offset, p->output_multiplier, p->output_shift);
    return pl_fx_clamp(v, p->act_min, p->act_max);
}

void pl_relu_s8(const pl_relu_params *p, const int8_t *in, int8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (int8_t)relu_one(p, in[i]);
}

void pl_relu_u8(const pl_relu_params *p, const uint8_t *in, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)relu_one(p, in[i]);
}

void pl_relu_s16(const pl_relu_params *p, const int16_t *in, int16_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (int16_t)relu_one(p, in[i]);
}

/* zero_point + (int)roundf(f / scale), as QuantizedReluX computes its bounds. */
static int32_t relu_bound(float f, const pl_act_q *q)
{
    float r = pl_fx_roundf(f / q->scale);
    if (!(r > -2147483904.0f && r < 2147483648.0f))
        return r > 0 ? INT32_MAX : INT32_MIN;
    int64_t v = (int64_t)q->zero_point + (int32_t)r; /* a hostile zero point may overflow */
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

static pl_status relu_prepare_q(pl_context *ctx, pl_activation_op *d, const pl_tensor *in,
                                const pl_tensor *out, float lo, float hi)
{
    pl_act_q iq, oq;
    PL_TRY(pl_act_quant(ctx, in, &iq));
    PL_TRY(pl_act_quant(ctx, out, &oq));
    if (in->type == PL_INT16 && (iq.zero_point != 0 || oq.zero_point != 0))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "int16 needs zero points 0, got %d and %d",
                         iq.zero_point, oq.zero_point);
    int32_t qmin = in->type == PL_INT8 ? INT8_MIN : in->type == PL_UINT8 ? 0 : INT16_MIN;
    int32_t qmax = in->type == PL_INT8 ? INT8_MAX : in->type == PL_UINT8 ? UINT8_MAX
                                                                           : INT16_MAX;
    pl_fx_quantize_multiplier(pl_fx_ratio(iq.scale, oq.scale, pl_arith_wide(ctx->arith)),
                              &d->relu.output_multiplier, &d->relu.output_shift);
    d->relu.input_offset = iq.zero_point;
    d->relu.output_offset = oq.zero_point;
    int32_t bmin = relu_bound(lo, &oq);
    d->relu.act_min = bmin > qmin ? bmin : qmin;
    d->relu.act_max = qmax;
    if (!isinf(hi)) {
        int32_t bmax = relu_bound(hi, &oq);
        d->relu.act_max = bmax < qmax ? bmax : qmax;
    }
    return PL_OK;
}

/* TFLM's RELU6 keeps the input's scale whatever the output's: the input clamped to its zero
** point and to 6 quantized with the input's parameters (saturated to the type). Written as
** the identity rescale (a doubled input times 2^30 in Q31 is the input, exactly) with
** offsets 0 and those bounds. */
static pl_status relu6_prepare_tflm(pl_context *ctx, pl_activation_op *d, const pl_tensor *in)
{
    pl_act_q iq;
    PL_TRY(pl_act_quant(ctx, in, &iq));
    if (in->type == PL_INT16 && iq.zero_point != 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "int16 needs zero points 0, got %d",
                         iq.zero_point);
    int32_t qmin = in->type == PL_INT8 ? INT8_MIN : in->type == PL_UINT8 ? 0 : INT16_MIN;
    int32_t qmax = in->type == PL_INT8 ? INT8_MAX : in->type == PL_UINT8 ? UINT8_MAX
                                                                           : INT16_MAX;
    d->relu = (pl_relu_params){0, 0, 1 << 30, 1, pl_fx_clamp(iq.zero_point, qmin, qmax), 0};
    d->relu.act_max = pl_fx_clamp(relu_bound(6.0f, &iq), qmin, qmax);
    return PL_OK;
}

static pl_status relu_prepare_range(pl_context *ctx, pl_node *node, float lo, float hi,
                                    bool allow_s16)
{
    pl_tensor *in, *out;
    PL_TRY(pl_act_unary(ctx, node, &in, &out));
    uint32_t types = PL_TYPES3(PL_FLOAT32, PL_INT8, PL_UINT8) |
                     (allow_s16 ? PL_TYPE_BIT(PL_INT16) : 0u);
    PL_TRY(pl_check_types(ctx, in, out, types));
    if (in->type == PL_FLOAT32)
        return PL_OK;
    if (hi == 6.0f && lo == 0.0f && in->type != PL_UINT8 && ctx->arith != PL_ARITH_LITERT)
        return relu6_prepare_tflm(ctx, node->user_data, in);
    return relu_prepare_q(ctx, node->user_data, in, out, lo, hi);
}

static pl_status relu_prepare(pl_context *ctx, pl_node *node)
{
    return relu_prepare_range(ctx, node, 0.0f, INFINITY, true);
}

static pl_status relu6_prepare(pl_context *ctx, pl_node *node)
{
    return relu_prepare_range(ctx, node, 0.0f, 6.0f, true);
}

static pl_status relu_n1_to_1_prepare(pl_context *ctx, pl_node *node)
{
    return relu_prepare_range(ctx, node, -1.0f, 1.0f, false);
}

static pl_status relu_invoke_range(pl_context *ctx, pl_node *node, float lo, float hi)
{
    const pl_activation_op *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    size_t n = pl_tensor_count(&in);
    if (in.type == PL_FLOAT32)
        pl_relu_f32(in.data, out.data, n, lo, hi);
    else if (in.type == PL_INT8)
        pl_relu_s8(&d->relu, in.data, out.data, n);
    else if (in.type == PL_UINT8)
        pl_relu_u8(&d->relu, in.data, out.data, n);
    else
        pl_relu_s16(&d->relu, in.data, out.data, n);
    return PL_OK;
}

static pl_status relu_invoke(pl_context *ctx, pl_node *node)
{
    return relu_invoke_range(ctx, node, 0.0f, INFINITY);
}

static pl_status relu6_invoke(pl_context *ctx, pl_node *node)
{
    return relu_invoke_range(ctx, node, 0.0f, 6.0f);
}

static pl_status relu_n1_to_1_invoke(pl_context *ctx, pl_node *node)
{
    return relu_invoke_range(ctx, node, -1.0f, 1.0f);
}

/* ---- LEAKY_RELU ---------------------------------------------------------------------- */

void pl_leaky_relu_f32(float alpha, const float *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = in[i] > 0 ? in[i] : in[i] * alpha;
}

static int32_t leaky_one(const pl_leaky_relu_params *p, int32_t x)
{
    int32_t v = x - p->input_offset, r;
    if (v >= 0) {
        r = pl_fx_mul_by_qm(v, p->multiplier_identity, p->shift_identity);
    } else {
        r = pl_fx_mul_by_qm(v, p->multiplier_alpha, p->shift_alpha);
        r = p->negative_alpha ? -r : r;
    }
    return p->output_offset + r;
}

void pl_leaky_relu_s8(const pl_leaky_relu_params *p, const int8_t *in, int8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (int8_t)pl_fx_clamp(leaky_one(p, in[i]), INT8_MIN, INT8_MAX);
}

void pl_leaky_relu_u8(const pl_leaky_relu_params *p, const uint8_t *in, uint8_t *out,
                      size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)pl_fx_clamp(leaky_one(p, in[i]), 0, UINT8_MAX);
}

void pl_leaky_relu_s16(const pl_leaky_relu_params *p, const int16_t *in, int16_t *out,
                       size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (int16_t)pl_fx_clamp(leaky_one(p, in[i]), INT16_MIN, INT16_MAX);
}

static pl_status leaky_relu_prepare(pl_context *ctx, pl_node *node)
{
    pl_leaky_relu_params *p = &((pl_activation_op *)node->user_data)->leaky;
    pl_tensor *in, *out;
    PL_TRY(pl_act_unary(ctx, node, &in, &out));
    p->alpha = pl_table_f32(&node->options, 0, 0.0f);
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES4(PL_FLOAT32, PL_INT8, PL_INT16, PL_UINT8)));
    if (in->type == PL_FLOAT32)
        return PL_OK;
    if (!(p->alpha > -FLT_MAX && p->alpha < FLT_MAX))
        return ctx->fail(ctx, PL_ERR_MODEL, "LEAKY_RELU: alpha %g is not finite",
                         (double)p->alpha);
    pl_act_q iq, oq;
    PL_TRY(pl_act_quant(ctx, in, &iq));
    PL_TRY(pl_act_quant(ctx, out, &oq));
    if (in->type == PL_INT16 && (iq.zero_point != 0 || oq.zero_point != 0))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "LEAKY_RELU: int16 needs zero points 0, got %d and %d", iq.zero_point,
                         oq.zero_point);
    /* float as LiteRT and TFLM 90b983c, double as the wheel's TFLM */
    bool wide = pl_arith_wide(ctx->arith);
    double alpha_real = pl_fx_ratio3(iq.scale, p->alpha, oq.scale, wide);
    /* a negative alpha keeps its sign apart: the multiplier itself must be >= 0 */
    p->negative_alpha = alpha_real < 0;
    pl_fx_quantize_multiplier(fabs(alpha_real), &p->multiplier_alpha, &p->shift_alpha);
    pl_fx_quantize_multiplier(pl_fx_ratio(iq.scale, oq.scale, wide), &p->multiplier_identity,
                              &p->shift_identity);
    p->input_offset = iq.zero_point;
    p->output_offset = oq.zero_point;
    return PL_OK;
}

static pl_status leaky_relu_invoke(pl_context *ctx, pl_node *node)
{
    const pl_leaky_relu_params *p = &((const pl_activation_op *)node->user_data)->leaky;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    size_t n = pl_tensor_count(&in);
    if (in.type == PL_FLOAT32)
        pl_leaky_relu_f32(p->alpha, in.data, out.data, n);
    else if (in.type == PL_INT8)
        pl_leaky_relu_s8(p, in.data, out.data, n);
    else if (in.type == PL_UINT8)
        pl_leaky_relu_u8(p, in.data, out.data, n);
    else
        pl_leaky_relu_s16(p, in.data, out.data, n);
    return PL_OK;
}

/* ---- HARD_SWISH ---------------------------------------------------------------------- */

void pl_hard_swish_f32(const float *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float x = in[i], r = x + 3;
        r = 0 < r ? r : 0;
        r = r < 6 ? r : 6;
        out[i] = x * r / 6;
    }
}

/* gemmlowp's int16 SaturatingRoundingDoublingHighMul. */
static int16_t srdhm16(int16_t a, int16_t b)
{
    if (a == b && a == INT16_MIN)
        return INT16_MAX;
    int32_t ab = (int32_t)a * b;
    int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
    return (int16_t)((ab + nudge) / (1 << 15));
}

/* Like srdhm16 but truncating (ARM SQDMULH), as TFLite's SaturatingDoublingHighMul. */
static int16_t sdhm16(int16_t a, int16_t b)
{
    if (a == b && a == INT16_MIN)
        return INT16_MAX;
    return (int16_t)(((int32_t)a * b) / (1 << 15));
}

/* gemmlowp RoundingDivideByPOT on int16 (its mask is int16 too). */
static int16_t rdbpot16(int16_t x, int32_t exponent)
{
    int16_t mask = (int16_t)((1LL << exponent) - 1);
    int32_t remainder = x & mask;
    int32_t threshold = (int16_t)((mask >> 1) + (x < 0 ? 1 : 0));
    return (int16_t)((x >> exponent) + (remainder > threshold ? 1 : 0));
}

static int16_t sat_shift16(int16_t v, int32_t amount)
{
    int64_t r = (int64_t)v * ((int64_t)1 << (amount < 62 ? amount : 62));
    return (int16_t)(r < INT16_MIN ? INT16_MIN : r > INT16_MAX ? INT16_MAX : r);
}

static int32_t hard_swish_one(const pl_hard_swish_params *p, int32_t x)
{
    int16_t hires = (int16_t)((x - p->input_zero_point) * (1 << 7));
    int16_t preshift_out = srdhm16(hires, p->output_multiplier);
    /* rescale to [-3, 3] -> [-1, 1] in Q0.15, saturating only in the last shift bit */
    int16_t reluish = hires;
    if (p->reluish_exponent > 0)
        reluish = sat_shift16(reluish, p->reluish_exponent - 1);
    reluish = srdhm16(reluish, p->reluish_multiplier);
    if (p->reluish_exponent > 0)
        reluish = sat_shift16(reluish, 1);
    if (p->reluish_exponent < 0)
        reluish = rdbpot16(reluish, -p->reluish_exponent);
    reluish = (int16_t)((reluish + (1 << 15)) >> 1); /* [-1, 1] -> [0, 1] */
    int16_t pre = sdhm16(reluish, preshift_out);
    int16_t v = rdbpot16(pre, -p->output_exponent);
    return (int16_t)(v + p->output_zero_point);
}

void pl_hard_swish_s8(const pl_hard_swish_params *p, const int8_t *in, int8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (int8_t)pl_fx_clamp(hard_swish_one(p, in[i]), INT8_MIN, INT8_MAX);
}

void pl_hard_swish_u8(const pl_hard_swish_params *p, const uint8_t *in, uint8_t *out,
                      size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)pl_fx_clamp(hard_swish_one(p, in[i]), 0, UINT8_MAX);
}

/* TFLite DownScaleInt32ToInt16Multiplier: round the Q31 multiplier to Q15. */
static int16_t to_q15(int32_t m)
{
    if (m >= INT32_MAX - (1 << 15))
        return INT16_MAX;
    return (int16_t)((m + (1 << 15)) >> 16);
}

static pl_status hard_swish_prepare(pl_context *ctx, pl_node *node)
{
    pl_hard_swish_params *p = &((pl_activation_op *)node->user_data)->hs;
    pl_tensor *in, *out;
    PL_TRY(pl_act_unary(ctx, node, &in, &out));
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES3(PL_FLOAT32, PL_INT8, PL_UINT8)));
    if (in->type == PL_FLOAT32)
        return PL_OK;
    pl_act_q iq, oq;
    PL_TRY(pl_act_quant(ctx, in, &iq));
    PL_TRY(pl_act_quant(ctx, out, &oq));
    p->input_zero_point = iq.zero_point;
    p->output_zero_point = oq.zero_point;
    const float hires_scale = (1.0f / 128.0f) * iq.scale;
    const float reluish_scale = 3.0f / 32768.0f;
    int32_t m = 0, wide = pl_arith_wide(ctx->arith);
    pl_fx_quantize_multiplier(pl_fx_ratio(hires_scale, oq.scale, wide), &m,
                              &p->output_exponent);
    p->output_multiplier = to_q15(m);
    if (p->output_exponent > 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "HARD_SWISH: input scale %g / output scale %g is too large",
                         (double)iq.scale, (double)oq.scale);
    pl_fx_quantize_multiplier(pl_fx_ratio(hires_scale, reluish_scale, wide), &m,
                              &p->reluish_exponent);
    p->reluish_multiplier = to_q15(m);
    return PL_OK;
}

static pl_status hard_swish_invoke(pl_context *ctx, pl_node *node)
{
    const pl_hard_swish_params *p = &((const pl_activation_op *)node->user_data)->hs;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    size_t n = pl_tensor_count(&in);
    if (in.type == PL_FLOAT32)
        pl_hard_swish_f32(in.data, out.data, n);
    else if (in.type == PL_UINT8)
        pl_hard_swish_u8(p, in.data, out.data, n);
    else
        pl_hard_swish_s8(p, in.data, out.data, n);
    return PL_OK;
}

/* ---- registrations ------------------------------------------------------------------- */

const pl_registration *pl_relu_registration(void)
{
    static const pl_registration reg = {.name = "RELU", .builtin_code = RELU_CODE,
                                        .prepare = relu_prepare, .invoke = relu_invoke,
                                        .user_data_size = sizeof(pl_activation_op)};
    return &reg;
}

const pl_registration *pl_relu6_registration(void)
{
    static const pl_registration reg = {.name = "RELU6", .builtin_code = RELU6_CODE,
                                        .prepare = relu6_prepare, .invoke = relu6_invoke,
                                        .user_data_size = sizeof(pl_activation_op)};
    return &reg;
}

const pl_registration *pl_relu_n1_to_1_registration(void)
{
    static const pl_registration reg = {.name = "RELU_N1_TO_1",
                                        .builtin_code = RELU_N1_TO_1_CODE,
                                        .prepare = relu_n1_to_1_prepare,
                                        .invoke = relu_n1_to_1_invoke,
                                        .user_data_size = sizeof(pl_activation_op)};
    return &reg;
}

const pl_registration *pl_leaky_relu_registration(void)
{
    static const pl_registration reg = {.name = "LEAKY_RELU", .builtin_code = LEAKY_RELU_CODE,
                                        .prepare = leaky_relu_prepare,
                                        .invoke = leaky_relu_invoke,
                                        .user_data_size = sizeof(pl_activation_op)};
    return &reg;
}

const pl_registration *pl_hard_swish_registration(void)
{
    static const pl_registration reg = {.name = "HARD_SWISH", .builtin_code = HARD_SWISH_CODE,
                                        .prepare = hard_swish_prepare,
                                        .invoke = hard_swish_invoke,
                                        .user_data_size = sizeof(pl_activation_op)};
    return &reg;
}
