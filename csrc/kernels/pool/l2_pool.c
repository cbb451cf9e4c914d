/* l2_pool.c - L2_POOL_2D (TFLite reference L2Pool): sqrt of the mean of the squares over each
** window's in-image taps, then the fused activation. FLOAT32 NHWC only: neither TFLite nor
** TFLM defines a quantized L2 pool. */
#include "l2_pool.h"

#include <math.h>

#include "kernels/common/fixedpoint.h"
#include "kernels/common/madd.h"
#include "kernels/common/padding.h"
#include "picolite/pl_node_io.h"

enum { OP_L2_POOL_2D = 12 };

/* Pool2DOptions field ids (schema.fbs). */
enum { OPT_PADDING = 0, OPT_STRIDE_W, OPT_STRIDE_H, OPT_FILTER_W, OPT_FILTER_H,
       OPT_ACTIVATION };

typedef struct opdata {
    int32_t stride_w, stride_h, filter_w, filter_h, pad_w, pad_h;
    float act_min, act_max;
} opdata;

static pl_status read_options(pl_context *ctx, const pl_node *node, opdata *d,
                              int32_t *padding)
{
    const pl_table *o = &node->options;
    *padding = pl_table_i8(o, OPT_PADDING, 0);
    d->stride_w = pl_table_i32(o, OPT_STRIDE_W, 0);
    d->stride_h = pl_table_i32(o, OPT_STRIDE_H, 0);
    d->filter_w = pl_table_i32(o, OPT_FILTER_W, 0);
    d->filter_h = pl_table_i32(o, OPT_FILTER_H, 0);
    int32_t act = pl_table_i8(o, OPT_ACTIVATION, 0);
    if (d->stride_w <= 0 || d->stride_h <= 0 || d->filter_w <= 0 || d->filter_h <= 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "L2_POOL_2D: strides %d,%d and filter %dx%d must "
                         "be positive", d->stride_h, d->stride_w, d->filter_h, d->filter_w);
    if (*padding != PL_PADDING_SAME && *padding != PL_PADDING_VALID)
        return ctx->fail(ctx, PL_ERR_MODEL, "L2_POOL_2D: unknown padding %d", *padding);
    if (act < PL_ACT_NONE || act > PL_ACT_RELU6)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "L2_POOL_2D: fused activation %d is not "
                         "supported", act);
    pl_fx_activation_range_f32(act, &d->act_min, &d->act_max);
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    pl_tensor *in, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(1, 1), &in, &out));
    if (in->type != PL_FLOAT32 || out->type != PL_FLOAT32 || in->ndims != 4)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "L2_POOL_2D: %s input of rank %d with %s "
                         "output (FLOAT32 NHWC only)", pl_type_name(in->type), (int)in->ndims,
                         pl_type_name(out->type));
    int32_t padding = 0;
    PL_TRY(read_options(ctx, node, d, &padding));
    const pl_nhwc in_shape = pl_nhwc_of(in);
    int32_t oh = pl_pad_out_size(padding, in_shape.h, d->filter_h, d->stride_h, 1);
    int32_t ow = pl_pad_out_size(padding, in_shape.w, d->filter_w, d->stride_w, 1);
    if (oh < 0 || ow < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "L2_POOL_2D: a %dx%d filter does not fit a %dx%d "
                         "input", d->filter_h, d->filter_w, in_shape.h, in_shape.w);
    d->pad_h = pl_pad_before(d->stride_h, 1, in_shape.h, d->filter_h, oh, NULL);
    d->pad_w = pl_pad_before(d->stride_w, 1, in_shape.w, d->filter_w, ow, NULL);
    const int32_t dims[4] = {in_shape.n, oh, ow, in_shape.c};
    return ctx->set_shape(ctx, out->index, 4, dims);
}

/* One output value: TFLite's loop over the clipped window, in its order (fused: each
** square fused into the sum, as a fused target's firmware computes it). */
static float pool_at(const opdata *d, const int32_t *di, const float *in, int32_t b,
                     int32_t oy, int32_t ox, int32_t c, bool fused)
{
    int32_t x0 = ox * d->stride_w - d->pad_w, y0 = oy * d->stride_h - d->pad_h;
    int32_t fx0 = x0 < 0 ? -x0 : 0, fy0 = y0 < 0 ? -y0 : 0;
    int32_t fx1 = d->filter_w < di[2] - x0 ? d->filter_w : di[2] - x0;
    int32_t fy1 = d->filter_h < di[1] - y0 ? d->filter_h : di[1] - y0;
    float sum = 0.0f;
    int32_t count = 0;
    for (int32_t fy = fy0; fy < fy1; fy++)
        for (int32_t fx = fx0; fx < fx1; fx++) {
            size_t px = ((size_t)b * (size_t)di[1] + (size_t)(y0 + fy)) * (size_t)di[2] +
                        (size_t)(x0 + fx);
            float v = in[px * (size_t)di[3] + (size_t)c];
            sum = pl_madd_f32(sum, v, v, fused);
            count++;
        }
    return pl_fx_clamp_f32(sqrtf(sum / (float)count), d->act_min, d->act_max);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const opdata *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    const pl_nhwc out_shape = pl_nhwc_of(&out);
    float *o = out.data;
    size_t k = 0;
    for (int32_t b = 0; b < out_shape.n; b++)
        for (int32_t y = 0; y < out_shape.h; y++)
            for (int32_t x = 0; x < out_shape.w; x++)
                for (int32_t c = 0; c < out_shape.c; c++)
                    o[k++] = pool_at(d, in.dims, in.data, b, y, x, c, ctx->fused_madd);
    return PL_OK;
}

const pl_registration *pl_l2_pool_registration(void)
{
    static const pl_registration r = {.name = "L2_POOL_2D", .builtin_code = OP_L2_POOL_2D,
                                      .prepare = prepare, .invoke = invoke,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}
