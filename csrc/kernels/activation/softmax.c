/* softmax.c - SOFTMAX (see softmax.h); Prepare as tensorflow/lite/kernels/activations.cc
** SoftmaxPrepare<kReference>. */
#include "softmax.h"

#include <float.h>
#include <math.h>

#include "kernels/activation/activations.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/common/fmath.h"
#include "kernels/common/lut.h"
#include "kernels/registry.h"
#include "picolite/pl_node_io.h"

enum { SOFTMAX_CODE = 25 };

/* Q5.26 for the scaled differences, Q12.19 for the sum (reference_ops::Softmax). */
enum { SCALED_DIFF_BITS = 5, ACCUM_BITS = PL_SOFTMAX_ACCUM_BITS };

void pl_softmax_f32(float beta, const float *in, float *out, size_t outer, size_t depth)
{
    for (size_t i = 0; i < outer; i++, in += depth, out += depth) {
        float max = -FLT_MAX; /* numeric_limits<float>::lowest() */
        for (size_t c = 0; c < depth; c++)
            max = in[c] > max ? in[c] : max;
        float sum = 0.0f;
        for (size_t c = 0; c < depth; c++) {
            out[c] = pl_fmath_expf((in[c] - max) * beta);
            sum += out[c];
        }
        for (size_t c = 0; c < depth; c++)
            out[c] = out[c] / sum;
    }
}

/* exp(beta * scale * diff) in Q0.31 for a difference that passed diff_min. */
static int32_t exp_of_diff(const pl_softmax_params *p, int32_t diff)
{
    /* MultiplyByQuantizedMultiplierGreaterThanOne: diff_min keeps the shift in range */
    int32_t scaled = (int32_t)((uint32_t)diff << p->input_left_shift);
    return pl_lut_exp_neg(pl_fx_srdhm(scaled, p->input_multiplier), SCALED_DIFF_BITS);
}

/* The exp of diff from the host table exps (indexed by -diff) or computed. */
static inline int32_t exp_at(const pl_softmax_params *p, const int32_t *exps, int32_t diff)
{
    return exps != NULL ? exps[-diff] : exp_of_diff(p, diff);
}

void pl_softmax_exp_table(const pl_softmax_params *p, int32_t exps[PL_SOFTMAX_EXPS])
{
    for (int32_t d = 0; d < PL_SOFTMAX_EXPS; d++)
        exps[d] = -d >= p->diff_min ? exp_of_diff(p, -d) : 0; /* 0: contributes nothing */
}

int32_t pl_softmax_s8_recip(int32_t sum, int32_t out_bits, int32_t *scale)
{
    int32_t bits_over_unit = 0;
    *scale = pl_lut_reciprocal(sum, ACCUM_BITS, &bits_over_unit);
    return bits_over_unit + 31 - out_bits;
}

/* Row maximum, then the reciprocal of the sum of exps; returns the final shift. */
static int32_t row_scale_s8(const pl_softmax_params *p, const int32_t *exps, const int8_t *in,
                            size_t depth, int32_t out_bits, int32_t *scale)
{
    int32_t max = INT8_MIN, sum = 0;
    for (size_t c = 0; c < depth; c++)
        max = in[c] > max ? in[c] : max;
    for (size_t c = 0; c < depth; c++) {
        if (in[c] - max >= p->diff_min)
            sum += pl_fx_rdbpot(exp_at(p, exps, in[c] - max), ACCUM_BITS);
    }
    return pl_softmax_s8_recip(sum, out_bits, scale);
}

/* One output value before the narrowing cast, in [lo, lo + 2^out_bits). */
static int32_t value_s8(const pl_softmax_params *p, const int32_t *exps, int32_t diff,
                        int32_t scale, int32_t exponent, int32_t lo, int32_t hi)
{
    if (diff < p->diff_min)
        return lo;
    /* A row whose sum of exps reaches 2^28 (512 or more values near its maximum) makes the
    ** exponent 32 to 34 with 8-bit outputs: TFLite's RoundingDivideByPOT asserts exponent
    ** <= 31 there and aborts. The quotient of the non-negative product by 2^32 or more
    ** rounds to 0 (and the int32 shift would be undefined), so the value is lo. */
    if (exponent > 31)
        return lo;
    int32_t unsat = pl_fx_rdbpot(pl_fx_srdhm(scale, exp_at(p, exps, diff)), exponent);
    return pl_fx_clamp(unsat + lo, lo, hi);
}

