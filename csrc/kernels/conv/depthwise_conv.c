/* depthwise_conv.c - DEPTHWISE_CONV_2D as TFLite's reference kernels compute it. */
#include "depthwise_conv.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "kernels/conv/conv_params.h"
#include "kernels/conv/depthwise_s4_cmsis.h"
#include "kernels/conv/int4.h"
#include "kernels/conv/hybrid.h"
#include "kernels/conv/uint8.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/common/padding.h"
#include "kernels/common/rescale.h"
#include "picolite/pl_node_io.h"

/* DepthwiseConv2DOptions field ids (schema.fbs). */
enum { OPT_PADDING = 0, OPT_STRIDE_W, OPT_STRIDE_H, OPT_DEPTH_MULTIPLIER, OPT_ACTIVATION,
       OPT_DILATION_W, OPT_DILATION_H };

static const pl_convq_names op_names = {"DEPTHWISE_CONV_2D", "filter", "per-channel",
                                        "filter", "channel"};

/* Output channels are computed in blocks with the channel loop innermost, so every tap is
** one contiguous, vectorizable pass over input and filter channels; each output still sums
** its taps in TFLite's order (filter_y, filter_x). int8 blocks are short (16 channels, see
** CHANNELS_S8), float ones long; 16x8 ones short too, their int64 sums would take 512 bytes
** of stack at 64 channels (a microcontroller's whole budget). */
enum { BLOCK_S8 = 16, BLOCK_S16 = 16, BLOCK = 64 };

/* Calls TAP(input pixel offset, filter tap offset) for each in-bounds tap of the window of
** output point (b, oy, ox), in TFLite's order. */
#define FOR_EACH_TAP(p, in_dims, f_dims, out_d, b, oy, ox, TAP)                           \
    do {                                                                                  \
        const int32_t y0_ = (oy) * (p)->stride_h - (p)->pad_h;                            \
        const int32_t x0_ = (ox) * (p)->stride_w - (p)->pad_w;                            \
        int32_t fy0_, fy1_, fx0_, fx1_;                                                   \
        pl_pad_clip_taps(y0_, (p)->dilation_h, in_dims[1], f_dims[1], &fy0_, &fy1_);      \
        pl_pad_clip_taps(x0_, (p)->dilation_w, in_dims[2], f_dims[2], &fx0_, &fx1_);      \
        for (int32_t fy_ = fy0_; fy_ < fy1_; fy_++) {                                     \
            const size_t iy_ = (size_t)(b) * (size_t)in_dims[1] +                         \
                               (size_t)(y0_ + (p)->dilation_h * fy_);                     \
            for (int32_t fx_ = fx0_; fx_ < fx1_; fx_++) {                                 \
                const size_t ix_ = iy_ * (size_t)in_dims[2] +                             \
                                   (size_t)(x0_ + (p)->dilation_w * fx_);                 \
                TAP(ix_ * (size_t)in_dims[3],                                             \
                    ((size_t)fy_ * (size_t)f_dims[2] + (size_t)fx_) * (size_t)(out_d));   \
            }                                                                             \
        }                                                                                 \
    } while (0)

/* Calls BLOCK_FN(b, oy, ox, first output channel, channel count, output offset). Blocks
** hold whole multiples of the depth multiplier m when m <= blk (see TAP_CHANNELS). */
#define FOR_EACH_BLOCK(out_dims, m, blk, BLOCK_FN)                                        \
    do {                                                                                  \
        const int32_t step_ = (m) <= (blk) ? (blk) - (blk) % (m) : (blk);                 \
        size_t o_ = 0;                                                                    \
        for (int32_t b_ = 0; b_ < out_dims[0]; b_++)                                      \
            for (int32_t oy_ = 0; oy_ < out_dims[1]; oy_++)                               \
                for (int32_t ox_ = 0; ox_ < out_dims[2]; ox_++, o_ += (size_t)out_dims[3]) \
                    for (int32_t c_ = 0; c_ < out_dims[3]; c_ += step_) {                 \
                        int32_t n_ = out_dims[3] - c_ < step_ ? out_dims[3] - c_ : step_; \
                        BLOCK_FN(b_, oy_, ox_, c_, n_, o_);                               \
                    }                                                                     \
    } while (0)

