/* pooling.c - AVERAGE_POOL_2D and MAX_POOL_2D as TFLite's reference kernels compute them. */
#include "pooling.h"

#include <float.h>
#include <stdbool.h>

#include "kernels/common/fixedpoint.h"
#include "kernels/common/padding.h"
#include "picolite/pl_node_io.h"

/* Pool2DOptions field ids (schema.fbs). */
enum { OPT_PADDING = 0, OPT_STRIDE_W, OPT_STRIDE_H, OPT_FILTER_W, OPT_FILTER_H,
       OPT_ACTIVATION };

/* Output channels go in blocks of BLOCK with the channel loop innermost (contiguous and
** vectorizable); each output still visits its taps in TFLite's order. */
enum { BLOCK = 64 };

/* An output point's window, clipped to the image as TFLite clips it. */
typedef struct window {
    int32_t fy0, fy1, fx0, fx1, y0, x0, count;
} window;

static inline void window_at(const pl_pooling_params *p, const int32_t *in_dims, int32_t oy,
                             int32_t ox, window *w)
{
    const int32_t in_h = in_dims[1], in_w = in_dims[2];
    w->x0 = ox * p->stride_w - p->pad_w;
    w->y0 = oy * p->stride_h - p->pad_h;
    w->fx0 = w->x0 < 0 ? -w->x0 : 0;
    w->fy0 = w->y0 < 0 ? -w->y0 : 0;
    w->fx1 = p->filter_w < in_w - w->x0 ? p->filter_w : in_w - w->x0;
    w->fy1 = p->filter_h < in_h - w->y0 ? p->filter_h : in_h - w->y0;
    w->count = w->fy1 > w->fy0 && w->fx1 > w->fx0 ? (w->fy1 - w->fy0) * (w->fx1 - w->fx0) : 0;
}

/* For every output point and channel block of n channels: INIT, then TAP per in-bounds tap
** with x (type T) at the block's first input channel, then DONE with o at its first output.
** The window is w (w.count taps). */
#define POOL(T, p, in_dims, out_dims, in, out, INIT, TAP, DONE)                           \
    do {                                                                                  \
        const int32_t in_h_ = in_dims[1], in_w_ = in_dims[2], depth_ = in_dims[3];        \
        size_t o_ = 0;                                                                    \
        for (int32_t b_ = 0; b_ < out_dims[0]; b_++)                                      \
            for (int32_t oy_ = 0; oy_ < out_dims[1]; oy_++)                               \
                for (int32_t ox_ = 0; ox_ < out_dims[2]; ox_++, o_ += (size_t)depth_) {    \
                    window w;                                                             \
                    window_at(p, in_dims, oy_, ox_, &w);                                  \
                    for (int32_t c_ = 0; c_ < depth_; c_ += BLOCK) {                      \
                        const int32_t n = depth_ - c_ < BLOCK ? depth_ - c_ : BLOCK;      \
                        INIT;                                                             \
                        for (int32_t fy_ = w.fy0; fy_ < w.fy1; fy_++) {                   \
                            const size_t row_ = (size_t)b_ * (size_t)in_h_ +              \
                                                (size_t)(w.y0 + fy_);                     \
                            for (int32_t fx_ = w.fx0; fx_ < w.fx1; fx_++) {               \
                                const size_t px_ = row_ * (size_t)in_w_ +                 \
                                                   (size_t)(w.x0 + fx_);                  \
                                const T *restrict x = (in) + px_ * (size_t)depth_ +       \
                                                      (size_t)c_;                         \
                                TAP;                                                      \
                            }                                                             \
                        }                                                                 \
                        T *restrict o = (out) + o_ + (size_t)c_;                          \
                        DONE;                                                             \
                    }                                                                     \
                }                                                                         \
    } while (0)

#define EACH(k) for (int32_t k = 0; k < n; k++)

