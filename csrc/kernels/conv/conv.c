/* conv.c - CONV_2D as TFLite's reference kernels compute it (direct loops, no im2col). */
#include "conv.h"

#include "kernels/conv/conv_1xn_mve.h"
#include "kernels/conv/conv_params.h"
#include "kernels/conv/conv_window_fast.h"
#include "kernels/conv/int4.h"
#include "kernels/conv/uint8.h"
#include "kernels/common/dot.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/common/padding.h"
#include "kernels/conv/hybrid.h"
#include "kernels/common/rescale.h"
#include "picolite/pl_node_io.h"

/* Conv2DOptions field ids (schema.fbs). */
enum { OPT_PADDING = 0, OPT_STRIDE_W, OPT_STRIDE_H, OPT_ACTIVATION, OPT_DILATION_W,
       OPT_DILATION_H, OPT_QUANTIZED_BIAS_TYPE };

static const pl_convq_names op_names = {"CONV_2D", "filter", "per-output-channel",
                                        "filter", "channel"};

typedef pl_conv_op op_data;

/* One output point's geometry and its runs. A "run" is a stretch of taps contiguous in both
** the input and the filter: a whole clipped filter row when dilation_w is 1 and there is
** one group (input channels and filter depth coincide), else one tap's filter depth. The
** taps are clipped by conv_window_fast.h's helper into these fields, not through its
** pl_conv_window: a copy of that struct costs the MCU's invoke stack. */
typedef struct window {
    const int32_t *in_dims, *f_dims;
    int32_t fy0, fy1, fx0, fx1, y0, x0, dil_h, dil_w;
    size_t row0; /* input offset of (batch, 0, 0, 0) */
    bool rows;   /* runs span whole clipped filter rows */
    bool full;   /* no tap was clipped */
} window;

static inline void window_at(const pl_conv_params *p, const int32_t *in_dims,
                             const int32_t *f_dims, int32_t b, int32_t oy, int32_t ox,
                             window *w)
{
    w->in_dims = in_dims;
    w->f_dims = f_dims;
    w->y0 = oy * p->stride_h - p->pad_h;
    w->x0 = ox * p->stride_w - p->pad_w;
    w->dil_h = p->dilation_h;
    w->dil_w = p->dilation_w;
    pl_conv_clip_taps(w->y0, p->dilation_h, in_dims[1], f_dims[1], &w->fy0, &w->fy1);
    pl_conv_clip_taps(w->x0, p->dilation_w, in_dims[2], f_dims[2], &w->fx0, &w->fx1);
    w->row0 = (size_t)b * (size_t)in_dims[1] * (size_t)in_dims[2] * (size_t)in_dims[3];
    w->rows = p->dilation_w == 1 && f_dims[3] == in_dims[3];
    w->full = w->fy0 == 0 && w->fx0 == 0 && w->fy1 == f_dims[1] && w->fx1 == f_dims[2];
}

/* Visits the window's runs in TFLite's tap order: RUN(input offset, filter offset, length),
** the input offset relative to the window's first input channel c0. */
#define FOR_EACH_RUN(w, RUN)                                                              \
    do {                                                                                  \
        const int32_t in_w_ = (w)->in_dims[2], in_d_ = (w)->in_dims[3];                   \
        const int32_t f_w_ = (w)->f_dims[2], f_d_ = (w)->f_dims[3];                       \
        for (int32_t fy_ = (w)->fy0; fy_ < (w)->fy1; fy_++) {                         \
            const size_t iy_ = (size_t)((w)->y0 + (w)->dil_h * fy_) * (size_t)in_w_;    \
            if ((w)->rows) {                                                              \
                const size_t ix_ = (size_t)((w)->x0 + (w)->fx0);                      \
                RUN((w)->row0 + (iy_ + ix_) * (size_t)in_d_,                              \
                    ((size_t)fy_ * (size_t)f_w_ + (size_t)(w)->fx0) * (size_t)f_d_,     \
                    ((w)->fx1 - (w)->fx0) * f_d_);                                    \
                continue;                                                                 \
            }                                                                             \
            for (int32_t fx_ = (w)->fx0; fx_ < (w)->fx1; fx_++) {                     \
                const size_t ix_ = (size_t)((w)->x0 + (w)->dil_w * fx_);                \
                RUN((w)->row0 + (iy_ + ix_) * (size_t)in_d_,                              \
                    ((size_t)fy_ * (size_t)f_w_ + (size_t)fx_) * (size_t)f_d_, f_d_);     \
            }                                                                             \
        }                                                                                 \
    } while (0)

static inline float dot_f32(const float *restrict x, const float *restrict w, int32_t n,
                            float t)
{
    for (int32_t i = 0; i < n; i++)
        t += x[i] * w[i];
    return t;
}

static inline float dot_fma_f32(const float *restrict x, const float *restrict w, int32_t n,
                                float t)
{
    for (int32_t i = 0; i < n; i++)
        t = fmaf(x[i], w[i], t);
    return t;
}