/* STMT for k in [0, n). For int8 a block of exactly 16 (or 8) channels gets a constant trip
** count, which the compiler turns into straight vector code without per-tap loop setup. */
#define CHANNELS(n, k, STMT)                                                              \
    do {                                                                                  \
        for (int32_t k = 0; k < (n); k++)                                                 \
            STMT;                                                                         \
    } while (0)
#define CHANNELS_S8(n, k, STMT)                                                           \
    do {                                                                                  \
        if ((n) == BLOCK_S8) {                                                            \
            for (int32_t k = 0; k < BLOCK_S8; k++)                                        \
                STMT;                                                                     \
        } else if ((n) == BLOCK_S8 / 2) {                                                 \
            for (int32_t k = 0; k < BLOCK_S8 / 2; k++)                                    \
                STMT;                                                                     \
        } else {                                                                          \
            for (int32_t k = 0; k < (n); k++)                                             \
                STMT;                                                                     \
        }                                                                                 \
    } while (0)

/* How a block's channels map to input channels (one division per block, not per tap). */
enum { ONE_TO_ONE, WHOLE_GROUPS, SCATTERED };

static inline int32_t block_mode(int32_t m, int32_t c, int32_t n)
{
    return m == 1 ? ONE_TO_ONE : c % m == 0 && n % m == 0 ? WHOLE_GROUPS : SCATTERED;
}

/* One tap for the n channels of a block starting at output channel c: acc[k] += w[k] *
** x[(c + k) / m] (by MAC(acc, w, x)), x pointing at the tap's pixel. ONE_TO_ONE is the
** contiguous case; WHOLE_GROUPS takes one input channel per m outputs, from xc = c / m. */
#define TAP_CHANNELS(XT, X, CH, MAC)                                                      \
    do {                                                                                  \
        if (mode == ONE_TO_ONE) {                                                         \
            CH(n, k, MAC(acc[k], w[k], X(x[c + k])));                                     \
        } else if (mode == WHOLE_GROUPS && n == m) {                                      \
            const XT xv = X(x[xc]);                                                       \
            CH(n, k, MAC(acc[k], w[k], xv));                                              \
        } else if (mode == WHOLE_GROUPS) {                                                \
            for (int32_t j = 0, ic = xc; j < n; j += m, ic++) {                           \
                const XT xv = X(x[ic]);                                                   \
                for (int32_t k = j; k < j + m; k++)                                       \
                    MAC(acc[k], w[k], xv);                                                \
            }                                                                             \
        } else {                                                                          \
            for (int32_t k = 0; k < n; k++)                                               \
                MAC(acc[k], w[k], X(x[(c + k) / m]));                                     \
        }                                                                                 \
    } while (0)

#define AS_IS(v) (v)
/* int8 input + offset fits int16, and so does the filter: a 16x16->32 multiply */
#define OFFSET(v) (int16_t)((v) + off)
#define WIDE(v) (int64_t)(v)
#define MAC_ADD(a, w, x) ((a) += (w) * (x))
/* TFLite's `total += x * w` as a fused target's compiler emits it: one rounding */
#define MAC_FMA(a, w, x) ((a) = fmaf((w), (x), (a)))

static inline void tap_f32(int32_t mode, int32_t m, int32_t c, int32_t xc, int32_t n,
                           float *restrict acc, const float *restrict w,
                           const float *restrict x)
{
    TAP_CHANNELS(float, AS_IS, CHANNELS, MAC_ADD);
}

static inline void tap_fma_f32(int32_t mode, int32_t m, int32_t c, int32_t xc, int32_t n,
                               float *restrict acc, const float *restrict w,
                               const float *restrict x)
{
    TAP_CHANNELS(float, AS_IS, CHANNELS, MAC_FMA);
}