void pl_softmax_s8_exps(const pl_softmax_params *p, const int32_t *exps, const int8_t *in,
                        int8_t *out, size_t outer, size_t depth)
{
    for (size_t i = 0; i < outer; i++, in += depth, out += depth) {
        int32_t scale, max = INT8_MIN;
        int32_t exponent = row_scale_s8(p, exps, in, depth, 8, &scale);
        for (size_t c = 0; c < depth; c++)
            max = in[c] > max ? in[c] : max;
        for (size_t c = 0; c < depth; c++)
            out[c] = (int8_t)value_s8(p, exps, in[c] - max, scale, exponent, INT8_MIN,
                                      INT8_MAX);
    }
}

void pl_softmax_s8(const pl_softmax_params *p, const int8_t *in, int8_t *out, size_t outer,
                   size_t depth)
{
    pl_softmax_s8_exps(p, NULL, in, out, outer, depth);
}

/* Legacy uint8: TFLite's same template with InputT = OutputT = uint8_t (lowest 0). */
static int32_t row_scale_u8(const pl_softmax_params *p, const uint8_t *in, size_t depth,
                            int32_t *max_out, int32_t *scale)
{
    int32_t max = 0, sum = 0, bits_over_unit = 0;
    for (size_t c = 0; c < depth; c++)
        max = in[c] > max ? in[c] : max;
    for (size_t c = 0; c < depth; c++) {
        if (in[c] - max >= p->diff_min)
            sum += pl_fx_rdbpot(exp_of_diff(p, in[c] - max), ACCUM_BITS);
    }
    *max_out = max;
    *scale = pl_lut_reciprocal(sum, ACCUM_BITS, &bits_over_unit);
    return bits_over_unit + 31 - 8;
}

void pl_softmax_u8(const pl_softmax_params *p, const uint8_t *in, uint8_t *out, size_t outer,
                   size_t depth)
{
    for (size_t i = 0; i < outer; i++, in += depth, out += depth) {
        int32_t scale, max;
        int32_t exponent = row_scale_u8(p, in, depth, &max, &scale);
        for (size_t c = 0; c < depth; c++)
            out[c] = (uint8_t)value_s8(p, NULL, in[c] - max, scale, exponent, 0, UINT8_MAX);
    }
}

void pl_softmax_s8_s16_exps(const pl_softmax_params *p, const int32_t *exps,
                            const int8_t *in, int16_t *out, size_t outer, size_t depth)
{
    for (size_t i = 0; i < outer; i++, in += depth, out += depth) {
        int32_t scale, max = INT8_MIN;
        int32_t exponent = row_scale_s8(p, exps, in, depth, 16, &scale);
        for (size_t c = 0; c < depth; c++)
            max = in[c] > max ? in[c] : max;
        for (size_t c = 0; c < depth; c++)
            out[c] = (int16_t)value_s8(p, exps, in[c] - max, scale, exponent, INT16_MIN,
                                       INT16_MAX);
    }
}

void pl_softmax_s8_s16(const pl_softmax_params *p, const int8_t *in, int16_t *out,
                       size_t outer, size_t depth)
{
    pl_softmax_s8_s16_exps(p, NULL, in, out, outer, depth);
}

/* exp(input - max) from the table: [-65535, 0] on the input scale maps to [-10, 0]. */
static int16_t exp_s16(const pl_softmax_params *p, int32_t diff)
{
    int32_t scaled = pl_fx_mul_by_qm(diff, p->input_multiplier, p->input_left_shift);
    int32_t centered = pl_fx_clamp(scaled + 32767, INT16_MIN, INT16_MAX);
    return pl_lut_lookup_s16((int16_t)centered, p->exp_lut);
}

static int32_t clz32(uint32_t x)
{
    int32_t n = 0;
    for (; n < 32 && !(x & 0x80000000u); n++)
        x <<= 1;
    return n;
}

int32_t pl_softmax_s16_exp_count(const pl_softmax_params *p)
{
    int16_t last = exp_s16(p, -(PL_SOFTMAX_S16_EXPS - 1));
    int32_t n = PL_SOFTMAX_S16_EXPS;
    while (n > 1 && exp_s16(p, -(n - 2)) == last)
        n--;
    return n;
}

void pl_softmax_s16_exp_table(const pl_softmax_params *p, int16_t *exps, int32_t n)
{
    for (int32_t d = 0; d < n; d++)
        exps[d] = exp_s16(p, -d);
}