/* Output channels [oc, oc + count) of one point, count 1 or 4, all in one group; fused:
** each product fused into its sum (the loops kept apart so the unfused ones stay as fast). */
static inline void point_f32(const pl_conv_params *p, const window *w, const float *in,
                             const float *filter, const float *bias, int32_t oc,
                             int32_t count, size_t c0, bool fused, float *out)
{
    const size_t f_size = (size_t)w->f_dims[1] * (size_t)w->f_dims[2] * (size_t)w->f_dims[3];
    const float *f = filter + (size_t)oc * f_size;
    const float *x = in + c0;
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (count == 4 && fused) {
#define RUN4(i_, f_, n_) pl_dot4_fma_f32(x + (i_), f + (f_), f_size, (n_), t)
        FOR_EACH_RUN(w, RUN4);
#undef RUN4
    } else if (count == 4) {
#define RUN4(i_, f_, n_) pl_dot4_f32(x + (i_), f + (f_), f_size, (n_), t)
        FOR_EACH_RUN(w, RUN4);
#undef RUN4
    } else if (fused) {
#define RUN1(i_, f_, n_) t[0] = dot_fma_f32(x + (i_), f + (f_), (n_), t[0])
        FOR_EACH_RUN(w, RUN1);
#undef RUN1
    } else {
#define RUN1(i_, f_, n_) t[0] = dot_f32(x + (i_), f + (f_), (n_), t[0])
        FOR_EACH_RUN(w, RUN1);
#undef RUN1
    }
    for (int32_t k = 0; k < count; k++) {
        float bias_value = bias != NULL ? bias[oc + k] : 0.0f;
        out[oc + k] = pl_fx_clamp_f32(t[k] + bias_value, p->f_act_min, p->f_act_max);
    }
}

/* Calls POINT(window, oc, count, c0, output offset) for every output point and channel
** block: blocks of four channels that share a group (and so an input run), then the
** leftovers one by one. */
#define FOR_EACH_POINT(p, in_dims, f_dims, out_dims, POINT)                               \
    do {                                                                                  \
        const int32_t out_d_ = out_dims[3];                                               \
        const int32_t per_group_ = out_d_ / (in_dims[3] / f_dims[3]);                     \
        size_t o_ = 0;                                                                    \
        for (int32_t b_ = 0; b_ < out_dims[0]; b_++)                                      \
            for (int32_t oy_ = 0; oy_ < out_dims[1]; oy_++)                               \
                for (int32_t ox_ = 0; ox_ < out_dims[2]; ox_++, o_ += (size_t)out_d_) {    \
                    window w_;                                                            \
                    window_at(p, in_dims, f_dims, b_, oy_, ox_, &w_);                     \
                    for (int32_t g0_ = 0; g0_ < out_d_; g0_ += per_group_) {              \
                        const size_t c0_ = (size_t)(g0_ / per_group_) * (size_t)f_dims[3]; \
                        int32_t oc_ = g0_;                                                \
                        for (; oc_ + 4 <= g0_ + per_group_; oc_ += 4)                     \
                            POINT(&w_, oc_, 4, c0_, o_);                                  \
                        for (; oc_ < g0_ + per_group_; oc_++)                             \
                            POINT(&w_, oc_, 1, c0_, o_);                                  \
                    }                                                                     \
                }                                                                         \
    } while (0)

void pl_conv_f32(const pl_conv_params *p, const int32_t *in_dims, const float *in,
                 const int32_t *f_dims, const float *filter, const float *bias,
                 const int32_t *out_dims, bool fused, float *out)
{
#define POINT(w_, oc_, n_, c0_, o_)                                                       \
    point_f32(p, w_, in, filter, bias, oc_, n_, c0_, fused, out + (o_))
    FOR_EACH_POINT(p, in_dims, f_dims, out_dims, POINT);
#undef POINT
}

/* Runs of int8 taps for windows too large to gather: TFLite's w * (x + input_offset) as
** written, the offset operand fitting int16 for the compiler's pairwise multiply-adds;
** integer sums are exact (and wrap alike), so any order gives TFLite's bits. */
static inline void dot4_s8(const int8_t *restrict x, const int8_t *restrict w, size_t stride,
                           int32_t n, int16_t off, int32_t *restrict acc)
{
    const int8_t *w0 = w, *w1 = w + stride, *w2 = w + 2 * stride, *w3 = w + 3 * stride;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int32_t i = 0; i < n; i++) {
        int16_t v = (int16_t)(x[i] + off);
        a0 += v * (int16_t)w0[i];
        a1 += v * (int16_t)w1[i];
        a2 += v * (int16_t)w2[i];
        a3 += v * (int16_t)w3[i];
    }
    acc[0] += a0;
    acc[1] += a1;
    acc[2] += a2;
    acc[3] += a3;
}

static inline int32_t dot_s8(const int8_t *restrict x, const int8_t *restrict w, int32_t n,
                             int16_t off)
{
    int32_t s = 0;
    for (int32_t i = 0; i < n; i++)
        s += (int16_t)(x[i] + off) * (int16_t)w[i];
    return s;
}

