/* pooling.c - AVERAGE_POOL_2D and MAX_POOL_2D as TFLite's reference kernels compute them. */
#include "pooling.h"

#include <float.h>
#include <stdbool.h>

#include "fixedpoint.h"
#include "padding.h"

/* Pool2DOptions field ids (schema.fbs). */
enum { OPT_PADDING = 0, OPT_STRIDE_W, OPT_STRIDE_H, OPT_FILTER_W, OPT_FILTER_H,
       OPT_ACTIVATION };

typedef struct op_data {
    pl_pooling_params p;
    pl_type type;
} op_data;

/* Each output point's window, clipped to the image as TFLite clips it. */
#define WINDOW_BEGIN(p, in_dims, out_dims)                                            \
    const int32_t batches = in_dims[0], in_h = in_dims[1], in_w = in_dims[2];         \
    const int32_t depth = in_dims[3], out_h = out_dims[1], out_w = out_dims[2];       \
    for (int32_t b = 0; b < batches; b++)                                             \
        for (int32_t oy = 0; oy < out_h; oy++)                                        \
            for (int32_t ox = 0; ox < out_w; ox++)                                    \
                for (int32_t c = 0; c < depth; c++) {                                 \
                    const int32_t x0 = ox * p->stride_w - p->pad_w;                   \
                    const int32_t y0 = oy * p->stride_h - p->pad_h;                   \
                    const int32_t fx0 = x0 < 0 ? -x0 : 0;                             \
                    const int32_t fy0 = y0 < 0 ? -y0 : 0;                             \
                    const int32_t fx1 = p->filter_w < in_w - x0 ? p->filter_w : in_w - x0; \
                    const int32_t fy1 = p->filter_h < in_h - y0 ? p->filter_h : in_h - y0; \
                    const size_t o = (((size_t)b * out_h + oy) * out_w + ox) * depth + c;
#define TAPS_BEGIN                                                                    \
    for (int32_t fy = fy0; fy < fy1; fy++)                                            \
        for (int32_t fx = fx0; fx < fx1; fx++) {                                      \
            const size_t i = (((size_t)b * in_h + y0 + fy) * in_w + x0 + fx) * depth + c;
#define TAPS_END }
#define WINDOW_END }

void pl_pooling_avg_f32(const pl_pooling_params *p, const int32_t *in_dims, const float *in,
                        const int32_t *out_dims, float *out)
{
    WINDOW_BEGIN(p, in_dims, out_dims)
        float total = 0.0f, count = 0.0f;
        TAPS_BEGIN
            total += in[i];
            count += 1.0f;
        TAPS_END
        out[o] = pl_fx_clamp_f32(total / count, p->f_act_min, p->f_act_max);
    WINDOW_END
}

/* Integer average rounded half away from zero, as TFLite's reference does. */
static int32_t rounded_average(int32_t acc, int32_t count)
{
    if (count == 0)
        return 0; /* unreachable with SAME/VALID windows */
    return acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
}

void pl_pooling_avg_s8(const pl_pooling_params *p, const int32_t *in_dims, const int8_t *in,
                       const int32_t *out_dims, int8_t *out)
{
    WINDOW_BEGIN(p, in_dims, out_dims)
        int32_t acc = 0, count = 0;
        TAPS_BEGIN
            acc += in[i];
            count++;
        TAPS_END
        out[o] = (int8_t)pl_fx_clamp(rounded_average(acc, count), p->act_min, p->act_max);
    WINDOW_END
}

void pl_pooling_avg_s16(const pl_pooling_params *p, const int32_t *in_dims,
                        const int16_t *in, const int32_t *out_dims, int16_t *out)
{
    WINDOW_BEGIN(p, in_dims, out_dims)
        int32_t acc = 0, count = 0;
        TAPS_BEGIN
            acc += in[i];
            count++;
        TAPS_END
        out[o] = (int16_t)pl_fx_clamp(rounded_average(acc, count), p->act_min, p->act_max);
    WINDOW_END
}

void pl_pooling_max_f32(const pl_pooling_params *p, const int32_t *in_dims, const float *in,
                        const int32_t *out_dims, float *out)
{
    WINDOW_BEGIN(p, in_dims, out_dims)
        float max = -FLT_MAX;
        TAPS_BEGIN
            max = max < in[i] ? in[i] : max; /* std::max(max, x) */
        TAPS_END
        out[o] = pl_fx_clamp_f32(max, p->f_act_min, p->f_act_max);
    WINDOW_END
}

void pl_pooling_max_s8(const pl_pooling_params *p, const int32_t *in_dims, const int8_t *in,
                       const int32_t *out_dims, int8_t *out)
{
    WINDOW_BEGIN(p, in_dims, out_dims)
        int32_t max = INT8_MIN;
        TAPS_BEGIN
            max = max < in[i] ? in[i] : max;
        TAPS_END
        out[o] = (int8_t)pl_fx_clamp(max, p->act_min, p->act_max);
    WINDOW_END
}

void pl_pooling_max_s16(const pl_pooling_params *p, const int32_t *in_dims,
                        const int16_t *in, const int32_t *out_dims, int16_t *out)
{
    WINDOW_BEGIN(p, in_dims, out_dims)
        int32_t max = INT16_MIN;
        TAPS_BEGIN
            max = max < in[i] ? in[i] : max;
        TAPS_END
        out[o] = (int16_t)pl_fx_clamp(max, p->act_min, p->act_max);
    WINDOW_END
}

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    (void)node;
    return ctx->alloc_persistent(ctx, sizeof(op_data), user_data);
}

static pl_status read_options(pl_context *ctx, const pl_node *node, const char *name,
                              pl_pooling_params *p, int32_t *padding, int32_t *activation)
{
    const pl_table *o = &node->options;
    *padding = pl_table_i8(o, OPT_PADDING, 0);
    p->stride_w = pl_table_i32(o, OPT_STRIDE_W, 0);
    p->stride_h = pl_table_i32(o, OPT_STRIDE_H, 0);
    p->filter_w = pl_table_i32(o, OPT_FILTER_W, 0);
    p->filter_h = pl_table_i32(o, OPT_FILTER_H, 0);
    *activation = pl_table_i8(o, OPT_ACTIVATION, 0);
    if (p->stride_w <= 0 || p->stride_h <= 0 || p->filter_w <= 0 || p->filter_h <= 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: strides %d,%d and filter %dx%d must be "
                         "positive", name, p->stride_h, p->stride_w, p->filter_h, p->filter_w);
    if (*padding != PL_PADDING_SAME && *padding != PL_PADDING_VALID)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: unknown padding %d", name, *padding);
    if (*activation > PL_ACT_RELU6 || *activation < 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: fused activation %d is not supported",
                         name, *activation);
    return PL_OK;
}

static pl_status check_tensors(pl_context *ctx, const char *name, const pl_tensor *in,
                               const pl_tensor *out, int32_t padding, pl_pooling_params *p)
{
    if (!(in->type == PL_FLOAT32 || in->type == PL_INT8 || in->type == PL_INT16) ||
        out->type != in->type)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: input %s with output %s is not "
                         "supported", name, pl_type_name(in->type), pl_type_name(out->type));
    if (in->ndims != 4 || out->ndims != 4)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: input and output must be 4D (got %d, %d)",
                         name, in->ndims, out->ndims);
    int32_t oh = pl_pad_out_size(padding, in->dims[1], p->filter_h, p->stride_h, 1);
    int32_t ow = pl_pad_out_size(padding, in->dims[2], p->filter_w, p->stride_w, 1);
    if (out->dims[0] != in->dims[0] || out->dims[1] != oh || out->dims[2] != ow ||
        out->dims[3] != in->dims[3])
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: output shape [%d,%d,%d,%d] should be "
                         "[%d,%d,%d,%d]", name, out->dims[0], out->dims[1], out->dims[2],
                         out->dims[3], in->dims[0], oh, ow, in->dims[3]);
    p->pad_h = pl_pad_before(p->stride_h, 1, in->dims[1], p->filter_h, oh, NULL);
    p->pad_w = pl_pad_before(p->stride_w, 1, in->dims[2], p->filter_w, ow, NULL);
    return PL_OK;
}

