/* uint8.c - the legacy uint8 conv-like kernels (see uint8.h). */
#include "uint8.h"

#include "kernels/common/fixedpoint.h"
#include "kernels/common/padding.h"
#include "kernels/common/rescale.h"

bool pl_u8conv_types_ok(const pl_tensor *in, const pl_tensor *f, const pl_tensor *bias,
                        const pl_tensor *out)
{
    return in->type == PL_UINT8 && f->type == PL_UINT8 && out->type == PL_UINT8 &&
           (bias == NULL || bias->type == PL_INT32);
}

pl_status pl_u8conv_quant(pl_context *ctx, const char *op, const pl_tensor *in,
                          const pl_tensor *f, const pl_tensor *out, int32_t activation,
                          pl_convq *q, int32_t *filter_offset)
{
    if (in->q.count != 1 || f->q.count != 1 || out->q.count != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: uint8 needs per-tensor quantization of "
                         "input, filter and output (got %u, %u, %u scales)", op, in->q.count,
                         f->q.count, out->q.count);
    q->input_offset = -in->q.zero_point[0];
    *filter_offset = -f->q.zero_point[0];
    q->output_offset = out->q.zero_point[0];
    q->multiplier = NULL;
    q->shift = NULL;
    if (pl_fx_activation_range_q(activation, out->q.scale[0], q->output_offset, 0, UINT8_MAX,
                                 &q->act_min, &q->act_max) != PL_OK)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: output scale %g gives no activation range",
                         op, (double)out->q.scale[0]);
    return PL_OK;
}

pl_status pl_u8conv_prepare(pl_context *ctx, const char *op, const pl_tensor *in,
                            const pl_tensor *f, const pl_tensor *out, int32_t activation,
                            pl_convq *q, int32_t *filter_offset)
{
    PL_TRY(pl_u8conv_quant(ctx, op, in, f, out, activation, q, filter_offset));
    PL_TRY(ctx->alloc_persistent(ctx, sizeof(int32_t), (void **)&q->multiplier));
    PL_TRY(ctx->alloc_persistent(ctx, sizeof(int32_t), (void **)&q->shift));
    /* the product is a float, as LiteRT rounds it, before the division in double */
    double real = (double)(in->q.scale[0] * f->q.scale[0]) / (double)out->q.scale[0];
    pl_fx_quantize_multiplier(real, q->multiplier, q->shift);
    return PL_OK;
}

/* What the loops read, copied out of an op's parameters. */
typedef struct u8q {
    int32_t input_offset, filter_offset, output_offset, multiplier, shift, act_min, act_max;
} u8q;

#define U8Q_OF(p, fo) \
    {(p)->input_offset, (fo), (p)->output_offset, (p)->multiplier[0], (p)->shift[0], \
     (p)->act_min, (p)->act_max}

/* (filter + filter_offset) * (input + input_offset), summed wrapping as int32 does. */
static inline uint32_t tap(const u8q *q, uint8_t x, uint8_t w)
{
    return (uint32_t)(((int32_t)w + q->filter_offset) * ((int32_t)x + q->input_offset));
}

static inline uint8_t finish(const u8q *q, uint32_t acc, const int32_t *bias, int32_t c)
{
    if (bias != NULL)
        acc += (uint32_t)bias[c];
    int64_t v = (int64_t)pl_fx_mul_by_qm((int32_t)acc, q->multiplier, q->shift) +
                q->output_offset;
    return (uint8_t)(v < q->act_min ? q->act_min : v > q->act_max ? q->act_max : v);
}