/* The int32 accumulators of count (1 or 4) output channels from oc on, summed run by run. */
static inline void acc_runs_s8(const window *w, const int8_t *in, const int8_t *filter,
                               int16_t off, int32_t oc, int32_t count, size_t c0,
                               int32_t *acc)
{
    const size_t f_size = (size_t)w->f_dims[1] * (size_t)w->f_dims[2] * (size_t)w->f_dims[3];
    const int8_t *f = filter + (size_t)oc * f_size;
    const int8_t *x = in + c0;
    acc[0] = acc[1] = acc[2] = acc[3] = 0;
    if (count == 4) {
#define RUN4(i_, f_, n_) dot4_s8(x + (i_), f + (f_), f_size, (n_), off, acc)
        FOR_EACH_RUN(w, RUN4);
#undef RUN4
    } else {
#define RUN1(i_, f_, n_) acc[0] += dot_s8(x + (i_), f + (f_), (n_), off)
        FOR_EACH_RUN(w, RUN1);
#undef RUN1
    }
}

/* TFLite's int8 output stage of count accumulators from oc on: bias, rescale, clamp. */
static inline void finish_s8(const pl_conv_params *p, const int32_t *acc, const int32_t *bias,
                             int32_t oc, int32_t count, int8_t *out)
{
    for (int32_t k = 0; k < count; k++) {
        int32_t a = acc[k];
        if (bias != NULL)
            a = (int32_t)((uint32_t)a + (uint32_t)bias[oc + k]);
        a = pl_rescale_qm(a, p->multiplier[oc + k], p->shift[oc + k]) + p->output_offset;
        out[oc + k] = (int8_t)pl_fx_clamp(a, p->act_min, p->act_max);
    }
}

/* One batch's hybrid output stage. */
typedef struct hybrid_out {
    const float *scale; /* per-channel filter: one scale per output channel, else NULL */
    float batch_scale;  /* the input's scale, with a per-tensor filter times the filter's */
    const float *bias;
} hybrid_out;

/* LiteRT's float order: per-channel (acc * filter scale) * input scale (reference
** HybridConvPerChannel), per-tensor acc * (input scale * filter scale) (HybridConv's matrix
** product); then + bias and the clamp. */
static inline void finish_hybrid(const pl_conv_params *p, const hybrid_out *h,
                                 const int32_t *acc, int32_t oc, int32_t count, float *out)
{
    for (int32_t k = 0; k < count; k++) {
        const int32_t c = oc + k;
        float v = h->scale != NULL ? (float)acc[k] * h->scale[c] * h->batch_scale
                                   : (float)acc[k] * h->batch_scale;
        if (h->bias != NULL)
            v += h->bias[c];
        out[c] = pl_fx_clamp_f32(v, p->f_act_min, p->f_act_max);
    }
}

/* Windows of up to GATHER taps x channels are gathered once per output point
** and group as int16 (input + offset, 0 for taps outside the image, which TFLite skips), laid
** out as the filter is: every output channel is then one dot product over its whole filter,
** in int16 x int16 form (the compiler's multiply-add of pairs). Larger windows take runs:
** the same integer sums, so the choice never changes a result. The buffer is 2 * GATHER
** bytes of stack: 2 KB on a host, 128 bytes on bare metal (CMake's PL_CONV_GATHER). */
#ifndef PL_CONV_GATHER
#define PL_CONV_GATHER 1024
#endif
enum { GATHER = PL_CONV_GATHER };

static inline void gather_s8(const window *w, const int8_t *in, size_t c0, int16_t off,
                             int16_t *restrict buf)
{
    const int32_t f_w = w->f_dims[2], f_d = w->f_dims[3];
    const int32_t in_w = w->in_dims[2], in_d = w->in_dims[3];
    if (!w->full) {
        const int32_t f_size = w->f_dims[1] * f_w * f_d;
        for (int32_t i = 0; i < f_size; i++)
            buf[i] = 0;
    }
    for (int32_t fy = w->fy0; fy < w->fy1; fy++) {
        const size_t iy = (size_t)(w->y0 + w->dil_h * fy) * (size_t)in_w;
        for (int32_t fx = w->fx0; fx < w->fx1; fx++) {
            const size_t ix = (size_t)(w->x0 + w->dil_w * fx);
            const int8_t *restrict src = in + w->row0 + (iy + ix) * (size_t)in_d + c0;
            int16_t *restrict dst = buf + ((size_t)fy * (size_t)f_w + (size_t)fx) * (size_t)f_d;
            for (int32_t ic = 0; ic < f_d; ic++)
                dst[ic] = (int16_t)(src[ic] + off);
        }
    }
}