static inline void tap_s8(int32_t mode, int32_t m, int32_t c, int32_t xc, int32_t n,
                          int16_t off, int32_t *restrict acc, const int8_t *restrict w,
                          const int8_t *restrict x)
{
    TAP_CHANNELS(int16_t, OFFSET, CHANNELS_S8, MAC_ADD);
}

static inline void tap_s16(int32_t mode, int32_t m, int32_t c, int32_t xc, int32_t n,
                           int64_t *restrict acc, const int8_t *restrict w,
                           const int16_t *restrict x)
{
    TAP_CHANNELS(int64_t, WIDE, CHANNELS, MAC_ADD);
}

static inline void block_f32(const pl_depthwise_conv_params *p, const int32_t *in_dims,
                             const float *in, const int32_t *f_dims, const float *filter,
                             const float *bias, int32_t out_d, int32_t b, int32_t oy,
                             int32_t ox, int32_t c, int32_t n, float *out)
{
    const int32_t m = p->depth_multiplier, mode = block_mode(m, c, n), xc = c / m;
    float t[BLOCK];
    for (int32_t k = 0; k < n; k++)
        t[k] = 0.0f;
    const float *restrict x0 = in;
    const float *restrict w0 = filter + c;
    if (p->fused) { /* apart, so the unfused taps stay as fast */
#define TAP(i_, f_) tap_fma_f32(mode, m, c, xc, n, t, w0 + (f_), x0 + (i_))
        FOR_EACH_TAP(p, in_dims, f_dims, out_d, b, oy, ox, TAP);
#undef TAP
    } else {
#define TAP(i_, f_) tap_f32(mode, m, c, xc, n, t, w0 + (f_), x0 + (i_))
        FOR_EACH_TAP(p, in_dims, f_dims, out_d, b, oy, ox, TAP);
#undef TAP
    }
    for (int32_t k = 0; k < n; k++) {
        float bias_value = bias != NULL ? bias[c + k] : 0.0f;
        out[c + k] = pl_fx_clamp_f32(t[k] + bias_value, p->f_act_min, p->f_act_max);
    }
}

void pl_depthwise_conv_f32(const pl_depthwise_conv_params *p, const int32_t *in_dims,
                           const float *in, const int32_t *f_dims, const float *filter,
                           const float *bias, const int32_t *out_dims, float *out)
{
#define BLOCK_FN(b_, oy_, ox_, c_, n_, o_)                                                \
    block_f32(p, in_dims, in, f_dims, filter, bias, out_dims[3], b_, oy_, ox_, c_, n_,     \
              out + (o_))
    FOR_EACH_BLOCK(out_dims, p->depth_multiplier, BLOCK, BLOCK_FN);
#undef BLOCK_FN
}

static inline void block_s8(const pl_depthwise_conv_params *p, const int32_t *in_dims,
                            const int8_t *in, const int32_t *f_dims, const int8_t *filter,
                            const int32_t *bias, int32_t out_d, int32_t b, int32_t oy,
                            int32_t ox, int32_t c, int32_t n, int8_t *out)
{
    const int32_t m = p->depth_multiplier, mode = block_mode(m, c, n), xc = c / m;
    const int16_t off = (int16_t)p->input_offset;
    int32_t acc[BLOCK_S8];
    for (int32_t k = 0; k < n; k++)
        acc[k] = 0;
    const int8_t *restrict x0 = in;
    const int8_t *restrict w0 = filter + c;
#define TAP(i_, f_) tap_s8(mode, m, c, xc, n, off, acc, w0 + (f_), x0 + (i_))
    FOR_EACH_TAP(p, in_dims, f_dims, out_d, b, oy, ox, TAP);
#undef TAP
    for (int32_t k = 0; k < n; k++) {
        int32_t a = acc[k];
        if (bias != NULL) /* wraps like TFLite's int32 add, defined-ly */
            a = (int32_t)((uint32_t)a + (uint32_t)bias[c + k]);
        a = pl_rescale_qm(a, p->multiplier[c + k], p->shift[c + k]) + p->output_offset;
        out[c + k] = (int8_t)pl_fx_clamp(a, p->act_min, p->act_max);
    }
}