int16_t pl_softmax_s16_recip(const pl_softmax_params *p, int32_t sum, int32_t *right_shift)
{
    int32_t headroom_plus_one = clz32((uint32_t)sum);
    int32_t shifted = (int32_t)((((int64_t)sum << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
    /* the table takes x = sum - 1, recentered from [0, 65535] to [-32768, 32767] */
    int32_t x = shifted - ((1 << 15) + (1 << 16));
    int32_t centered = p->wraps ? (int16_t)(uint16_t)(uint32_t)x
                                : pl_fx_clamp(x, INT16_MIN, INT16_MAX);
    *right_shift = 31 - headroom_plus_one;
    return pl_lut_lookup_s16((int16_t)centered, p->recip_lut);
}

void pl_softmax_s16_scale(const pl_softmax_params *p, int16_t *out, size_t depth, int16_t recip,
                          int32_t right_shift)
{
    int64_t round = (int64_t)1 << (right_shift - 1);
    for (size_t c = 0; c < depth; c++) {
        int32_t r = (int32_t)(((int64_t)out[c] * recip + round) >> right_shift);
        out[c] = p->wraps ? (int16_t)(uint16_t)(uint32_t)r : (int16_t)pl_fx_clamp(r, 0, INT16_MAX);
    }
}

void pl_softmax_s16_exps(const pl_softmax_params *p, const int16_t *exps, int32_t n_exps,
                         const int16_t *in, int16_t *out, size_t outer, size_t depth)
{
    for (size_t i = 0; i < outer; i++, in += depth, out += depth) {
        int32_t max = INT16_MIN, sum = 0, right_shift;
        for (size_t c = 0; c < depth; c++)
            max = in[c] > max ? in[c] : max;
        /* the exps are cached in the output row, as TFLite does */
        for (size_t c = 0; c < depth; c++) {
            int32_t d = max - in[c];
            out[c] = exps == NULL ? exp_s16(p, -d) : exps[d < n_exps ? d : n_exps - 1];
            sum += out[c];
        }
        int16_t recip = pl_softmax_s16_recip(p, sum, &right_shift);
        pl_softmax_s16_scale(p, out, depth, recip, right_shift);
    }
}

void pl_softmax_s16(const pl_softmax_params *p, const int16_t *in, int16_t *out,
                    size_t outer, size_t depth)
{
    pl_softmax_s16_exps(p, NULL, 0, in, out, outer, depth);
}

static double exp_fn(double x)
{
    return exp(x);
}

static double one_over_one_plus_x_fn(double x)
{
    return 1.0 / (1.0 + x);
}

/* TFLM's transforms are float lambdas: LUTPopulate<int16_t> instantiated for float. */
static float exp_fn_f32(float x)
{
    return pl_fmath_expf(x);
}

static float one_over_one_plus_x_fn_f32(float x)
{
    return 1.0f / (1.0f + x);
}

/* PreprocessSoftmaxScaling with 5 integer bits, and CalculateInputRadius for diff_min. */
static pl_status prepare_s8(pl_context *ctx, pl_softmax_op *d, float input_scale)
{
    double real = (double)d->p.beta * (double)input_scale * (double)(1 << (31 - SCALED_DIFF_BITS));
    if (real > 2147483647.0)
        real = 2147483647.0;
    int32_t shift = 0;
    pl_fx_quantize_multiplier(real, &d->p.input_multiplier, &shift);
    if (!(real > 1.0) || shift < 0 || shift > 31)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "SOFTMAX: beta * input scale %g is too small for 8 bits", real);
    d->p.input_left_shift = shift;
    double radius = 1.0 * ((1 << SCALED_DIFF_BITS) - 1) *
                    (double)(1LL << (31 - SCALED_DIFF_BITS)) / (double)(1LL << shift);
    d->p.diff_min = -(int32_t)floor(radius);
    return PL_OK;
}

/* int16: LiteRT's tables are LUTPopulate<int16_t> over double transforms; TFLM's (tflm)
** over float ones (its lambdas take float), with std::exp's float overload. */
static pl_status prepare_s16(pl_context *ctx, pl_softmax_op *d, const pl_act_q *in,
                             const pl_act_q *out, bool tflm)
{
    if (in->zero_point != 0 || out->zero_point != 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "SOFTMAX: int16 needs zero points 0, got %d and %d", in->zero_point,
                         out->zero_point);
    /* the two tables (2 KB) live in their own persistent buffer: only int16 needs them */
    void *mem;
    PL_TRY(ctx->alloc_persistent(ctx, 2 * PL_LUT_S16_SIZE * sizeof(int16_t), &mem));
    int16_t *luts = mem;
    if (tflm) { /* float tables, and the scale product in double */
        const float range = 65535.0f;
        pl_lut_populate_s16_f32(10.0f / range, 32767, 2.0f / range, 0, exp_fn_f32, luts);
        pl_lut_populate_s16_f32(1.0f / range, -32768, 2.0f / range, 0,
                                one_over_one_plus_x_fn_f32, luts + PL_LUT_S16_SIZE);
    } else {
        const double range = 65535.0;
        pl_lut_populate_s16(10.0 / range, 32767, 2.0 / range, 0, exp_fn, luts);
        pl_lut_populate_s16(1.0 / range, -32768, 2.0 / range, 0, one_over_one_plus_x_fn,
                            luts + PL_LUT_S16_SIZE);
    }
    d->p.exp_lut = luts;
    d->p.recip_lut = luts + PL_LUT_S16_SIZE;
    /* LiteRT: the scale product in float, then divided in double */
    double scale_beta = pl_fx_pick(tflm, (double)in->scale * (double)d->p.beta,
                                   (double)(in->scale * d->p.beta));
    pl_fx_quantize_multiplier(scale_beta / (10.0 / 65535.0), &d->p.input_multiplier,
                              &d->p.input_left_shift);
    d->p.wraps = pl_arith_cmsis_nn(ctx->arith);
    return PL_OK;
}

/* TF_LITE_ENSURE_NEAR on the output scale, in float. */
static bool scale_near(float scale, float want)
{
    float delta = scale > want ? scale - want : want - scale;
    return !(delta > 0.001f * want);
}

static pl_status check_output(pl_context *ctx, const pl_tensor *in, const pl_tensor *out,
                              const pl_act_q *oq)
{
    if (in->type == PL_INT8 && out->type == PL_INT8 &&
        (oq->zero_point != -128 || !scale_near(oq->scale, 1.0f / 256)))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "SOFTMAX: int8 output needs scale 1/256 and zero point -128, got "
                         "%g and %d", (double)oq->scale, oq->zero_point);
    if (in->type == PL_UINT8 && (oq->zero_point != 0 || !scale_near(oq->scale, 1.0f / 256)))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "SOFTMAX: uint8 output needs scale 1/256 and zero point 0, got "
                         "%g and %d", (double)oq->scale, oq->zero_point);
    if (in->type == PL_INT16 && (oq->zero_point != 0 || !scale_near(oq->scale, 1.0f / 32768)))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "SOFTMAX: int16 output needs scale 1/32768 and zero point 0, got "
                         "%g and %d", (double)oq->scale, oq->zero_point);
    if (in->type == PL_INT16 && in->ndims > 4)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "SOFTMAX: int16 supports ranks 1 to 4, got %d",
                         in->ndims);
    return PL_OK;
}