void pl_pooling_avg_f32(const pl_pooling_params *p, const int32_t *in_dims, const float *in,
                        const int32_t *out_dims, float *out)
{
    float total[BLOCK];
    POOL(float, p, in_dims, out_dims, in, out,
         EACH(k) total[k] = 0.0f,
         EACH(k) total[k] += x[k],
         EACH(k) o[k] = pl_fx_clamp_f32(total[k] / (float)w.count, p->f_act_min,
                                        p->f_act_max));
}

/* Integer average rounded half away from zero, as TFLite's reference does. */
static inline int32_t rounded_average(int32_t acc, int32_t count)
{
    if (count == 0)
        return 0; /* unreachable with SAME/VALID windows */
    return acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
}

void pl_pooling_avg_s8(const pl_pooling_params *p, const int32_t *in_dims, const int8_t *in,
                       const int32_t *out_dims, int8_t *out)
{
    int32_t acc[BLOCK];
    POOL(int8_t, p, in_dims, out_dims, in, out,
         EACH(k) acc[k] = 0,
         EACH(k) acc[k] += x[k],
         EACH(k) o[k] = (int8_t)pl_fx_clamp(rounded_average(acc[k], w.count), p->act_min,
                                            p->act_max));
}

/* Legacy uint8: the same sums, all non-negative. */
void pl_pooling_avg_u8(const pl_pooling_params *p, const int32_t *in_dims, const uint8_t *in,
                       const int32_t *out_dims, uint8_t *out)
{
    int32_t acc[BLOCK];
    POOL(uint8_t, p, in_dims, out_dims, in, out,
         EACH(k) acc[k] = 0,
         EACH(k) acc[k] += x[k],
         EACH(k) o[k] = (uint8_t)pl_fx_clamp(rounded_average(acc[k], w.count), p->act_min,
                                             p->act_max));
}

void pl_pooling_avg_s16(const pl_pooling_params *p, const int32_t *in_dims,
                        const int16_t *in, const int32_t *out_dims, int16_t *out)
{
    int32_t acc[BLOCK];
    POOL(int16_t, p, in_dims, out_dims, in, out,
         EACH(k) acc[k] = 0,
         EACH(k) acc[k] += x[k],
         EACH(k) o[k] = (int16_t)pl_fx_clamp(rounded_average(acc[k], w.count), p->act_min,
                                             p->act_max));
}

void pl_pooling_max_f32(const pl_pooling_params *p, const int32_t *in_dims, const float *in,
                        const int32_t *out_dims, float *out)
{
    float max[BLOCK];
    POOL(float, p, in_dims, out_dims, in, out,
         EACH(k) max[k] = -FLT_MAX,
         EACH(k) max[k] = max[k] < x[k] ? x[k] : max[k], /* std::max(max, x) */
         EACH(k) o[k] = pl_fx_clamp_f32(max[k], p->f_act_min, p->f_act_max));
}

void pl_pooling_max_s8(const pl_pooling_params *p, const int32_t *in_dims, const int8_t *in,
                       const int32_t *out_dims, int8_t *out)
{
    int8_t max[BLOCK];
    POOL(int8_t, p, in_dims, out_dims, in, out,
         EACH(k) max[k] = INT8_MIN,
         EACH(k) max[k] = max[k] < x[k] ? x[k] : max[k],
         EACH(k) o[k] = (int8_t)pl_fx_clamp(max[k], p->act_min, p->act_max));
}

void pl_pooling_max_u8(const pl_pooling_params *p, const int32_t *in_dims, const uint8_t *in,
                       const int32_t *out_dims, uint8_t *out)
{
    uint8_t max[BLOCK];
    POOL(uint8_t, p, in_dims, out_dims, in, out,
         EACH(k) max[k] = 0,
         EACH(k) max[k] = max[k] < x[k] ? x[k] : max[k],
         EACH(k) o[k] = (uint8_t)pl_fx_clamp(max[k], p->act_min, p->act_max));
}