void pl_depthwise_conv_s8(const pl_depthwise_conv_params *p, const int32_t *in_dims,
                          const int8_t *in, const int32_t *f_dims, const int8_t *filter,
                          const int32_t *bias, const int32_t *out_dims, int8_t *out)
{
#define BLOCK_FN(b_, oy_, ox_, c_, n_, o_)                                                \
    block_s8(p, in_dims, in, f_dims, filter, bias, out_dims[3], b_, oy_, ox_, c_, n_,      \
             out + (o_))
    FOR_EACH_BLOCK(out_dims, p->depth_multiplier, BLOCK_S8, BLOCK_FN);
#undef BLOCK_FN
}

static inline void block_s16(const pl_depthwise_conv_params *p, const int32_t *in_dims,
                             const int16_t *in, const int32_t *f_dims, const int8_t *filter,
                             const int64_t *bias, int32_t out_d, int32_t b, int32_t oy,
                             int32_t ox, int32_t c, int32_t n, int16_t *out)
{
    const int32_t m = p->depth_multiplier, mode = block_mode(m, c, n), xc = c / m;
    int64_t acc[BLOCK_S16];
    for (int32_t k = 0; k < n; k++)
        acc[k] = 0;
    const int16_t *restrict x0 = in;
    const int8_t *restrict w0 = filter + c;
#define TAP(i_, f_) tap_s16(mode, m, c, xc, n, acc, w0 + (f_), x0 + (i_))
    FOR_EACH_TAP(p, in_dims, f_dims, out_d, b, oy, ox, TAP);
#undef TAP
    for (int32_t k = 0; k < n; k++) {
        int64_t a = (int64_t)((uint64_t)acc[k] + /* wraps defined-ly on hostile biases */
                              (uint64_t)(bias != NULL ? pl_load_i64(bias, (size_t)(c + k)) : 0));
        int32_t scaled = pl_fx_mul_by_qm64(a, p->multiplier[c + k], p->shift[c + k]);
        scaled += p->output_offset;
        out[c + k] = (int16_t)pl_fx_clamp(scaled, p->act_min, p->act_max);
    }
}

void pl_depthwise_conv_s16(const pl_depthwise_conv_params *p, const int32_t *in_dims,
                           const int16_t *in, const int32_t *f_dims, const int8_t *filter,
                           const int64_t *bias, const int32_t *out_dims, int16_t *out)
{
#define BLOCK_FN(b_, oy_, ox_, c_, n_, o_)                                                \
    block_s16(p, in_dims, in, f_dims, filter, bias, out_dims[3], b_, oy_, ox_, c_, n_,     \
              out + (o_))
    FOR_EACH_BLOCK(out_dims, p->depth_multiplier, BLOCK_S16, BLOCK_FN);
#undef BLOCK_FN
}

static inline void block_hybrid(const pl_depthwise_conv_params *p, const float *filter_scale,
                                float batch_scale, const int32_t *in_dims, const int8_t *in,
                                const int32_t *f_dims, const int8_t *filter, const float *bias,
                                int32_t out_d, int32_t oy, int32_t ox, int32_t c, int32_t n,
                                float *out)
{
    const int32_t m = p->depth_multiplier, mode = block_mode(m, c, n), xc = c / m;
    const int16_t off = (int16_t)p->input_offset;
    int32_t acc[BLOCK_S8];
    for (int32_t k = 0; k < n; k++)
        acc[k] = 0;
    const int8_t *restrict x0 = in;
    const int8_t *restrict w0 = filter + c;
#define TAP(i_, f_) tap_s8(mode, m, c, xc, n, off, acc, w0 + (f_), x0 + (i_))
    FOR_EACH_TAP(p, in_dims, f_dims, out_d, 0, oy, ox, TAP);
#undef TAP
    for (int32_t k = 0; k < n; k++) {
        /* LiteRT's order: the two scales multiply first */
        float v = (float)acc[k] * (filter_scale[c + k] * batch_scale);
        if (bias != NULL)
            v += bias[c + k];
        out[c + k] = pl_fx_clamp_f32(v, p->f_act_min, p->f_act_max);
    }
}

