/* div.c - DIV for float32, int32, int8 and legacy uint8 with broadcasting (TFLite div.cc,
** reference path; TFLM's int8 DIV is the same DivElementwise).
**
** int32 divides with C truncation like TFLite's reference; a zero divisor is refused at
** invoke, as TFLite does, instead of trapping. The quantized quotient is TFLite's fixed-point
** one: a reciprocal of the divisor, the dividend's headroom, one rescale. A divisor at its
** zero point (a zero) is refused at invoke, as LiteRT's div.cc does. */
#include "div.h"

#include "kernels/common/fixedpoint.h"
#include "kernels/common/lut.h"
#include "picolite/pl_node_io.h"

enum { OP_DIV = 42 };

/* The broadcast walk is rebuilt from the eval dims at each invoke (a few dozen operations)
** rather than kept in the arena. */
typedef struct opdata {
    float f_min, f_max;
    int32_t i_min, i_max;
    pl_div_params q;
} opdata;

void pl_div_f32(const pl_bcast *bc, float lo, float hi, const float *a, const float *b,
                float *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = pl_fx_clamp_f32(a[it.i1] / b[it.i2], lo, hi);
}

void pl_div_f32_range(const pl_node *node, float *lo, float *hi)
{
    const opdata *d = node->user_data;
    *lo = d->f_min;
    *hi = d->f_max;
}

/* False when a divisor is 0 (nothing is written then). */
static bool div_s32(const opdata *d, const pl_bcast *bc, const int32_t *a, const int32_t *b,
                    int32_t *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it)) {
        if (b[it.i2] == 0)
            return false;
    }
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it)) {
        int32_t x = a[it.i1], y = b[it.i2];
        int32_t q = x == INT32_MIN && y == -1 ? INT32_MIN : x / y; /* wraps, as on hardware */
        out[i] = pl_fx_clamp(q, d->i_min, d->i_max);
    }
    return true;
}

/* CountLeadingSignBits: 31 for 0 and -1. */
static int32_t leading_sign_bits(int32_t x)
{
    uint32_t u = x >= 0 ? (uint32_t)x : ~(uint32_t)x;
    int32_t n = 0;
    while (n < 32 && (u & (0x80000000u >> n)) == 0)
        n++;
    return n - 1;
}

/* gemmlowp RoundingDivideByPOT for any exponent, as TFLite's build computes it: the mask is
** (1ll << e) - 1 truncated to 32 bits, and x >> e past 31 takes the count mod 32 on x86-64
** but fills with the sign bit on Arm. A dividend of 0 has 31 bits of headroom, which pushes
** e past 31: the mask is then all ones and the result 1, so LiteRT and TFLM give the output
** zero point + 1 for 0 / x on both; a dividend of -1 gives -1 on Arm. */
static int32_t rdbpot_any(int32_t x, int32_t e, bool arm)
{
    int32_t mask = (int32_t)(uint32_t)(((uint64_t)1 << (e & 63)) - 1u);
    int32_t remainder = x & mask;
    int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    int32_t shifted = arm && e > 31 ? (x < 0 ? -1 : 0) : x >> (e & 31);
    return shifted + (remainder > threshold ? 1 : 0);
}

/* One element of TFLite's DivElementwise (the ints are the offset values; y is not 0). */
static int32_t div_one(const pl_div_params *d, int32_t x, int32_t y)
{
    if (y < 0) { /* the reciprocal must be positive: flip both signs (wrapping) */
        x = (int32_t)(0u - (uint32_t)x);
        y = (int32_t)(0u - (uint32_t)y);
    }
    int32_t recip_shift = 0;
    int32_t inv = pl_lut_reciprocal(y, 31, &recip_shift);
    int32_t headroom = leading_sign_bits(x);
    /* MultiplyByQuantizedMultiplierGreaterThanOne: the headroom keeps the shift exact */
    int32_t unscaled = pl_fx_srdhm((int32_t)((uint32_t)x << headroom), inv);
    int32_t exponent = -(d->shift - recip_shift - headroom);
    int32_t scaled = pl_fx_srdhm(unscaled, d->multiplier);
    int64_t v = (int64_t)rdbpot_any(scaled, exponent, d->arm_shifts) + d->output_offset;
    return v < d->act_min ? d->act_min : v > d->act_max ? d->act_max : (int32_t)v;
}

void pl_div_s8(const pl_div_params *d, const pl_bcast *bc, const int8_t *a, const int8_t *b,
               int8_t *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = (int8_t)div_one(d, d->input1_offset + a[it.i1], d->input2_offset + b[it.i2]);
}

void pl_div_u8(const pl_div_params *d, const pl_bcast *bc, const uint8_t *a, const uint8_t *b,
               uint8_t *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = (uint8_t)div_one(d, d->input1_offset + a[it.i1], d->input2_offset + b[it.i2]);
}

static bool has_zero_divisor(const pl_tensor *b, int32_t offset)
{
    size_t n = pl_tensor_count(b);
    for (size_t i = 0; i < n; i++) {
        int32_t v = b->type == PL_INT8 ? ((const int8_t *)b->data)[i]
                                       : ((const uint8_t *)b->data)[i];
        if (v + offset == 0)
            return true;
    }
    return false;
}

