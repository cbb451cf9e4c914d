/* gelu.c - GELU (see gelu.h). */
#include "gelu.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "kernels/common/lut.h"
#include "kernels/elementwise/binary.h"
#include "picolite/pl_node_io.h"

enum { OP_GELU = 150 };

float pl_gelu_f32(float x)
{
    return 0.5f * x * erfcf(x * (float)-PL_GELU_SQRT1_2); /* erfc: no cancellation for x << 0 */
}

float pl_gelu_approx_f32(float x)
{
    return 0.5f * x * (1.0f + tanhf(PL_GELU_SQRT_2_OVER_PI * (x + PL_GELU_CUBIC * x * x * x)));
}

/* The table, allocated in prepare: float GELU needs no arena bytes. */
typedef struct op_data {
    PL_SLOT(void *, lut);
    bool approximate;
} op_data;

void pl_gelu_table(const pl_node *node, uint8_t table[256])
{
    const op_data *d = node->user_data;
    memcpy(table, d->lut, 256);
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *out;
    PL_TRY(pl_unary_prepare(ctx, node, &in, &out));
    pl_type t = in->type;
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES4(PL_FLOAT32, PL_INT8, PL_UINT8, PL_INT16)));
    op_data *d = node->user_data;
    d->approximate = pl_table_i8(&node->options, PL_GELU_APPROXIMATE, 0) != 0;
    if (t == PL_FLOAT32)
        return PL_OK;
    if (in->q.count == 0 || out->q.count == 0 || !(in->q.scale[0] > 0.0f) ||
        !(out->q.scale[0] > 0.0f) || !isfinite(in->q.scale[0]) || !isfinite(out->q.scale[0]))
        return ctx->fail(ctx, PL_ERR_MODEL, "%s input and output need positive scales",
                         pl_type_name(t));
    float (*fn)(float) = d->approximate ? pl_gelu_approx_f32 : pl_gelu_f32;
    float si = in->q.scale[0], so = out->q.scale[0];
    int32_t zi = (int32_t)in->q.zero_point[0], zo = (int32_t)out->q.zero_point[0];
    size_t bytes = t == PL_INT16 ? PL_LUT_S16_SIZE * sizeof(int16_t) : 256;
    if (d->lut == NULL)
        PL_TRY(ctx->alloc_persistent(ctx, bytes, &d->lut));
    if (t == PL_INT8)
        pl_lut_populate_s8(si, zi, so, zo, fn, d->lut);
    else if (t == PL_UINT8)
        pl_lut_populate_u8(si, zi, so, zo, fn, d->lut);
    else
        pl_lut_populate_s16_f32(si, zi, so, zo, fn, d->lut);
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in, out;
    size_t n;
    PL_TRY(pl_unary_eval(ctx, node, &in, &out, &n));
    if (in.type == PL_FLOAT32) {
        const float *x = in.data;
        float *y = out.data;
        for (size_t i = 0; i < n; i++)
            y[i] = d->approximate ? pl_gelu_approx_f32(x[i]) : pl_gelu_f32(x[i]);
    } else if (in.type == PL_INT16) {
        const int16_t *x = in.data;
        int16_t *y = out.data;
        for (size_t i = 0; i < n; i++)
            y[i] = pl_lut_lookup_s16(x[i], d->lut);
    } else { /* int8 tables are indexed by the byte, as uint8 ones */
        const uint8_t *x = in.data, *lut = d->lut;
        uint8_t *y = out.data;
        for (size_t i = 0; i < n; i++)
            y[i] = lut[x[i]];
    }
    return PL_OK;
}

const pl_registration *pl_gelu_registration(void)
{
    static const pl_registration r = {.name = "GELU", .builtin_code = OP_GELU,
                                      .prepare = prepare, .invoke = invoke,
                                      .user_data_size = sizeof(op_data)};
    return &r;
}
