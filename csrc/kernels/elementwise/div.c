/* div.c - DIV for float32 and int32 with broadcasting (TFLite div.cc, reference path).
**
** TFLite's DIV has no int8/int16 kernel (only uint8, which picolite does not run), so those
** are refused. int32 divides with C truncation like TFLite's reference; a zero divisor is
** refused at invoke, as TFLite does, instead of trapping. */
#include "div.h"

#include "kernels/common/fixedpoint.h"

enum { OP_DIV = 42 };

/* The broadcast walk is rebuilt from the eval dims at each invoke (a few dozen operations)
** rather than kept in the arena. */
typedef struct opdata {
    float f_min, f_max;
    int32_t i_min, i_max;
} opdata;

void pl_div_f32(const pl_bcast *bc, float lo, float hi, const float *a, const float *b,
                float *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = pl_fx_clamp_f32(a[it.i1] / b[it.i2], lo, hi);
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

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    (void)node;
    return ctx->alloc_persistent(ctx, sizeof(opdata), user_data);
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    int32_t idx[3] = {pl_node_input(node, 0), pl_node_input(node, 1),
                      pl_node_output(node, 0)};
    if (node->inputs.n != 2 || node->outputs.n != 1 || idx[0] < 0 || idx[1] < 0 || idx[2] < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "needs 2 inputs and 1 output, got %u and %u",
                         (unsigned)node->inputs.n, (unsigned)node->outputs.n);
    pl_tensor *t[3];
    for (int k = 0; k < 3; k++)
        PL_TRY(ctx->get_tensor(ctx, idx[k], &t[k]));
    pl_type ty = t[2]->type;
    if (t[0]->type != ty || t[1]->type != ty || (ty != PL_FLOAT32 && ty != PL_INT32))
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
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const opdata *d = node->user_data;
    pl_tensor a, b, o;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &a));
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 1), &b));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &o));
    pl_bcast bc;
    if (pl_bcast_setup(&bc, &a, &b, &o) != PL_BCAST_OK)
        return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
    if (o.type == PL_FLOAT32) {
        pl_div_f32(&bc, d->f_min, d->f_max, a.data, b.data, o.data);
        return PL_OK;
    }
    if (!div_s32(d, &bc, a.data, b.data, o.data))
        return ctx->fail(ctx, PL_ERR_ARG, "INT32 division by zero");
    return PL_OK;
}

const pl_registration *pl_div_registration(void)
{
    static const pl_registration r = {"DIV", OP_DIV, init, NULL, prepare, invoke, NULL};
    return &r;
}
