/* log_softmax.c - LOG_SOFTMAX (see log_softmax.h). */
#include "log_softmax.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "kernels/common/fixedpoint.h"
#include "kernels/common/lut.h"
#include "kernels/elementwise/binary.h"
#include "picolite/pl_node_io.h"

enum { OP_LOG_SOFTMAX = 50 };

/* Integer bits: input differences Q5, the sum of exps Q12, the log's accumulator Q6. */
enum { IN_BITS = 5, SUM_BITS = 12, ACC_BITS = 6, OUT_BITS = 4 };

void pl_log_softmax_f32(const float *in, float *out, size_t depth)
{
    float max = -FLT_MAX;
    for (size_t c = 0; c < depth; c++)
        max = in[c] > max ? in[c] : max;
    float sum = 0.0f;
    for (size_t c = 0; c < depth; c++)
        sum += expf(in[c] - max);
    float log_sum = logf(sum);
    for (size_t c = 0; c < depth; c++)
        out[c] = in[c] - max - log_sum;
}

/* {==== gemmlowp fixed point on raw int32 (wrapping where gemmlowp's operators wrap) */

static int32_t add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static int32_t sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }

static int32_t sat64(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* SaturatingRoundingMultiplyByPOTParam. TFLite's has no branch for a negative exponent,
** which a sum of exps past 2^31 (4096 or more values near the row's maximum: the sum wraps
** negative) reaches as -1: its threshold shift then runs one past the width, which the x86
** hosts LiteRT and TFLM run on reduce to a shift by 0, so the threshold is 0 and every
** nonzero x saturates to its sign. That is the answer to match. */
static int32_t mul_pot(int32_t x, int32_t exponent)
{
    if (exponent < 0)
        return x > 0 ? INT32_MAX : x < 0 ? INT32_MIN : 0;
    if (exponent == 0)
        return x;
    int32_t threshold = (int32_t)((1u << (31 - exponent)) - 1u);
    return x > threshold ? INT32_MAX : x < -threshold ? INT32_MIN
                                                      : (int32_t)((uint32_t)x << exponent);
}

static int32_t clz(uint32_t x)
{
    int32_t n = 0;
    while (n < 32 && !(x & (0x80000000u >> n)))
        n++;
    return n;
}

static int32_t half_sum(int32_t a, int32_t b)
{
    int64_t s = (int64_t)a + b;
    return (int32_t)((s + (s >= 0 ? 1 : -1)) / 2);
}

/* }==== */

int32_t pl_log_softmax_log_q12(int32_t x)
{
    const int32_t log_2 = 1488522236, sqrt_sqrt_half = 1805811301, sqrt_half = 1518500250;
    const int32_t alpha_n = 117049297, alpha_d = 127690142, alpha_i = 1057819769,
                  alpha_f = 638450708;
    const int32_t shifted_quarter = pl_fx_rdbpot(536870912, ACC_BITS);
    int32_t za_headroom_plus_1 = clz((uint32_t)x);
    int32_t r_a = mul_pot(pl_fx_srdhm(mul_pot(x, za_headroom_plus_1 - 1), sqrt_half), 1);
    int32_t za_adj = sat64((int64_t)mul_pot(SUM_BITS - za_headroom_plus_1, 31 - ACC_BITS) +
                           shifted_quarter);
    int32_t zb_headroom = clz((uint32_t)pl_fx_srdhm(x, sqrt_half)) - 1;
    int32_t r_b = mul_pot(x, zb_headroom);
    int32_t zb_adj = sat64((int64_t)mul_pot(SUM_BITS - zb_headroom, 31 - ACC_BITS) -
                           shifted_quarter);
    int32_t r = r_a < r_b ? r_a : r_b;
    int32_t z_adj = za_adj > zb_adj ? za_adj : zb_adj;
    int32_t p = half_sum(r, sqrt_sqrt_half);
    int32_t q = sub(r, sqrt_sqrt_half);
    q = add(q, q);
    int32_t sq = pl_fx_srdhm(q, q);
    int32_t num = add(pl_fx_srdhm(q, r), pl_fx_srdhm(pl_fx_srdhm(q, sq), alpha_n));
    int32_t den = add(pl_fx_srdhm(p, add(add(alpha_i, q), pl_fx_srdhm(alpha_d, sq))),
                      pl_fx_srdhm(alpha_f, q));
    int32_t recip = pl_lut_one_over_one_plus_x(den);
    int32_t num_scaled = pl_fx_rdbpot(num, ACC_BITS);
    int32_t sum = add(pl_fx_srdhm(z_adj, log_2), pl_fx_srdhm(num_scaled, recip));
    return mul_pot(sum, ACC_BITS - IN_BITS);
}

/* One row of int8 (zero point 127) or uint8 (zero point 255, LiteRT's uint8 LogSoftmax):
** the same arithmetic, the output range shifted by 128. */
static void row_q(const pl_log_softmax_params *p, const void *in, void *out, size_t depth,
                  bool u8)
{
    const int32_t lo = u8 ? 0 : INT8_MIN, hi = u8 ? 255 : INT8_MAX;
    int32_t max = lo;
    for (size_t c = 0; c < depth; c++) {
        int32_t v = u8 ? ((const uint8_t *)in)[c] : ((const int8_t *)in)[c];
        max = v > max ? v : max;
    }
    int32_t sum = 0; /* Q12.19 */
    for (size_t c = 0; c < depth; c++) {
        int32_t diff = (u8 ? ((const uint8_t *)in)[c] : ((const int8_t *)in)[c]) - max;
        if (diff >= p->diff_min) {
            int32_t d5 = pl_fx_mul_by_qm(diff, p->input_multiplier, p->input_left_shift);
            sum = add(sum, pl_fx_rdbpot(pl_lut_exp_neg(d5, IN_BITS), SUM_BITS));
        }
    }
    int32_t log_sum = pl_log_softmax_log_q12(sum);
    int32_t adjusted = pl_fx_mul_by_qm(add(log_sum, INT32_MIN), p->reverse_multiplier,
                                       p->reverse_shift);
    adjusted = adjusted > p->diff_min - 1 ? adjusted : p->diff_min - 1;
    for (size_t c = 0; c < depth; c++) {
        int32_t diff = (u8 ? ((const uint8_t *)in)[c] : ((const int8_t *)in)[c]) - max, v = lo;
        if (diff > adjusted) {
            int32_t d5 = pl_fx_mul_by_qm(diff, p->input_multiplier, p->input_left_shift);
            v = pl_fx_rdbpot(sub(d5, log_sum), 31 - IN_BITS - OUT_BITS) + hi;
            v = pl_fx_clamp(v, lo, hi);
        }
        if (u8)
            ((uint8_t *)out)[c] = (uint8_t)v;
        else
            ((int8_t *)out)[c] = (int8_t)v;
    }
}

void pl_log_softmax_s8(const pl_log_softmax_params *p, const int8_t *in, int8_t *out,
                       size_t depth)
{
    row_q(p, in, out, depth, false);
}

void pl_log_softmax_u8(const pl_log_softmax_params *p, const uint8_t *in, uint8_t *out,
                       size_t depth)
{
    row_q(p, in, out, depth, true);
}

/* PreprocessLogSoftmaxScalingExp with beta 1 and 5 integer bits, CalculateInputRadius. */
static pl_status prepare_q(pl_context *ctx, const pl_tensor *in, const pl_tensor *out,
                            pl_log_softmax_params *p)
{
    if (in->q.count == 0 || out->q.count == 0 || !(in->q.scale[0] > 0.0f))
        return ctx->fail(ctx, PL_ERR_MODEL, "quantized input and output need scales");
    int32_t zp = in->type == PL_UINT8 ? 255 : 127;
    if (out->q.scale[0] != 16.0f / 256 || out->q.zero_point[0] != zp)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s output needs scale 16/256 and zero "
                         "point %d, got %g and %d", pl_type_name(in->type), (int)zp,
                         (double)out->q.scale[0], (int)out->q.zero_point[0]);
    double real = (double)in->q.scale[0] * (double)(1 << (31 - IN_BITS));
    real = real < 2147483647.0 ? real : 2147483647.0;
    pl_fx_quantize_multiplier(real, &p->input_multiplier, &p->input_left_shift);
    if (!(real > 1.0) || p->input_left_shift < 1 || p->input_left_shift > 30)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "input scale %g is outside the range the "
                         "int8 kernel handles", (double)in->q.scale[0]);
    double reverse = (double)(1 << (31 - p->input_left_shift)) / (double)p->input_multiplier;
    if (!(reverse > 0.0 && reverse < 1.0))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "reverse scaling %g is not in (0, 1)",
                         reverse);
    pl_fx_quantize_multiplier(reverse, &p->reverse_multiplier, &p->reverse_shift);
    double radius = 1.0 * ((1 << IN_BITS) - 1) * (double)(1LL << (31 - IN_BITS)) /
                    (double)(1LL << p->input_left_shift);
    p->diff_min = -(int32_t)floor(radius);
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *out;
    PL_TRY(pl_unary_prepare(ctx, node, &in, &out));
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES3(PL_FLOAT32, PL_INT8, PL_UINT8)));
    if (in->ndims < 1 || in->dims[in->ndims - 1] < 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "needs a non-empty last dim");
    return in->type == PL_FLOAT32 ? PL_OK : prepare_q(ctx, in, out, node->user_data);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor in, out;
    size_t n;
    PL_TRY(pl_unary_eval(ctx, node, &in, &out, &n));
    if (in.ndims < 1 || in.dims[in.ndims - 1] < 1)
        return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
    size_t depth = (size_t)in.dims[in.ndims - 1];
    for (size_t r = 0; r < n / depth; r++) {
        if (in.type == PL_FLOAT32)
            pl_log_softmax_f32((const float *)in.data + r * depth,
                               (float *)out.data + r * depth, depth);
        else if (in.type == PL_INT8)
            pl_log_softmax_s8(node->user_data, (const int8_t *)in.data + r * depth,
                              (int8_t *)out.data + r * depth, depth);
        else
            pl_log_softmax_u8(node->user_data, (const uint8_t *)in.data + r * depth,
                              (uint8_t *)out.data + r * depth, depth);
    }
    return PL_OK;
}

const pl_registration *pl_log_softmax_registration(void)
{
    static const pl_registration r = {.name = "LOG_SOFTMAX", .builtin_code = OP_LOG_SOFTMAX,
                                      .prepare = prepare, .invoke = invoke,
                                      .user_data_size = sizeof(pl_log_softmax_params)};
    return &r;
}