/* The reference pools raw values, so the output range is the input's: TFLite assumes (and
** only debug-checks) equal scales; the clamp uses the output's quantization. */
static pl_status prepare_quant(pl_context *ctx, const char *name, const pl_tensor *in,
                               const pl_tensor *out, int32_t activation, pl_pooling_params *p)
{
    if (in->q.count != 1 || out->q.count != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: input and output need per-tensor "
                         "quantization (got %u, %u scales)", name, in->q.count, out->q.count);
    if (in->type == PL_INT16 && (in->q.zero_point[0] != 0 || out->q.zero_point[0] != 0))
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: int16 zero points must be 0", name);
    int32_t qmin = in->type == PL_INT8 ? INT8_MIN : INT16_MIN;
    int32_t qmax = in->type == PL_INT8 ? INT8_MAX : INT16_MAX;
    if (pl_fx_activation_range_q(activation, out->q.scale[0], (int32_t)out->q.zero_point[0],
                                 qmin, qmax, &p->act_min, &p->act_max) != PL_OK)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: output scale %g gives no activation range",
                         name, (double)out->q.scale[0]);
    return PL_OK;
}

static pl_status prepare_pool(pl_context *ctx, pl_node *node, const char *name)
{
    op_data *d = node->user_data;
    if (node->inputs.n != 1 || node->outputs.n != 1 || pl_node_input(node, 0) < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: needs one input and one output (got %u, "
                         "%u)", name, node->inputs.n, node->outputs.n);
    pl_tensor *in, *out;
    PL_TRY(ctx->get_tensor(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_tensor(ctx, pl_node_output(node, 0), &out));
    int32_t padding = 0, activation = 0;
    PL_TRY(read_options(ctx, node, name, &d->p, &padding, &activation));
    PL_TRY(check_tensors(ctx, name, in, out, padding, &d->p));
    d->type = in->type;
    pl_fx_activation_range_f32(activation, &d->p.f_act_min, &d->p.f_act_max);
    if (in->type != PL_FLOAT32)
        PL_TRY(prepare_quant(ctx, name, in, out, activation, &d->p));
    return PL_OK;
}

static pl_status prepare_avg(pl_context *ctx, pl_node *node)
{
    return prepare_pool(ctx, node, "AVERAGE_POOL_2D");
}

static pl_status prepare_max(pl_context *ctx, pl_node *node)
{
    return prepare_pool(ctx, node, "MAX_POOL_2D");
}

static pl_status invoke_pool(pl_context *ctx, pl_node *node, bool average)
{
    const op_data *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    if (d->type == PL_FLOAT32 && average)
        pl_pooling_avg_f32(&d->p, in.dims, in.data, out.dims, out.data);
    else if (d->type == PL_FLOAT32)
        pl_pooling_max_f32(&d->p, in.dims, in.data, out.dims, out.data);
    else if (d->type == PL_INT8 && average)
        pl_pooling_avg_s8(&d->p, in.dims, in.data, out.dims, out.data);
    else if (d->type == PL_INT8)
        pl_pooling_max_s8(&d->p, in.dims, in.data, out.dims, out.data);
    else if (average)
        pl_pooling_avg_s16(&d->p, in.dims, in.data, out.dims, out.data);
    else
        pl_pooling_max_s16(&d->p, in.dims, in.data, out.dims, out.data);
    return PL_OK;
}

static pl_status invoke_avg(pl_context *ctx, pl_node *node)
{
    return invoke_pool(ctx, node, true);
}

static pl_status invoke_max(pl_context *ctx, pl_node *node)
{
    return invoke_pool(ctx, node, false);
}

const pl_registration *pl_pooling_avg_registration(void)
{
    static const pl_registration reg = {"AVERAGE_POOL_2D", 1, init, NULL, prepare_avg,
                                        invoke_avg, NULL};
    return &reg;
}

const pl_registration *pl_pooling_max_registration(void)
{
    static const pl_registration reg = {"MAX_POOL_2D", 17, init, NULL, prepare_max,
                                        invoke_max, NULL};
    return &reg;
}
