/* squared_difference.c - SQUARED_DIFFERENCE (see squared_difference.h). */
#include "squared_difference.h"

#include "kernels/common/fixedpoint.h"
#include "kernels/elementwise/binary.h"

enum { OP_SQUARED_DIFFERENCE = 99, LEFT_SHIFT = 7 };

int8_t pl_sqdiff_s8(const pl_sqdiff_params *p, int32_t x, int32_t y)
{
    int32_t a = pl_fx_mul_by_qm((x + p->offset1) * (1 << LEFT_SHIFT), p->multiplier1,
                                p->shift1);
    int32_t b = pl_fx_mul_by_qm((y + p->offset2) * (1 << LEFT_SHIFT), p->multiplier2,
                                p->shift2);
    int32_t diff = a - b;
    int32_t raw = pl_fx_mul_by_qm(diff * diff, p->output_multiplier, p->output_shift) +
                  p->output_offset;
    return (int8_t)pl_fx_clamp(raw, INT8_MIN, INT8_MAX);
}

/* QuantizeMultiplierSmallerThanOneExp: LiteRT aborts outside (0, 1); we refuse. */
static pl_status small(pl_context *ctx, double m, int32_t *q, int32_t *shift)
{
    if (!(m > 0.0 && m < 1.0))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "rescale multiplier %g is not in (0, 1)", m);
    pl_fx_quantize_multiplier(m, q, shift);
    return PL_OK;
}

static pl_status prepare_s8(pl_context *ctx, pl_tensor *const t[3], pl_sqdiff_params *p)
{
    for (int k = 0; k < 3; k++) {
        if (t[k]->q.count == 0 || !(t[k]->q.scale[0] > 0.0f) ||
            t[k]->q.zero_point[0] < INT8_MIN || t[k]->q.zero_point[0] > INT8_MAX)
            return ctx->fail(ctx, PL_ERR_MODEL, "tensor %d: needs a positive scale and an "
                             "int8 zero point", (int)t[k]->index);
    }
    float s1 = t[0]->q.scale[0], s2 = t[1]->q.scale[0], so = t[2]->q.scale[0];
    p->offset1 = -t[0]->q.zero_point[0];
    p->offset2 = -t[1]->q.zero_point[0];
    p->output_offset = t[2]->q.zero_point[0];
    /* float doubling and float (1 << 14) * s_out, then double: LiteRT's expression */
    double twice_max = (double)(2.0f * (s1 > s2 ? s1 : s2));
    PL_TRY(small(ctx, (double)s1 / twice_max, &p->multiplier1, &p->shift1));
    PL_TRY(small(ctx, (double)s2 / twice_max, &p->multiplier2, &p->shift2));
    return small(ctx, twice_max * twice_max / (double)((float)(1 << (2 * LEFT_SHIFT)) * so),
                 &p->output_multiplier, &p->output_shift);
}

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    (void)node;
    return ctx->alloc_persistent(ctx, sizeof(pl_sqdiff_params), user_data);
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
    if (ty != PL_FLOAT32 && ty != PL_INT32 && ty != PL_INT8)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "type %s is not supported",
                         pl_type_name(ty));
    return ty == PL_INT8 ? prepare_s8(ctx, t, node->user_data) : PL_OK;
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
        } else {
            ((int8_t *)t[2].data)[i] = pl_sqdiff_s8(p, ((const int8_t *)t[0].data)[it.i1],
                                                    ((const int8_t *)t[1].data)[it.i2]);
        }
    }
    return PL_OK;
}

const pl_registration *pl_squared_difference_registration(void)
{
    static const pl_registration r = {"SQUARED_DIFFERENCE", OP_SQUARED_DIFFERENCE, init, NULL,
                                      prepare, invoke, NULL};
    return &r;
}