static pl_status softmax_prepare(pl_context *ctx, pl_node *node)
{
    pl_softmax_op *d = node->user_data;
    pl_tensor *in, *out;
    PL_TRY(pl_act_unary(ctx, node, &in, &out));
    if (in->ndims < 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "SOFTMAX: input must have rank >= 1");
    d->p.beta = pl_table_f32(&node->options, 0, 0.0f);
    bool ok = (in->type == PL_FLOAT32 && out->type == PL_FLOAT32) ||
              (in->type == PL_INT8 && (out->type == PL_INT8 || out->type == PL_INT16)) ||
              (in->type == PL_INT16 && out->type == PL_INT16) ||
              (in->type == PL_UINT8 && out->type == PL_UINT8);
    if (!ok)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "SOFTMAX: input type %s with output type %s is not supported",
                         pl_type_name(in->type), pl_type_name(out->type));
    if (in->type == PL_FLOAT32)
        return PL_OK;
    pl_act_q iq, oq;
    PL_TRY(pl_act_quant(ctx, in, &iq));
    PL_TRY(pl_act_quant(ctx, out, &oq));
    PL_TRY(check_output(ctx, in, out, &oq));
    return in->type == PL_INT16 ? prepare_s16(ctx, d, &iq, &oq, ctx->arith != PL_ARITH_LITERT)
                                : prepare_s8(ctx, d, iq.scale);
}

static pl_status softmax_invoke(pl_context *ctx, pl_node *node)
{
    const pl_softmax_op *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    size_t depth = (size_t)in.dims[in.ndims - 1];
    size_t outer = depth == 0 ? 0 : pl_tensor_count(&in) / depth;
    if (in.type == PL_FLOAT32)
        pl_softmax_f32(d->p.beta, in.data, out.data, outer, depth);
    else if (in.type == PL_INT16)
        pl_softmax_s16(&d->p, in.data, out.data, outer, depth);
    else if (in.type == PL_UINT8)
        pl_softmax_u8(&d->p, in.data, out.data, outer, depth);
    else if (out.type == PL_INT8)
        pl_softmax_s8(&d->p, in.data, out.data, outer, depth);
    else
        pl_softmax_s8_s16(&d->p, in.data, out.data, outer, depth);
    return PL_OK;
}

const pl_registration *pl_softmax_registration(void)
{
    static const pl_registration reg = {.name = "SOFTMAX", .builtin_code = SOFTMAX_CODE,
                                        .prepare = softmax_prepare, .invoke = softmax_invoke,
                                        .user_data_size = sizeof(pl_softmax_op)};
    return &reg;
}