/* div.cc: the activation range in output units, and input1 / (input2 * output) scales as
** a float quotient widened to double (LiteRT, TFLM 90b983c), or in double (the wheel's
** TFLM). */
static pl_status prepare_quantized(pl_context *ctx, pl_tensor *const t[3], int32_t act,
                                   pl_div_params *d)
{
    for (int k = 0; k < 3; k++) {
        if (t[k]->q.count != 1)
            return ctx->fail(ctx, PL_ERR_MODEL, "tensor %d: needs per-tensor quantization "
                             "(got %u scales)", (int)t[k]->index, t[k]->q.count);
    }
    bool u8 = t[2]->type == PL_UINT8;
    d->input1_offset = -t[0]->q.zero_point[0];
    d->input2_offset = -t[1]->q.zero_point[0];
    d->output_offset = t[2]->q.zero_point[0];
    if (pl_fx_activation_range_q(act, t[2]->q.scale[0], d->output_offset, u8 ? 0 : INT8_MIN,
                                 u8 ? UINT8_MAX : INT8_MAX, &d->act_min, &d->act_max) != PL_OK)
        return ctx->fail(ctx, PL_ERR_MODEL, "activation bounds do not fit the output "
                         "quantization");
    float s1 = t[0]->q.scale[0], s2 = t[1]->q.scale[0], so = t[2]->q.scale[0];
    double real = pl_fx_pick(pl_arith_wide(ctx->arith), (double)s1 / ((double)s2 * (double)so),
                             (double)(s1 / (s2 * so)));
    pl_fx_quantize_multiplier(real, &d->multiplier, &d->shift);
    d->arm_shifts = ctx->arith != PL_ARITH_LITERT && ctx->arith != PL_ARITH_TFLM_WIDE;
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    pl_tensor *t[3];
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &t[0], &t[1], &t[2]));
    pl_type ty = t[2]->type;
    if (t[0]->type != ty || t[1]->type != ty ||
        (ty != PL_FLOAT32 && ty != PL_INT32 && ty != PL_INT8 && ty != PL_UINT8))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "input types %s, %s with output type %s are "
                         "not supported", pl_type_name(t[0]->type), pl_type_name(t[1]->type),
                         pl_type_name(ty));
    int32_t act = pl_table_i8(&node->options, 0, 0);
    if (act < PL_ACT_NONE || act > PL_ACT_RELU6)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "fused activation %d is not supported",
                         (int)act);
    PL_TRY(pl_bcast_set_output(ctx, t[0], t[1], t[2]));
    pl_bcast bc;
    pl_bcast_result br = pl_bcast_setup(&bc, t[0], t[1], t[2]);
    if (br == PL_BCAST_RANK)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "broadcasting above rank %d is not supported",
                         PL_BCAST_MAX_DIMS);
    if (br != PL_BCAST_OK)
        return ctx->fail(ctx, PL_ERR_MODEL, "output shape is not the broadcast of the inputs");
    pl_fx_activation_range_f32(act, &d->f_min, &d->f_max);
    d->i_min = act == PL_ACT_RELU || act == PL_ACT_RELU6 ? 0
               : act == PL_ACT_RELU_N1_TO_1             ? -1
                                                        : INT32_MIN;
    d->i_max = act == PL_ACT_RELU6 ? 6 : act == PL_ACT_RELU_N1_TO_1 ? 1 : INT32_MAX;
    return ty == PL_INT8 || ty == PL_UINT8 ? prepare_quantized(ctx, t, act, &d->q) : PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const opdata *d = node->user_data;
    pl_tensor a, b, o;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &a, &b, &o));
    pl_bcast bc;
    if (pl_bcast_setup(&bc, &a, &b, &o) != PL_BCAST_OK)
        return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
    if (o.type == PL_FLOAT32) {
        pl_div_f32(&bc, d->f_min, d->f_max, a.data, b.data, o.data);
        return PL_OK;
    }
    if (o.type == PL_INT8 || o.type == PL_UINT8) {
        if (has_zero_divisor(&b, d->q.input2_offset))
            return ctx->fail(ctx, PL_ERR_ARG, "%s division by zero (a divisor at its zero "
                             "point %d)", pl_type_name(o.type), -d->q.input2_offset);
        if (o.type == PL_INT8)
            pl_div_s8(&d->q, &bc, a.data, b.data, o.data);
        else
            pl_div_u8(&d->q, &bc, a.data, b.data, o.data);
        return PL_OK;
    }
    if (!div_s32(d, &bc, a.data, b.data, o.data))
        return ctx->fail(ctx, PL_ERR_ARG, "INT32 division by zero");
    return PL_OK;
}

const pl_registration *pl_div_registration(void)
{
    static const pl_registration r = {.name = "DIV", .builtin_code = OP_DIV, .prepare = prepare,
                                      .invoke = invoke, .user_data_size = sizeof(opdata)};
    return &r;
}