static inline void dot4_x16(const int16_t *restrict x, const int8_t *restrict w, size_t stride,
                            int32_t n, int32_t *restrict acc)
{
    const int8_t *w0 = w, *w1 = w + stride, *w2 = w + 2 * stride, *w3 = w + 3 * stride;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int32_t i = 0; i < n; i++) {
        int16_t v = x[i];
        a0 += v * (int16_t)w0[i];
        a1 += v * (int16_t)w1[i];
        a2 += v * (int16_t)w2[i];
        a3 += v * (int16_t)w3[i];
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

static inline int32_t dot_x16(const int16_t *restrict x, const int8_t *restrict w, int32_t n)
{
    int32_t s = 0;
    for (int32_t i = 0; i < n; i++)
        s += x[i] * (int16_t)w[i];
    return s;
}

static inline void acc_gathered_s8(const int16_t *buf, int32_t f_size, const int8_t *filter,
                                   int32_t oc, int32_t count, int32_t *acc)
{
    const int8_t *f = filter + (size_t)oc * (size_t)f_size;
    if (count == 4)
        dot4_x16(buf, f, (size_t)f_size, f_size, acc);
    else
        acc[0] = dot_x16(buf, f, f_size);
}

/* Calls BLOCK(buf, oc, count, output offset) for every output point and channel block
** (as FOR_EACH_POINT), buf holding the point's window gathered for the block's group. */
#define FOR_EACH_GATHERED(p, in_dims, in, f_dims, out_dims, BLOCK)                        \
    do {                                                                                  \
        int16_t buf_[GATHER];                                                             \
        const int32_t out_d_ = out_dims[3], f_d_ = f_dims[3];                             \
        const int32_t per_group_ = out_d_ / (in_dims[3] / f_d_);                          \
        const int16_t off_ = (int16_t)(p)->input_offset;                                  \
        size_t o_ = 0;                                                                    \
        for (int32_t b_ = 0; b_ < out_dims[0]; b_++)                                      \
            for (int32_t oy_ = 0; oy_ < out_dims[1]; oy_++)                               \
                for (int32_t ox_ = 0; ox_ < out_dims[2]; ox_++, o_ += (size_t)out_d_) {    \
                    window w_;                                                            \
                    window_at(p, in_dims, f_dims, b_, oy_, ox_, &w_);                     \
                    for (int32_t g0_ = 0; g0_ < out_d_; g0_ += per_group_) {              \
                        const size_t c0_ = (size_t)(g0_ / per_group_) * (size_t)f_d_;     \
                        gather_s8(&w_, in, c0_, off_, buf_);                              \
                        int32_t oc_ = g0_;                                                \
                        for (; oc_ + 4 <= g0_ + per_group_; oc_ += 4)                     \
                            BLOCK(buf_, oc_, 4, o_);                                      \
                        for (; oc_ < g0_ + per_group_; oc_++)                             \
                            BLOCK(buf_, oc_, 1, o_);                                      \
                    }                                                                     \
                }                                                                         \
    } while (0)

static bool gathers(const int32_t *f_dims)
{
    return (int64_t)f_dims[1] * f_dims[2] * f_dims[3] <= GATHER;
}

static void conv_s8_gathered(const pl_conv_params *p, const int32_t *in_dims, const int8_t *in,
                             const int32_t *f_dims, const int8_t *filter, const int32_t *bias,
                             const int32_t *out_dims, int8_t *out)
{
    const int32_t f_size = f_dims[1] * f_dims[2] * f_dims[3];
#define BLOCK(buf_, oc_, n_, o_)                                                          \
    do {                                                                                  \
        int32_t acc_[4];                                                                  \
        acc_gathered_s8(buf_, f_size, filter, oc_, n_, acc_);                             \
        finish_s8(p, acc_, bias, oc_, n_, out + (o_));                                    \
    } while (0)
    FOR_EACH_GATHERED(p, in_dims, in, f_dims, out_dims, BLOCK);
#undef BLOCK
}

void pl_conv_s8(const pl_conv_params *p, const int32_t *in_dims, const int8_t *in,
                const int32_t *f_dims, const int8_t *filter, const int32_t *bias,
                const int32_t *out_dims, int8_t *out)
{
    if (gathers(f_dims)) {
        conv_s8_gathered(p, in_dims, in, f_dims, filter, bias, out_dims, out);
        return;
    }
    const int16_t off = (int16_t)p->input_offset;
#define POINT(w_, oc_, n_, c0_, o_)                                                       \
    do {                                                                                  \
        int32_t acc_[4];                                                                  \
        acc_runs_s8(w_, in, filter, off, oc_, n_, c0_, acc_);                             \
        finish_s8(p, acc_, bias, oc_, n_, out + (o_));                                    \
    } while (0)
    FOR_EACH_POINT(p, in_dims, f_dims, out_dims, POINT);
#undef POINT
}

/* One batch (dims with batch 1) of quantized input q: the int8 path's loops, the hybrid
** output stage. */
static void conv_hybrid_batch(const pl_conv_params *p, const hybrid_out *h,
                              const int32_t *in_dims, const int8_t *q, const int32_t *f_dims,
                              const int8_t *filter, const int32_t *out_dims, float *out)
{
    const int32_t f_size = f_dims[1] * f_dims[2] * f_dims[3];
    const int16_t off = (int16_t)p->input_offset;
#define BLOCK(buf_, oc_, n_, o_)                                                          \
    do {                                                                                  \
        int32_t acc_[4];                                                                  \
        acc_gathered_s8(buf_, f_size, filter, oc_, n_, acc_);                             \
        finish_hybrid(p, h, acc_, oc_, n_, out + (o_));                                   \
    } while (0)
#define POINT(w_, oc_, n_, c0_, o_)                                                       \
    do {                                                                                  \
        int32_t acc_[4];                                                                  \
        acc_runs_s8(w_, q, filter, off, oc_, n_, c0_, acc_);                              \
        finish_hybrid(p, h, acc_, oc_, n_, out + (o_));                                   \
    } while (0)
    if (gathers(f_dims))
        FOR_EACH_GATHERED(p, in_dims, q, f_dims, out_dims, BLOCK);
    else
        FOR_EACH_POINT(p, in_dims, f_dims, out_dims, POINT);
#undef POINT
#undef BLOCK
}

/* Each batch is quantized on its own into scratch (TFLite: a per-batch scale and, with
** per-channel filters, an asymmetric zero point, which the taps subtract), then convolved in
** int32 with the int8 filter. */
void pl_conv_hybrid(const pl_conv_params *p, const pl_conv_hybrid_params *h,
                    const int32_t *in_dims, const float *in, const int32_t *f_dims,
                    const int8_t *filter, const float *bias, const int32_t *out_dims,
                    float *out, int8_t *scratch)
{
    const int32_t in_size = in_dims[1] * in_dims[2] * in_dims[3];
    const size_t out_size = (size_t)out_dims[1] * (size_t)out_dims[2] * (size_t)out_dims[3];
    const int32_t one_in[4] = {1, in_dims[1], in_dims[2], in_dims[3]};
    const int32_t one_out[4] = {1, out_dims[1], out_dims[2], out_dims[3]};
    pl_conv_params pb = *p;
    for (int32_t b = 0; b < in_dims[0]; b++) {
        const float *x = in + (size_t)b * (size_t)in_size;
        float sf = 1.0f;
        int32_t zp = 0;
        if (h->per_channel)
            pl_hybrid_quantize_asymmetric(x, in_size, scratch, &sf, &zp);
        else
            pl_hybrid_quantize_symmetric(x, in_size, scratch, &sf);
        pb.input_offset = -zp;
        const hybrid_out ho = {.scale = h->per_channel ? h->filter_scale : NULL,
                               .batch_scale = h->per_channel ? sf : sf * h->filter_scale[0],
                               .bias = bias};
        conv_hybrid_batch(&pb, &ho, one_in, scratch, f_dims, filter, one_out,
                          out + (size_t)b * out_size);
    }
}

/* Four filters against one int16 input run, exact as pl_dot_s16. */
static inline void dot4_s16(const int16_t *restrict x, const int8_t *restrict w,
                            size_t stride, int32_t n, int64_t *restrict acc)
{
    const int8_t *w0 = w, *w1 = w + stride, *w2 = w + 2 * stride, *w3 = w + 3 * stride;
    for (int32_t start = 0; start < n; start += PL_DOT_S16_CHUNK) {
        int32_t end = n - start < PL_DOT_S16_CHUNK ? n : start + PL_DOT_S16_CHUNK;
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (int32_t i = start; i < end; i++) {
            int16_t v = x[i]; /* int16 x int16: the compiler's pairwise multiply-add */
            a0 += v * (int16_t)w0[i];
            a1 += v * (int16_t)w1[i];
            a2 += v * (int16_t)w2[i];
            a3 += v * (int16_t)w3[i];
        }
        acc[0] += a0;
        acc[1] += a1;
        acc[2] += a2;
        acc[3] += a3;
    }
}

/* Bias, 16x8 rescale and clamp of count accumulated outputs from oc on. */
static inline void finish_s16(const pl_conv_params *p, const int64_t *acc, int32_t oc,
                              int32_t count, const int32_t *bias32, const int64_t *bias64,
                              bool acc64, int16_t *out)
{
    for (int32_t k = 0; k < count; k++) {
        int32_t c = oc + k, scaled;
        if (bias64 != NULL || (bias32 == NULL && acc64)) {
            int64_t a = (int64_t)((uint64_t)acc[k] + /* wraps defined-ly on hostile biases */
                                  (uint64_t)(bias64 != NULL ? pl_load_i64(bias64, (size_t)c) : 0));
            scaled = pl_fx_mul_by_qm64(a, p->multiplier[c], p->shift[c]);
        } else { /* int32 accumulator: wraps as TFLite's would, then the int32 rescale */
            int32_t acc32 = (int32_t)(uint32_t)acc[k];
            if (bias32 != NULL)
                acc32 = (int32_t)((uint32_t)acc32 + (uint32_t)bias32[c]);
            scaled = pl_fx_mul_by_qm(acc32, p->multiplier[c], p->shift[c]);
        }
        scaled += p->output_offset;
        out[c] = (int16_t)pl_fx_clamp(scaled, p->act_min, p->act_max);
    }
}

static inline void point_s16(const pl_conv_params *p, const window *w, const int16_t *in,
                             const int8_t *filter, const int32_t *bias32,
                             const int64_t *bias64, bool acc64, int32_t oc, int32_t count,
                             size_t c0, int16_t *out)
{
    const size_t f_size = (size_t)w->f_dims[1] * (size_t)w->f_dims[2] * (size_t)w->f_dims[3];
    const int8_t *f = filter + (size_t)oc * f_size;
    const int16_t *x = in + c0;
    int64_t acc[4] = {0, 0, 0, 0};
    if (count == 4) {
#define RUN4(i_, f_, n_) dot4_s16(x + (i_), f + (f_), f_size, (n_), acc)
        FOR_EACH_RUN(w, RUN4);
#undef RUN4
    } else {
#define RUN1(i_, f_, n_) acc[0] += pl_dot_s16(x + (i_), f + (f_), (n_))
        FOR_EACH_RUN(w, RUN1);
#undef RUN1
    }
    finish_s16(p, acc, oc, count, bias32, bias64, acc64, out);
}

/* The int8 path's gathered windows for 16x8 (zero points are 0, so no offset). */
static inline void gather_s16(const window *w, const int16_t *in, size_t c0,
                              int16_t *restrict buf)
{
    const int32_t f_w = w->f_dims[2], f_d = w->f_dims[3];
    const int32_t in_w = w->in_dims[2], in_d = w->in_dims[3];
    if (!w->full) {
        const int32_t f_size = w->f_dims[1] * f_w * f_d;
        for (int32_t i = 0; i < f_size; i++)
            buf[i] = 0;
    }
    for (int32_t fy = w->fy0; fy < w->fy1; fy++) {
        const size_t iy = (size_t)(w->y0 + w->dil_h * fy) * (size_t)in_w;
        for (int32_t fx = w->fx0; fx < w->fx1; fx++) {
            const size_t ix = (size_t)(w->x0 + w->dil_w * fx);
            const int16_t *restrict src = in + w->row0 + (iy + ix) * (size_t)in_d + c0;
            int16_t *restrict dst = buf + ((size_t)fy * (size_t)f_w + (size_t)fx) * (size_t)f_d;
            for (int32_t ic = 0; ic < f_d; ic++)
                dst[ic] = src[ic];
        }
    }
}

static void conv_s16_gathered(const pl_conv_params *p, const int32_t *in_dims,
                              const int16_t *in, const int32_t *f_dims, const int8_t *filter,
                              const int32_t *bias32, const int64_t *bias64, bool acc64,
                              const int32_t *out_dims, int16_t *out)
{
    int16_t buf[GATHER];
    const int32_t out_d = out_dims[3], f_d = f_dims[3];
    const int32_t f_size = f_dims[1] * f_dims[2] * f_d;
    const int32_t per_group = out_d / (in_dims[3] / f_d);
    size_t o = 0;
    for (int32_t b = 0; b < out_dims[0]; b++)
        for (int32_t oy = 0; oy < out_dims[1]; oy++)
            for (int32_t ox = 0; ox < out_dims[2]; ox++, o += (size_t)out_d) {
                window w;
                window_at(p, in_dims, f_dims, b, oy, ox, &w);
                for (int32_t g0 = 0; g0 < out_d; g0 += per_group) {
                    gather_s16(&w, in, (size_t)(g0 / per_group) * (size_t)f_d, buf);
                    for (int32_t oc = g0; oc < g0 + per_group;) {
                        int32_t count = g0 + per_group - oc >= 4 ? 4 : 1;
                        const int8_t *f = filter + (size_t)oc * (size_t)f_size;
                        int64_t acc[4] = {0, 0, 0, 0};
                        if (count == 4)
                            dot4_s16(buf, f, (size_t)f_size, f_size, acc);
                        else
                            acc[0] = pl_dot_s16(buf, f, f_size);
                        finish_s16(p, acc, oc, count, bias32, bias64, acc64, out + o);
                        oc += count;
                    }
                }
            }
}

void pl_conv_s16(const pl_conv_params *p, const int32_t *in_dims, const int16_t *in,
                 const int32_t *f_dims, const int8_t *filter, const int32_t *bias32,
                 const int64_t *bias64, bool acc64, const int32_t *out_dims, int16_t *out)
{
    if ((int64_t)f_dims[1] * f_dims[2] * f_dims[3] <= GATHER) {
        conv_s16_gathered(p, in_dims, in, f_dims, filter, bias32, bias64, acc64, out_dims,
                          out);
        return;
    }
#define POINT(w_, oc_, n_, c0_, o_)                                                       \
    point_s16(p, w_, in, filter, bias32, bias64, acc64, oc_, n_, c0_, out + (o_))
    FOR_EACH_POINT(p, in_dims, f_dims, out_dims, POINT);
#undef POINT
}

static pl_status read_options(pl_context *ctx, const pl_node *node, pl_conv_params *p,
                              int32_t *padding, int32_t *activation)
{
    const pl_table *o = &node->options;
    *padding = pl_table_i8(o, OPT_PADDING, 0);
    p->stride_w = pl_table_i32(o, OPT_STRIDE_W, 0);
    p->stride_h = pl_table_i32(o, OPT_STRIDE_H, 0);
    p->dilation_w = pl_table_i32(o, OPT_DILATION_W, 1);
    p->dilation_h = pl_table_i32(o, OPT_DILATION_H, 1);
    *activation = pl_table_i8(o, OPT_ACTIVATION, 0);
    PL_TRY(pl_convq_check_window(ctx, &op_names, *padding, p->stride_h, p->stride_w,
                                 p->dilation_h, p->dilation_w));
    return pl_convq_check_activation(ctx, &op_names, *activation);
}

/* Shapes: 4D NHWC input, OHWI filter whose depth divides the input depth; the output is
** [batch, oh, ow, filters] as TFLite's conv Prepare resizes it. */
static pl_status check_shapes(pl_context *ctx, const pl_tensor *in, const pl_tensor *f,
                              const pl_tensor *bias, pl_tensor *out, int32_t padding,
                              pl_conv_params *p)
{
    if (in->ndims != 4 || f->ndims != 4)
        return ctx->fail(ctx, PL_ERR_MODEL, "CONV_2D: input and filter must be 4D "
                         "(got %d, %d)", in->ndims, f->ndims);
    const pl_nhwc in_shape = pl_nhwc_of(in);
    const pl_nhwc f_shape = pl_nhwc_of(f);
    int32_t groups = f_shape.c > 0 ? in_shape.c / f_shape.c : 0;
    if (groups <= 0 || in_shape.c % f_shape.c != 0 || f_shape.n % groups != 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "CONV_2D: input depth %d and filter %dx..x%d "
                         "do not form groups", in_shape.c, f_shape.n, f_shape.c);
    int32_t oh = pl_pad_out_size(padding, in_shape.h, f_shape.h, p->stride_h,
                                 p->dilation_h);
    int32_t ow = pl_pad_out_size(padding, in_shape.w, f_shape.w, p->stride_w,
                                 p->dilation_w);
    PL_TRY(pl_convq_set_output(ctx, &op_names, in, f_shape.n, oh, ow, out));
    PL_TRY(pl_convq_bias_count(ctx, &op_names, bias, f_shape.n));
    p->pad_h = pl_pad_before(p->stride_h, p->dilation_h, in_shape.h, f_shape.h, oh, NULL);
    p->pad_w = pl_pad_before(p->stride_w, p->dilation_w, in_shape.w, f_shape.w, ow, NULL);
    return PL_OK;
}

static pl_status check_types(pl_context *ctx, const pl_tensor *in, const pl_tensor *f,
                             const pl_tensor *bias, const pl_tensor *out,
                             const pl_table *qbt_options, pl_type *bias_type)
{
    /* float input with an int8 filter is hybrid */
    bool ok = (in->type == PL_FLOAT32 || in->type == PL_INT8 || in->type == PL_INT16) &&
              (f->type == PL_INT8 || (f->type == PL_FLOAT32 && in->type == PL_FLOAT32) ||
               (f->type == PL_INT4 && in->type == PL_INT8)) &&
              out->type == in->type;
    /* Without a bias, LiteRT picks the 16x8 accumulator from quantized_bias_type */
    if (bias == NULL && in->type == PL_INT16)
        *bias_type = pl_table_i8(qbt_options, OPT_QUANTIZED_BIAS_TYPE, 0) == PL_INT32
                         ? PL_INT32 : PL_INT64;
    else
        *bias_type = bias != NULL ? bias->type : PL_INT32;
    ok = (ok && pl_convq_bias_type_ok(in->type, bias, true)) ||
         pl_u8conv_types_ok(in, f, bias, out);
    if (!ok)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "CONV_2D: input %s, filter %s, bias %s, "
                         "output %s is not supported", pl_type_name(in->type),
                         pl_type_name(f->type), bias ? pl_type_name(bias->type) : "none",
                         pl_type_name(out->type));
    return PL_OK;
}