void pl_depthwise_conv_hybrid(const pl_depthwise_conv_params *p, const float *filter_scale,
                              const int32_t *in_dims, const float *in, const int32_t *f_dims,
                              const int8_t *filter, const float *bias, const int32_t *out_dims,
                              float *out, int8_t *scratch)
{
    const int32_t in_size = in_dims[1] * in_dims[2] * in_dims[3];
    const size_t out_size = (size_t)out_dims[1] * (size_t)out_dims[2] * (size_t)out_dims[3];
    const int32_t one_out[4] = {1, out_dims[1], out_dims[2], out_dims[3]};
    pl_depthwise_conv_params pb = *p;
    for (int32_t b = 0; b < in_dims[0]; b++) {
        float sf = 1.0f;
        int32_t zp = 0;
        pl_hybrid_quantize_asymmetric(in + (size_t)b * (size_t)in_size, in_size, scratch, &sf,
                                      &zp);
        pb.input_offset = -zp;
        float *ob = out + (size_t)b * out_size;
#define BLOCK_FN(b_, oy_, ox_, c_, n_, o_)                                                \
    block_hybrid(&pb, filter_scale, sf, in_dims, scratch, f_dims, filter, bias, out_dims[3], \
                 oy_, ox_, c_, n_, ob + (o_))
        FOR_EACH_BLOCK(one_out, pb.depth_multiplier, BLOCK_S8, BLOCK_FN);
#undef BLOCK_FN
    }
}

static pl_status read_options(pl_context *ctx, const pl_node *node,
                              pl_depthwise_conv_params *p, int32_t *padding,
                              int32_t *activation)
{
    const pl_table *o = &node->options;
    *padding = pl_table_i8(o, OPT_PADDING, 0);
    p->stride_w = pl_table_i32(o, OPT_STRIDE_W, 0);
    p->stride_h = pl_table_i32(o, OPT_STRIDE_H, 0);
    p->depth_multiplier = pl_table_i32(o, OPT_DEPTH_MULTIPLIER, 0);
    p->dilation_w = pl_table_i32(o, OPT_DILATION_W, 1);
    p->dilation_h = pl_table_i32(o, OPT_DILATION_H, 1);
    *activation = pl_table_i8(o, OPT_ACTIVATION, 0);
    PL_TRY(pl_convq_check_window(ctx, &op_names, *padding, p->stride_h, p->stride_w,
                                 p->dilation_h, p->dilation_w));
    return pl_convq_check_activation(ctx, &op_names, *activation);
}

