/* l2norm.c - L2_NORMALIZATION (see l2norm.h). */
#include "l2norm.h"

#include <math.h>
#include <stdbool.h>

#include "kernels/common/fixedpoint.h"
#include "kernels/common/invsqrt.h"
#include "kernels/common/madd.h"
#include "kernels/elementwise/binary.h"
#include "picolite/pl_node_io.h"

enum { OP_L2_NORMALIZATION = 11 };

/* Squares of int8 differences (< 2^16 each) fit an int32 sum over this many values. */
#define PL_L2NORM_MAX_DEPTH 32768

void pl_l2norm_s8(int32_t input_zp, const int8_t *in, int8_t *out, size_t depth)
{
    int32_t acc = 0;
    for (size_t c = 0; c < depth; c++)
        acc += (in[c] - input_zp) * (in[c] - input_zp);
    int32_t m, s;
    pl_invsqrt_multiplier(acc, -1, &m, &s);
    for (size_t c = 0; c < depth; c++) {
        int32_t v = pl_fx_mul_by_qm(in[c] - input_zp, m, s + 7); /* output in 1/128 */
        out[c] = (int8_t)pl_fx_clamp(v, INT8_MIN, INT8_MAX);
    }
}

/* LiteRT's uint8 reference: 128 * diff rescaled, around 128. */
void pl_l2norm_u8(int32_t input_zp, const uint8_t *in, uint8_t *out, size_t depth)
{
    int32_t acc = 0;
    for (size_t c = 0; c < depth; c++)
        acc += (in[c] - input_zp) * (in[c] - input_zp);
    int32_t m, s;
    pl_invsqrt_multiplier(acc, -1, &m, &s);
    for (size_t c = 0; c < depth; c++) {
        int32_t v = 128 + pl_fx_mul_by_qm(128 * (in[c] - input_zp), m, s);
        out[c] = (uint8_t)pl_fx_clamp(v, 0, 255);
    }
}

/* fused: each square fused into the sum, as a fused target's firmware computes it */
static void l2norm_f32(const float *in, float *out, size_t depth, bool fused)
{
    float sum = 0.0f;
    for (size_t c = 0; c < depth; c++)
        sum = pl_madd_f32(sum, in[c], in[c], fused);
    float norm = sqrtf(sum);
    norm = norm < 1e-6f ? 1e-6f : norm;
    for (size_t c = 0; c < depth; c++)
        out[c] = in[c] / norm;
}

static pl_status check_quant(pl_context *ctx, const pl_tensor *in, const pl_tensor *out)
{
    bool u8 = in->type == PL_UINT8;
    int32_t zp = u8 ? 128 : 0, lo = u8 ? 0 : INT8_MIN, hi = u8 ? 255 : INT8_MAX;
    if (in->q.count == 0 || out->q.count == 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "quantized input and output need scales");
    if (out->q.scale[0] != 1.0f / 128 || out->q.zero_point[0] != zp)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s output needs scale 1/128 and zero "
                         "point %d, got %g and %d", pl_type_name(in->type), (int)zp,
                         (double)out->q.scale[0], (int)out->q.zero_point[0]);
    if (in->q.zero_point[0] < lo || in->q.zero_point[0] > hi)
        return ctx->fail(ctx, PL_ERR_MODEL, "input zero point %d out of range",
                         (int)in->q.zero_point[0]);
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *out;
    PL_TRY(pl_unary_prepare(ctx, node, &in, &out));
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES3(PL_FLOAT32, PL_INT8, PL_UINT8)));
    int32_t act = pl_table_i8(&node->options, 0, 0);
    if (act != PL_ACT_NONE)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "fused activation %d is not supported",
                         (int)act);
    if (in->ndims < 1 || in->dims[in->ndims - 1] < 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "needs a non-empty last dim");
    if (in->dims[in->ndims - 1] > PL_L2NORM_MAX_DEPTH)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "last dim %d is above %d",
                         (int)in->dims[in->ndims - 1], PL_L2NORM_MAX_DEPTH);
    if (in->type == PL_FLOAT32)
        return PL_OK;
    PL_TRY(check_quant(ctx, in, out));
    *(int32_t *)node->user_data = in->q.zero_point[0];
    return PL_OK;
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
            l2norm_f32((const float *)in.data + r * depth, (float *)out.data + r * depth,
                       depth, ctx->fused_madd);
        else if (in.type == PL_INT8)
            pl_l2norm_s8(*(const int32_t *)node->user_data,
                         (const int8_t *)in.data + r * depth, (int8_t *)out.data + r * depth,
                         depth);
        else
            pl_l2norm_u8(*(const int32_t *)node->user_data,
                         (const uint8_t *)in.data + r * depth,
                         (uint8_t *)out.data + r * depth, depth);
    }
    return PL_OK;
}

const pl_registration *pl_l2_normalization_registration(void)
{
    static const pl_registration r = {.name = "L2_NORMALIZATION",
                                      .builtin_code = OP_L2_NORMALIZATION, .prepare = prepare,
                                      .invoke = invoke, .user_data_size = sizeof(int32_t)};
    return &r;
}