/* LiteRT takes per-channel filter scales per channel only when they differ (else its
** per-tensor path, which reads a legacy scale such tensors lack), and its per-channel kernel
** drops the dilation: neither has a defined answer to match. Nor do groups, which its
** per-tensor matrix product does not support. */
static pl_status prepare_hybrid(pl_context *ctx, const pl_tensor *in, const pl_tensor *f,
                                op_data *d)
{
    const pl_nhwc in_shape = pl_nhwc_of(in);
    const pl_nhwc f_shape = pl_nhwc_of(f);
    PL_TRY(pl_hybrid_filter_scales(ctx, &op_names, f, f_shape.n, 0, &d->h.filter_scale));
    bool differ = false;
    for (uint32_t i = 1; i < f->q.count; i++)
        differ = differ || d->h.filter_scale[i] != d->h.filter_scale[0];
    if (f->q.count > 1 && !differ)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "CONV_2D: hybrid filter with %u equal "
                         "per-channel scales is not supported", f->q.count);
    if (f->q.count > 1 && (d->p.dilation_h != 1 || d->p.dilation_w != 1))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "CONV_2D: hybrid per-channel filter with "
                         "dilation %d,%d is not supported", d->p.dilation_h, d->p.dilation_w);
    if (f_shape.c != in_shape.c)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "CONV_2D: hybrid grouped convolution "
                         "(input depth %d, filter depth %d) is not supported", in_shape.c,
                         f_shape.c);
    d->hybrid = true;
    d->h.per_channel = f->q.count > 1;
    size_t batch = pl_tensor_count(in) / (size_t)in_shape.n;
    return ctx->request_scratch(ctx, batch, &d->scratch);
}