/* The output is [batch, oh, ow, filter depth] as TFLite's depthwise Prepare resizes it. */
static pl_status check_shapes(pl_context *ctx, const pl_tensor *in, const pl_tensor *f,
                              const pl_tensor *bias, pl_tensor *out, int32_t padding,
                              pl_depthwise_conv_params *p)
{
    if (in->ndims != 4 || f->ndims != 4 || f->dims[0] != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "DEPTHWISE_CONV_2D: the input must be 4D and "
                         "the filter 1HWC (got ranks %d, %d)", in->ndims, f->ndims);
    const pl_nhwc in_shape = pl_nhwc_of(in);
    const pl_nhwc f_shape = pl_nhwc_of(f);
    int32_t in_d = in_shape.c, out_d = f_shape.c;
    if (in_d <= 0 || out_d % in_d != 0 ||
        (p->depth_multiplier != 0 && (int64_t)p->depth_multiplier * in_d != out_d))
        return ctx->fail(ctx, PL_ERR_MODEL, "DEPTHWISE_CONV_2D: depth multiplier %d with "
                         "input depth %d does not give filter depth %d", p->depth_multiplier,
                         in_d, out_d);
    p->depth_multiplier = out_d / in_d;
    int32_t oh = pl_pad_out_size(padding, in_shape.h, f_shape.h, p->stride_h,
                                 p->dilation_h);
    int32_t ow = pl_pad_out_size(padding, in_shape.w, f_shape.w, p->stride_w,
                                 p->dilation_w);
    PL_TRY(pl_convq_set_output(ctx, &op_names, in, out_d, oh, ow, out));
    PL_TRY(pl_convq_bias_count(ctx, &op_names, bias, out_d));
    p->pad_h = pl_pad_before(p->stride_h, p->dilation_h, in_shape.h, f_shape.h, oh, NULL);
    p->pad_w = pl_pad_before(p->stride_w, p->dilation_w, in_shape.w, f_shape.w, ow, NULL);
    return PL_OK;
}

static pl_status check_types(pl_context *ctx, const pl_tensor *in, const pl_tensor *f,
                             const pl_tensor *bias, const pl_tensor *out)
{
    /* float input with an int8 filter is hybrid */
    pl_type want_f = in->type == PL_FLOAT32 && f->type == PL_FLOAT32 ? PL_FLOAT32 : PL_INT8;
    bool int4 = in->type == PL_INT8 && f->type == PL_INT4;
    bool ok = (in->type == PL_FLOAT32 || in->type == PL_INT8 || in->type == PL_INT16) &&
              (f->type == want_f || int4) && out->type == in->type &&
              pl_convq_bias_type_ok(in->type, bias, false);
    ok = ok || pl_u8conv_types_ok(in, f, bias, out);
    if (!ok)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "DEPTHWISE_CONV_2D: input %s, filter %s, "
                         "bias %s, output %s is not supported", pl_type_name(in->type),
                         pl_type_name(f->type), bias ? pl_type_name(bias->type) : "none",
                         pl_type_name(out->type));
    return PL_OK;
}