void pl_pooling_max_s16(const pl_pooling_params *p, const int32_t *in_dims,
                        const int16_t *in, const int32_t *out_dims, int16_t *out)
{
    int16_t max[BLOCK];
    POOL(int16_t, p, in_dims, out_dims, in, out,
         EACH(k) max[k] = INT16_MIN,
         EACH(k) max[k] = max[k] < x[k] ? x[k] : max[k],
         EACH(k) o[k] = (int16_t)pl_fx_clamp(max[k], p->act_min, p->act_max));
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

/* The output is [batch, oh, ow, channels] as TFLite's pooling Prepare resizes it. */
static pl_status check_tensors(pl_context *ctx, const char *name, const pl_tensor *in,
                               pl_tensor *out, int32_t padding, pl_pooling_params *p)
{
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES4(PL_FLOAT32, PL_INT8, PL_INT16, PL_UINT8)));
    if (in->ndims != 4)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: input must be 4D (got %d)", name, in->ndims);
    const pl_nhwc in_shape = pl_nhwc_of(in);
    int32_t oh = pl_pad_out_size(padding, in_shape.h, p->filter_h, p->stride_h, 1);
    int32_t ow = pl_pad_out_size(padding, in_shape.w, p->filter_w, p->stride_w, 1);
    if (oh < 0 || ow < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: a %dx%d window does not fit a %dx%d input",
                         name, p->filter_h, p->filter_w, in_shape.h, in_shape.w);
    int32_t shape[4] = {in_shape.n, oh, ow, in_shape.c};
    PL_TRY(pl_set_output_shape(ctx, out, 4, shape));
    p->pad_h = pl_pad_before(p->stride_h, 1, in_shape.h, p->filter_h, oh, NULL);
    p->pad_w = pl_pad_before(p->stride_w, 1, in_shape.w, p->filter_w, ow, NULL);
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
    int32_t qmin = in->type == PL_INT8 ? INT8_MIN : in->type == PL_UINT8 ? 0 : INT16_MIN;
    int32_t qmax = in->type == PL_INT8 ? INT8_MAX : in->type == PL_UINT8 ? UINT8_MAX
                                                                           : INT16_MAX;
    if (pl_fx_activation_range_q(activation, out->q.scale[0], (int32_t)out->q.zero_point[0],
                                 qmin, qmax, &p->act_min, &p->act_max) != PL_OK)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: output scale %g gives no activation range",
                         name, (double)out->q.scale[0]);
    return PL_OK;
}

static pl_status prepare_pool(pl_context *ctx, pl_node *node, const char *name)
{
    pl_pooling_op *d = node->user_data;
    pl_tensor *in, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(1, 1), &in, &out));
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
    const pl_pooling_op *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    if (d->type == PL_FLOAT32 && average)
        pl_pooling_avg_f32(&d->p, in.dims, in.data, out.dims, out.data);
    else if (d->type == PL_FLOAT32)
        pl_pooling_max_f32(&d->p, in.dims, in.data, out.dims, out.data);
    else if (d->type == PL_INT8 && average)
        pl_pooling_avg_s8(&d->p, in.dims, in.data, out.dims, out.data);
    else if (d->type == PL_INT8)
        pl_pooling_max_s8(&d->p, in.dims, in.data, out.dims, out.data);
    else if (d->type == PL_UINT8 && average)
        pl_pooling_avg_u8(&d->p, in.dims, in.data, out.dims, out.data);
    else if (d->type == PL_UINT8)
        pl_pooling_max_u8(&d->p, in.dims, in.data, out.dims, out.data);
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
    static const pl_registration reg = {.name = "AVERAGE_POOL_2D", .builtin_code = 1,
                                        .prepare = prepare_avg, .invoke = invoke_avg,
                                        .user_data_size = sizeof(pl_pooling_op)};
    return &reg;
}

const pl_registration *pl_pooling_max_registration(void)
{
    static const pl_registration reg = {.name = "MAX_POOL_2D", .builtin_code = 17,
                                        .prepare = prepare_max, .invoke = invoke_max,
                                        .user_data_size = sizeof(pl_pooling_op)};
    return &reg;
}