/* LiteRT's uint8 reference Conv has no groups. */
static pl_status prepare_u8(pl_context *ctx, const pl_tensor *in, const pl_tensor *f,
                            const pl_tensor *out, int32_t activation, pl_convq *q,
                            int32_t *filter_offset)
{
    const pl_nhwc in_shape = pl_nhwc_of(in);
    const pl_nhwc f_shape = pl_nhwc_of(f);
    if (f_shape.c != in_shape.c)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "CONV_2D: uint8 grouped convolution "
                         "(input depth %d, filter depth %d) is not supported", in_shape.c,
                         f_shape.c);
    return pl_u8conv_prepare(ctx, "CONV_2D", in, f, out, activation, q, filter_offset);
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    pl_convq_io io;
    PL_TRY(pl_convq_io_get(ctx, node, &op_names, &io));
    const pl_tensor *in = io.in, *f = io.f, *bias = io.bias, *out = io.out;
    int32_t padding = 0, activation = 0;
    PL_TRY(read_options(ctx, node, &d->p, &padding, &activation));
    PL_TRY(check_types(ctx, in, f, bias, out, &node->options, &d->bias_type));
    /* TFLM's CMSIS-NN CONV_2D (the kernel its resolver registers) takes the 32-bit
    ** accumulator for a 16x8 op without a bias, whatever quantized_bias_type says */
    if (in->type == PL_INT16 && bias == NULL && pl_arith_cmsis_nn(ctx->arith))
        d->bias_type = PL_INT32;
    PL_TRY(check_shapes(ctx, in, f, bias, io.out, padding, &d->p));
    const pl_nhwc f_shape = pl_nhwc_of(f);
    d->type = in->type;
    pl_fx_activation_range_f32(activation, &d->p.f_act_min, &d->p.f_act_max);
    if (in->type == PL_FLOAT32 && f->type == PL_INT8)
        return prepare_hybrid(ctx, in, f, d);
    d->fused = ctx->fused_madd;
    if (in->type == PL_FLOAT32)
        return PL_OK;
    pl_convq q;
    if (in->type == PL_UINT8)
        PL_TRY(prepare_u8(ctx, in, f, out, activation, &q, &d->filter_offset));
    else
        PL_TRY(pl_convq_per_channel(ctx, &op_names, in, f, out, activation, f_shape.n, 0,
                                    &q));
    PL_CONVQ_STORE(&d->p, q);
    if (f->type == PL_INT4)
        PL_TRY(pl_int4_filter_prepare(ctx, op_names.op, f, &d->scratch));
    if (in->type == PL_INT8 && ctx->arith == PL_ARITH_CMSIS_NN_MVE)
        return pl_conv_1xn_mve_plan(ctx, &d->p, in->dims, f->dims, io.out->dims,
                                    &d->helium_1xn);
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_convq_views v;
    PL_TRY(pl_convq_views_get(ctx, node, &v));
    const int32_t *in_dims = v.in.dims, *f_dims = v.f.dims, *out_dims = v.out.dims;
    if (d->hybrid) {
        int8_t *scratch = ctx->get_scratch(ctx, d->scratch);
        if (scratch == NULL)
            return ctx->fail(ctx, PL_ERR_STATE, "CONV_2D: scratch buffer %d missing",
                             d->scratch);
        pl_conv_hybrid(&d->p, &d->h, in_dims, v.in.data, f_dims, v.f.data, v.bias.data,
                       out_dims, v.out.data, scratch);
    } else if (d->type == PL_FLOAT32) {
        pl_conv_f32(&d->p, in_dims, v.in.data, f_dims, v.f.data, v.bias.data, out_dims,
                    d->fused, v.out.data);
    } else if (d->type == PL_UINT8) {
        pl_u8conv_conv(&d->p, d->filter_offset, in_dims, v.in.data, f_dims, v.f.data,
                       v.bias.data, out_dims, v.out.data);
    } else if (d->type == PL_INT8) {
        const int8_t *filter = v.f.type == PL_INT4
            ? pl_int4_filter_unpack(ctx, op_names.op, &v.f, d->scratch) : v.f.data;
        if (filter == NULL)
            return PL_ERR_STATE;
        if (d->helium_1xn)
            pl_conv_1xn_mve_s8(&d->p, in_dims, v.in.data, f_dims, filter, v.bias.data,
                               out_dims, v.out.data);
        else
            pl_conv_s8(&d->p, in_dims, v.in.data, f_dims, filter, v.bias.data, out_dims,
                       v.out.data);
    } else {
        bool wide = d->bias_type == PL_INT64;
        pl_conv_s16(&d->p, in_dims, v.in.data, f_dims, v.f.data, wide ? NULL : v.bias.data,
                    wide ? v.bias.data : NULL, wide, out_dims, v.out.data);
    }
    return PL_OK;
}

const pl_registration *pl_conv_registration(void)
{
    static const pl_registration reg = {.name = "CONV_2D", .builtin_code = 3,
                                        .prepare = prepare, .invoke = invoke,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
