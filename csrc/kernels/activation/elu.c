/* elu.c - ELU (see elu.h). */
#include "elu.h"

#include <math.h>

#include "kernels/common/lut.h"
#include "kernels/elementwise/binary.h"
#include "picolite/pl_node_io.h"

enum { OP_ELU = 111 };

float pl_elu_f32(float x)
{
    return x < 0.0f ? expm1f(x) : x;
}

/* The int8 table, allocated in prepare: float ELU needs no arena bytes. */
typedef struct op_data {
    PL_SLOT(int8_t *, lut);
} op_data;

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *out;
    PL_TRY(pl_unary_prepare(ctx, node, &in, &out));
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES2(PL_FLOAT32, PL_INT8)));
    if (in->type == PL_FLOAT32)
        return PL_OK;
    if (in->q.count == 0 || out->q.count == 0 || !(in->q.scale[0] > 0.0f) ||
        !(out->q.scale[0] > 0.0f) || !isfinite(in->q.scale[0]) || !isfinite(out->q.scale[0]))
        return ctx->fail(ctx, PL_ERR_MODEL, "int8 input and output need positive scales");
    op_data *d = node->user_data;
    if (d->lut == NULL)
        PL_TRY(ctx->alloc_persistent(ctx, 256, (void **)&d->lut));
    pl_lut_populate_s8(in->q.scale[0], in->q.zero_point[0], out->q.scale[0],
                       out->q.zero_point[0], pl_elu_f32, d->lut);
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor in, out;
    size_t n;
    PL_TRY(pl_unary_eval(ctx, node, &in, &out, &n));
    if (in.type == PL_FLOAT32) {
        for (size_t i = 0; i < n; i++)
            ((float *)out.data)[i] = pl_elu_f32(((const float *)in.data)[i]);
    } else {
        const int8_t *lut = ((const op_data *)node->user_data)->lut;
        for (size_t i = 0; i < n; i++)
            ((int8_t *)out.data)[i] = lut[((const uint8_t *)in.data)[i]];
    }
    return PL_OK;
}

const pl_registration *pl_elu_registration(void)
{
    static const pl_registration r = {.name = "ELU", .builtin_code = OP_ELU, .prepare = prepare,
                                      .invoke = invoke, .user_data_size = sizeof(op_data)};
    return &r;
}