void pl_u8conv_conv(const pl_conv_params *p, int32_t filter_offset, const int32_t *in_dims,
                    const uint8_t *in, const int32_t *f_dims, const uint8_t *filter,
                    const int32_t *bias, const int32_t *out_dims, uint8_t *out)
{
    const u8q qv = U8Q_OF(p, filter_offset), *q = &qv;
    const int32_t ih = in_dims[1], iw = in_dims[2], id = in_dims[3];
    const int32_t fh = f_dims[1], fw = f_dims[2];
    size_t o = 0;
    for (int32_t b = 0; b < out_dims[0]; b++)
        for (int32_t oy = 0; oy < out_dims[1]; oy++)
            for (int32_t ox = 0; ox < out_dims[2]; ox++)
                for (int32_t oc = 0; oc < out_dims[3]; oc++) {
                    int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                    int32_t fy0, fy1, fx0, fx1;
                    pl_pad_clip_taps(y0, p->dilation_h, ih, fh, &fy0, &fy1);
                    pl_pad_clip_taps(x0, p->dilation_w, iw, fw, &fx0, &fx1);
                    uint32_t acc = 0;
                    for (int32_t fy = fy0; fy < fy1; fy++)
                        for (int32_t fx = fx0; fx < fx1; fx++) {
                            size_t y = (size_t)(y0 + p->dilation_h * fy);
                            size_t x = (size_t)(x0 + p->dilation_w * fx);
                            const uint8_t *xs = in + (((size_t)b * (size_t)ih + y) *
                                                      (size_t)iw + x) * (size_t)id;
                            const uint8_t *ws = filter + (((size_t)oc * (size_t)fh +
                                                           (size_t)fy) * (size_t)fw +
                                                          (size_t)fx) * (size_t)id;
                            for (int32_t c = 0; c < id; c++)
                                acc += tap(q, xs[c], ws[c]);
                        }
                    out[o++] = finish(q, acc, bias, oc);
                }
}

void pl_u8conv_depthwise(const pl_depthwise_conv_params *p, int32_t filter_offset,
                         const int32_t *in_dims, const uint8_t *in, const int32_t *f_dims,
                         const uint8_t *filter, const int32_t *bias, const int32_t *out_dims,
                         uint8_t *out)
{
    const u8q qv = U8Q_OF(p, filter_offset), *q = &qv;
    const int32_t ih = in_dims[1], iw = in_dims[2], id = in_dims[3];
    const int32_t fh = f_dims[1], fw = f_dims[2], od = out_dims[3];
    size_t o = 0;
    for (int32_t b = 0; b < out_dims[0]; b++)
        for (int32_t oy = 0; oy < out_dims[1]; oy++)
            for (int32_t ox = 0; ox < out_dims[2]; ox++)
                for (int32_t oc = 0; oc < od; oc++) {
                    int32_t ic = oc / p->depth_multiplier;
                    int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                    int32_t fy0, fy1, fx0, fx1;
                    pl_pad_clip_taps(y0, p->dilation_h, ih, fh, &fy0, &fy1);
                    pl_pad_clip_taps(x0, p->dilation_w, iw, fw, &fx0, &fx1);
                    uint32_t acc = 0;
                    for (int32_t fy = fy0; fy < fy1; fy++)
                        for (int32_t fx = fx0; fx < fx1; fx++) {
                            size_t y = (size_t)(y0 + p->dilation_h * fy);
                            size_t x = (size_t)(x0 + p->dilation_w * fx);
                            uint8_t xv = in[(((size_t)b * (size_t)ih + y) * (size_t)iw + x) *
                                                (size_t)id + (size_t)ic];
                            uint8_t wv = filter[((size_t)fy * (size_t)fw + (size_t)fx) *
                                                    (size_t)od + (size_t)oc];
                            acc += tap(q, xv, wv);
                        }
                    out[o++] = finish(q, acc, bias, oc);
                }
}

/* static_cast<int32_t> of the rounded value, saturated instead of undefined */
static int64_t round_saturated(double x)
{
    double v = pl_fx_round(x);
    return v >= 2147483647.0 ? INT32_MAX : v <= -2147483648.0 ? INT32_MIN : (int64_t)v;
}

void pl_u8conv_fully_connected(const pl_fully_connected_params *p, const uint8_t *in,
                               const uint8_t *filter, const int32_t *bias, uint8_t *out)
{
    const size_t depth = (size_t)p->depth;
    for (int32_t b = 0; b < p->batches; b++)
        for (int32_t u = 0; u < p->units; u++) {
            const uint8_t *x = in + (size_t)b * depth, *w = filter + (size_t)u * depth;
            uint32_t acc = 0;
            for (size_t d = 0; d < depth; d++)
                acc += (uint32_t)(((int32_t)w[d] + p->filter_offset) *
                                  ((int32_t)x[d] + p->input_offset));
            if (bias != NULL)
                acc += (uint32_t)bias[u];
            int64_t r = p->fixed_rescale
                            ? pl_rescale_qm((int32_t)acc, p->rescale[0], p->rescale[1])
                            : round_saturated((double)(int32_t)acc * p->scale[0]);
            r += p->output_offset;
            out[(size_t)b * (size_t)p->units + (size_t)u] =
                (uint8_t)(r < p->act_min ? p->act_min : r > p->act_max ? p->act_max : r);
        }
}
