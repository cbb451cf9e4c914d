/* squared_difference.c - SQUARED_DIFFERENCE (see squared_difference.h). */
#include "squared_difference.h"

#include <math.h>
#include <stdbool.h>

#include "kernels/common/fixedpoint.h"
#include "kernels/elementwise/binary.h"

enum { OP_SQUARED_DIFFERENCE = 99 };

int32_t pl_sqdiff_q(const pl_sqdiff_params *p, int32_t x, int32_t y, int32_t lo, int32_t hi)
{
    int32_t a = pl_fx_mul_by_qm((x + p->offset1) * (1 << p->left_shift), p->multiplier1,
                                p->shift1);
    int32_t b = pl_fx_mul_by_qm((y + p->offset2) * (1 << p->left_shift), p->multiplier2,
                                p->shift2);
    uint32_t diff = (uint32_t)a - (uint32_t)b;
    int32_t raw = pl_fx_mul_by_qm((int32_t)(diff * diff), p->output_multiplier,
                                  p->output_shift) + p->output_offset;
    return pl_fx_clamp(raw, lo, hi);
}

/* QuantizeMultiplierSmallerThanOneExp: LiteRT aborts outside (0, 1); we refuse. */
static pl_status small(pl_context *ctx, double m, int32_t *q, int32_t *shift)
{
    if (!(m > 0.0 && m < 1.0))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "rescale multiplier %g is not in (0, 1)", m);
    pl_fx_quantize_multiplier(m, q, shift);
    return PL_OK;
}

/* int8 (LiteRT) and int16 (TFLM, zero points 0): the doubling and (1 << 2 left_shift) *
** s_out are float products widened to double, as both write them. */
static pl_status prepare_q(pl_context *ctx, pl_tensor *const t[3], pl_sqdiff_params *p)
{
    bool s16 = t[0]->type == PL_INT16;
    int32_t lo = s16 ? 0 : INT8_MIN, hi = s16 ? 0 : INT8_MAX;
    for (int k = 0; k < 3; k++) {
        if (t[k]->q.count == 0 || !(t[k]->q.scale[0] > 0.0f) || !isfinite(t[k]->q.scale[0]) ||
            t[k]->q.zero_point[0] < lo || t[k]->q.zero_point[0] > hi)
            return ctx->fail(ctx, PL_ERR_MODEL, "tensor %d: needs a positive scale and a zero "
                             "point in [%d, %d]", (int)t[k]->index, (int)lo, (int)hi);
    }
    float s1 = t[0]->q.scale[0], s2 = t[1]->q.scale[0], so = t[2]->q.scale[0];
    p->offset1 = -t[0]->q.zero_point[0];
    p->offset2 = -t[1]->q.zero_point[0];
    p->output_offset = t[2]->q.zero_point[0];
    p->left_shift = s16 ? 0 : 7;
    double twice_max = (double)(2.0f * (s1 > s2 ? s1 : s2));
    PL_TRY(small(ctx, (double)s1 / twice_max, &p->multiplier1, &p->shift1));
    PL_TRY(small(ctx, (double)s2 / twice_max, &p->multiplier2, &p->shift2));
    double out = twice_max * twice_max / (double)((float)(1 << (2 * p->left_shift)) * so);
    if (!s16) /* LiteRT's int8 path takes only multipliers below one */
        return small(ctx, out, &p->output_multiplier, &p->output_shift);
    if (!(out < 1073741824.0))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "output multiplier %g is too large", out);
    pl_fx_quantize_multiplier(out, &p->output_multiplier, &p->output_shift);
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *t[3];
    PL_TRY(pl_binary_prepare(ctx, node, t));
    pl_type ty = t[0]->type;
    if (t[1]->type != ty || t[2]->type != ty)
        return ctx->fail(ctx, PL_ERR_MODEL, "input types %s, %s and output type %s differ",
                         pl_type_name(ty), pl_type_name(t[1]->type),
                         pl_type_name(t[2]->type));
    if (ty != PL_FLOAT32 && ty != PL_INT32 && ty != PL_INT8 && ty != PL_INT16)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "type %s is not supported",
                         pl_type_name(ty));
    return ty == PL_INT8 || ty == PL_INT16 ? prepare_q(ctx, t, node->user_data) : PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const pl_sqdiff_params *p = node->user_data;
    pl_tensor t[3];
    pl_bcast bc;
    PL_TRY(pl_binary_eval(ctx, node, t, &bc));
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc.count; i++, pl_bcast_next(&bc, &it)) {
        if (t[2].type == PL_FLOAT32) {
            float d = ((const float *)t[0].data)[it.i1] - ((const float *)t[1].data)[it.i2];
            ((float *)t[2].data)[i] = d * d;
        } else if (t[2].type == PL_INT32) {
            uint32_t d = (uint32_t)((const int32_t *)t[0].data)[it.i1] -
                         (uint32_t)((const int32_t *)t[1].data)[it.i2];
            ((int32_t *)t[2].data)[i] = (int32_t)(d * d);
        } else if (t[2].type == PL_INT8) {
            ((int8_t *)t[2].data)[i] = (int8_t)pl_sqdiff_q(
                p, ((const int8_t *)t[0].data)[it.i1], ((const int8_t *)t[1].data)[it.i2],
                INT8_MIN, INT8_MAX);
        } else {
            ((int16_t *)t[2].data)[i] = (int16_t)pl_sqdiff_q(
                p, ((const int16_t *)t[0].data)[it.i1], ((const int16_t *)t[1].data)[it.i2],
                INT16_MIN, INT16_MAX);
        }
    }
    return PL_OK;
}

const pl_registration *pl_squared_difference_registration(void)
{
    static const pl_registration r = {.name = "SQUARED_DIFFERENCE",
                                      .builtin_code = OP_SQUARED_DIFFERENCE, .prepare = prepare,
                                      .invoke = invoke,
                                      .user_data_size = sizeof(pl_sqdiff_params)};
    return &r;
}