/* LiteRT reads one filter scale per output channel (a single scale serves one channel
** only). */
static pl_status prepare_hybrid(pl_context *ctx, const pl_tensor *in, const pl_tensor *f,
                                pl_depthwise_conv_op *d)
{
    const pl_nhwc in_shape = pl_nhwc_of(in);
    const pl_nhwc f_shape = pl_nhwc_of(f);
    if (f->q.count != (uint32_t)f_shape.c)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "DEPTHWISE_CONV_2D: the hybrid filter needs "
                         "one scale per output channel (%d), got %u", f_shape.c, f->q.count);
    PL_TRY(pl_hybrid_filter_scales(ctx, &op_names, f, f_shape.c, f->q.count > 1 ? 3 : 0,
                                   &d->p.filter_scale));
    d->p.hybrid = true;
    size_t batch = pl_tensor_count(in) / (size_t)in_shape.n;
    return ctx->request_scratch(ctx, batch, &d->scratch);
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_depthwise_conv_op *d = node->user_data;
    pl_convq_io io;
    PL_TRY(pl_convq_io_get(ctx, node, &op_names, &io));
    const pl_tensor *in = io.in, *f = io.f, *bias = io.bias, *out = io.out;
    int32_t padding = 0, activation = 0;
    PL_TRY(read_options(ctx, node, &d->p, &padding, &activation));
    PL_TRY(check_types(ctx, in, f, bias, out));
    PL_TRY(check_shapes(ctx, in, f, bias, io.out, padding, &d->p));
    const pl_nhwc f_shape = pl_nhwc_of(f);
    d->type = in->type;
    d->p.hybrid = false;
    d->p.s4_walk = PL_DW_S4_UNPACKED;
    pl_fx_activation_range_f32(activation, &d->p.f_act_min, &d->p.f_act_max);
    d->p.fused = ctx->fused_madd;
    if (in->type == PL_FLOAT32 && f->type == PL_INT8)
        return prepare_hybrid(ctx, in, f, d);
    if (in->type == PL_FLOAT32)
        return PL_OK;
    pl_convq q;
    if (in->type == PL_UINT8)
        PL_TRY(pl_u8conv_prepare(ctx, "DEPTHWISE_CONV_2D", in, f, out, activation, &q,
                                 &d->filter_offset));
    else
        PL_TRY(pl_convq_per_channel(ctx, &op_names, in, f, out, activation, f_shape.c, 3,
                                    &q));
    PL_CONVQ_STORE(&d->p, q);
    if (f->type != PL_INT4)
        return PL_OK;
    /* CMSIS-NN's int4 kernels read some weights from other nibbles (depthwise_s4_cmsis.h);
    ** the unpacking scratch is asked for on every target all the same, so picolite's own
    ** arena stays the target's arena replay's */
    PL_TRY(pl_int4_filter_prepare(ctx, op_names.op, f, &d->scratch));
    return pl_dw_s4_cmsis_plan(ctx, &d->p, in->dims, f->dims, io.out->dims, &d->p.s4_walk);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const pl_depthwise_conv_op *d = node->user_data;
    pl_convq_views v;
    PL_TRY(pl_convq_views_get(ctx, node, &v));
    /* private copies: the rescale calls in the loops cannot change them, so they stay in
    ** registers (v itself has escaped to get_eval) */
    int32_t in_dims[4], f_dims[4], out_dims[4];
    memcpy(in_dims, v.in.dims, sizeof in_dims);
    memcpy(f_dims, v.f.dims, sizeof f_dims);
    memcpy(out_dims, v.out.dims, sizeof out_dims);
    if (d->p.hybrid) {
        int8_t *scratch = ctx->get_scratch(ctx, d->scratch);
        if (scratch == NULL)
            return ctx->fail(ctx, PL_ERR_STATE, "DEPTHWISE_CONV_2D: scratch buffer %d missing",
                             d->scratch);
        pl_depthwise_conv_hybrid(&d->p, d->p.filter_scale, in_dims, v.in.data, f_dims, v.f.data,
                                 v.bias.data, out_dims, v.out.data, scratch);
    } else if (d->type == PL_FLOAT32)
        pl_depthwise_conv_f32(&d->p, in_dims, v.in.data, f_dims, v.f.data, v.bias.data,
                              out_dims, v.out.data);
    else if (d->type == PL_UINT8)
        pl_u8conv_depthwise(&d->p, d->filter_offset, in_dims, v.in.data, f_dims, v.f.data,
                            v.bias.data, out_dims, v.out.data);
    else if (d->type == PL_INT8 && d->p.s4_walk != PL_DW_S4_UNPACKED)
        return pl_dw_s4_cmsis(ctx, &d->p, d->p.s4_walk, in_dims, v.in.data, f_dims, v.f.data,
                              v.bias.data, out_dims, v.out.data);
    else if (d->type == PL_INT8) {
        const int8_t *filter = v.f.type == PL_INT4
            ? pl_int4_filter_unpack(ctx, op_names.op, &v.f, d->scratch) : v.f.data;
        if (filter == NULL)
            return PL_ERR_STATE;
        pl_depthwise_conv_s8(&d->p, in_dims, v.in.data, f_dims, filter, v.bias.data,
                             out_dims, v.out.data);
    }
    else
        pl_depthwise_conv_s16(&d->p, in_dims, v.in.data, f_dims, v.f.data, v.bias.data,
                              out_dims, v.out.data);
    return PL_OK;
}

const pl_registration *pl_depthwise_conv_registration(void)
{
    static const pl_registration reg = {.name = "DEPTHWISE_CONV_2D", .builtin_code = 4,
                                        .prepare = prepare, .invoke = invoke,
                                        .user_data_size = sizeof(pl_depthwise_conv_op)};
    return &reg;
}
