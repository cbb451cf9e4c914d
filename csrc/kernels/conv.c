/* conv.c - CONV_2D as TFLite's reference kernels compute it (direct loops, no im2col). */
#include "conv.h"

#include "fixedpoint.h"
#include "padding.h"

/* Conv2DOptions field ids (schema.fbs). */
enum { OPT_PADDING = 0, OPT_STRIDE_W, OPT_STRIDE_H, OPT_ACTIVATION, OPT_DILATION_W,
       OPT_DILATION_H, OPT_QUANTIZED_BIAS_TYPE };

typedef struct op_data {
    pl_conv_params p;
    pl_type type;
    pl_type bias_type;
} op_data;

/* The in-bounds taps of one axis: [*lo, *hi) for a window starting at origin. TFLite skips
** out-of-image taps, so clipping the loop bounds keeps its order and its results. */
static inline void clip_taps(int32_t origin, int32_t dilation, int32_t size, int32_t taps,
                             int32_t *lo, int32_t *hi)
{
    int32_t room = size - origin;
    int32_t end = room <= 0 ? 0 : (room - 1) / dilation + 1;
    *lo = origin < 0 ? (-origin + dilation - 1) / dilation : 0;
    *hi = end < taps ? end : taps;
}

/* One output point's geometry. A "run" is a stretch of taps contiguous in both the input
** and the filter: a whole clipped filter row when dilation_w is 1 and there is one group
** (input channels and filter depth coincide), else one tap's filter depth. */
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
    clip_taps(w->y0, p->dilation_h, in_dims[1], f_dims[1], &w->fy0, &w->fy1);
    clip_taps(w->x0, p->dilation_w, in_dims[2], f_dims[2], &w->fx0, &w->fx1);
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
        for (int32_t fy_ = (w)->fy0; fy_ < (w)->fy1; fy_++) {                             \
            const size_t iy_ = (size_t)((w)->y0 + (w)->dil_h * fy_) * (size_t)in_w_;      \
            if ((w)->rows) {                                                              \
                const size_t ix_ = (size_t)((w)->x0 + (w)->fx0);                          \
                RUN((w)->row0 + (iy_ + ix_) * (size_t)in_d_,                              \
                    ((size_t)fy_ * (size_t)f_w_ + (size_t)(w)->fx0) * (size_t)f_d_,       \
                    ((w)->fx1 - (w)->fx0) * f_d_);                                        \
                continue;                                                                 \
            }                                                                             \
            for (int32_t fx_ = (w)->fx0; fx_ < (w)->fx1; fx_++) {                         \
                const size_t ix_ = (size_t)((w)->x0 + (w)->dil_w * fx_);                  \
                RUN((w)->row0 + (iy_ + ix_) * (size_t)in_d_,                              \
                    ((size_t)fy_ * (size_t)f_w_ + (size_t)fx_) * (size_t)f_d_, f_d_);     \
            }                                                                             \
        }                                                                                 \
    } while (0)

/* Sequential float sums of four filters against one input run: each output keeps TFLite's
** accumulation order, the four independent chains just overlap. */
static inline void dot4_f32(const float *restrict x, const float *restrict w, size_t stride,
                            int32_t n, float *restrict t)
{
    const float *w0 = w, *w1 = w + stride, *w2 = w + 2 * stride, *w3 = w + 3 * stride;
    float t0 = t[0], t1 = t[1], t2 = t[2], t3 = t[3];
    for (int32_t i = 0; i < n; i++) {
        t0 += x[i] * w0[i];
        t1 += x[i] * w1[i];
        t2 += x[i] * w2[i];
        t3 += x[i] * w3[i];
    }
    t[0] = t0;
    t[1] = t1;
    t[2] = t2;
    t[3] = t3;
}

static inline float dot_f32(const float *restrict x, const float *restrict w, int32_t n,
                            float t)
{
    for (int32_t i = 0; i < n; i++)
        t += x[i] * w[i];
    return t;
}

/* Output channels [oc, oc + count) of one point, count 1 or 4, all in one group. */
static inline void point_f32(const pl_conv_params *p, const window *w, const float *in,
                             const float *filter, const float *bias, int32_t oc,
                             int32_t count, size_t c0, float *out)
{
    const size_t f_size = (size_t)w->f_dims[1] * (size_t)w->f_dims[2] * (size_t)w->f_dims[3];
    const float *f = filter + (size_t)oc * f_size;
    const float *x = in + c0;
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (count == 4) {
#define RUN4(i_, f_, n_) dot4_f32(x + (i_), f + (f_), f_size, (n_), t)
        FOR_EACH_RUN(w, RUN4);
#undef RUN4
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

/* Calls POINT(window, oc, count, c0) for every output point and channel block: blocks of four
** channels that share a group (and so an input run), then the leftovers one by one. */
#define FOR_EACH_POINT(p, in_dims, f_dims, out_dims, out, POINT)                          \
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
                            POINT(&w_, oc_, 4, c0_, (out) + o_);                          \
                        for (; oc_ < g0_ + per_group_; oc_++)                             \
                            POINT(&w_, oc_, 1, c0_, (out) + o_);                          \
                    }                                                                     \
                }                                                                         \
    } while (0)

void pl_conv_f32(const pl_conv_params *p, const int32_t *in_dims, const float *in,
                 const int32_t *f_dims, const float *filter, const float *bias,
                 const int32_t *out_dims, float *out)
{
#define POINT(w_, oc_, n_, c0_, o_) point_f32(p, w_, in, filter, bias, oc_, n_, c0_, o_)
    FOR_EACH_POINT(p, in_dims, f_dims, out_dims, out, POINT);
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

static inline void point_s8(const pl_conv_params *p, const window *w, const int8_t *in,
                            const int8_t *filter, const int32_t *bias, int32_t oc,
                            int32_t count, size_t c0, int8_t *out)
{
    const size_t f_size = (size_t)w->f_dims[1] * (size_t)w->f_dims[2] * (size_t)w->f_dims[3];
    const int8_t *f = filter + (size_t)oc * f_size;
    const int8_t *x = in + c0;
    const int16_t off = (int16_t)p->input_offset;
    int32_t acc[4] = {0, 0, 0, 0};
    if (count == 4) {
#define RUN4(i_, f_, n_) dot4_s8(x + (i_), f + (f_), f_size, (n_), off, acc)
        FOR_EACH_RUN(w, RUN4);
#undef RUN4
    } else {
#define RUN1(i_, f_, n_) acc[0] += dot_s8(x + (i_), f + (f_), (n_), off)
        FOR_EACH_RUN(w, RUN1);
#undef RUN1
    }
    for (int32_t k = 0; k < count; k++) {
        int32_t a = acc[k];
        if (bias != NULL)
            a = (int32_t)((uint32_t)a + (uint32_t)bias[oc + k]);
        a = pl_fx_mul_by_qm(a, p->multiplier[oc + k], p->shift[oc + k]) + p->output_offset;
        out[oc + k] = (int8_t)pl_fx_clamp(a, p->act_min, p->act_max);
    }
}

/* Windows of up to GATHER taps x channels (2 KB of stack) are gathered once per output point
** and group as int16 (input + offset, 0 for taps outside the image, which TFLite skips), laid
** out as the filter is: every output channel is then one dot product over its whole filter,
** in int16 x int16 form (the compiler's multiply-add of pairs). Larger windows take runs. */
enum { GATHER = 1024 };

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

static inline void gathered_s8(const pl_conv_params *p, const int16_t *buf, int32_t f_size,
                               const int8_t *filter, const int32_t *bias, int32_t oc,
                               int32_t count, int8_t *out)
{
    const int8_t *f = filter + (size_t)oc * (size_t)f_size;
    int32_t acc[4];
    if (count == 4) {
        dot4_x16(buf, f, (size_t)f_size, f_size, acc);
    } else {
        acc[0] = dot_x16(buf, f, f_size);
    }
    for (int32_t k = 0; k < count; k++) {
        int32_t a = acc[k];
        if (bias != NULL)
            a = (int32_t)((uint32_t)a + (uint32_t)bias[oc + k]);
        a = pl_fx_mul_by_qm(a, p->multiplier[oc + k], p->shift[oc + k]) + p->output_offset;
        out[oc + k] = (int8_t)pl_fx_clamp(a, p->act_min, p->act_max);
    }
}

static void conv_s8_gathered(const pl_conv_params *p, const int32_t *in_dims, const int8_t *in,
                             const int32_t *f_dims, const int8_t *filter, const int32_t *bias,
                             const int32_t *out_dims, int8_t *out)
{
    int16_t buf[GATHER];
    const int32_t out_d = out_dims[3], f_d = f_dims[3];
    const int32_t f_size = f_dims[1] * f_dims[2] * f_d;
    const int32_t per_group = out_d / (in_dims[3] / f_d);
    const int16_t off = (int16_t)p->input_offset;
    size_t o = 0;
    for (int32_t b = 0; b < out_dims[0]; b++)
        for (int32_t oy = 0; oy < out_dims[1]; oy++)
            for (int32_t ox = 0; ox < out_dims[2]; ox++, o += (size_t)out_d) {
                window w;
                window_at(p, in_dims, f_dims, b, oy, ox, &w);
                for (int32_t g0 = 0; g0 < out_d; g0 += per_group) {
                    gather_s8(&w, in, (size_t)(g0 / per_group) * (size_t)f_d, off, buf);
                    int32_t oc = g0;
                    for (; oc + 4 <= g0 + per_group; oc += 4)
                        gathered_s8(p, buf, f_size, filter, bias, oc, 4, out + o);
                    for (; oc < g0 + per_group; oc++)
                        gathered_s8(p, buf, f_size, filter, bias, oc, 1, out + o);
                }
            }
}

void pl_conv_s8(const pl_conv_params *p, const int32_t *in_dims, const int8_t *in,
                const int32_t *f_dims, const int8_t *filter, const int32_t *bias,
                const int32_t *out_dims, int8_t *out)
{
    if ((int64_t)f_dims[1] * f_dims[2] * f_dims[3] <= GATHER) {
        conv_s8_gathered(p, in_dims, in, f_dims, filter, bias, out_dims, out);
        return;
    }
#define POINT(w_, oc_, n_, c0_, o_) point_s8(p, w_, in, filter, bias, oc_, n_, c0_, o_)
    FOR_EACH_POINT(p, in_dims, f_dims, out_dims, out, POINT);
#undef POINT
}

/* 16x8 products reach 2^22, so 256 of them fit an int32; longer runs add int32 partial
** sums into the int64 total (exact, as TFLite's int64 accumulator is). */
enum { S16_CHUNK = 256 };

static inline int64_t dot_s16(const int16_t *restrict x, const int8_t *restrict w, int32_t n)
{
    int64_t total = 0;
    for (int32_t start = 0; start < n; start += S16_CHUNK) {
        int32_t end = n - start < S16_CHUNK ? n : start + S16_CHUNK;
        int32_t s = 0;
        for (int32_t i = start; i < end; i++)
            s += x[i] * (int16_t)w[i];
        total += s;
    }
    return total;
}

/* Four filters against one int16 input run, exact as dot_s16. */
static inline void dot4_s16(const int16_t *restrict x, const int8_t *restrict w,
                            size_t stride, int32_t n, int64_t *restrict acc)
{
    const int8_t *w0 = w, *w1 = w + stride, *w2 = w + 2 * stride, *w3 = w + 3 * stride;
    for (int32_t start = 0; start < n; start += S16_CHUNK) {
        int32_t end = n - start < S16_CHUNK ? n : start + S16_CHUNK;
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
            int64_t a = acc[k] + (bias64 != NULL ? pl_load_i64(bias64, (size_t)c) : 0);
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
#define RUN1(i_, f_, n_) acc[0] += dot_s16(x + (i_), f + (f_), (n_))
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
                            acc[0] = dot_s16(buf, f, f_size);
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
    point_s16(p, w_, in, filter, bias32, bias64, acc64, oc_, n_, c0_, o_)
    FOR_EACH_POINT(p, in_dims, f_dims, out_dims, out, POINT);
#undef POINT
}

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    (void)node;
    return ctx->alloc_persistent(ctx, sizeof(op_data), user_data);
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
    if (p->stride_w <= 0 || p->stride_h <= 0 || p->dilation_w <= 0 || p->dilation_h <= 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "CONV_2D: strides %d,%d and dilations %d,%d "
                         "must be positive", p->stride_h, p->stride_w, p->dilation_h,
                         p->dilation_w);
    if (*padding != PL_PADDING_SAME && *padding != PL_PADDING_VALID)
        return ctx->fail(ctx, PL_ERR_MODEL, "CONV_2D: unknown padding %d", *padding);
    if (*activation > PL_ACT_RELU6 || *activation < 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "CONV_2D: fused activation %d is not "
                         "supported", *activation);
    return PL_OK;
}

/* Shapes: 4D NHWC input/output, OHWI filter whose depth divides the input depth. */
static pl_status check_shapes(pl_context *ctx, const pl_tensor *in, const pl_tensor *f,
                              const pl_tensor *bias, const pl_tensor *out, int32_t padding,
                              pl_conv_params *p)
{
    if (in->ndims != 4 || f->ndims != 4 || out->ndims != 4)
        return ctx->fail(ctx, PL_ERR_MODEL, "CONV_2D: input, filter and output must be 4D "
                         "(got %d, %d, %d)", in->ndims, f->ndims, out->ndims);
    int32_t groups = f->dims[3] > 0 ? in->dims[3] / f->dims[3] : 0;
    if (groups <= 0 || in->dims[3] % f->dims[3] != 0 || f->dims[0] % groups != 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "CONV_2D: input depth %d and filter %dx..x%d "
                         "do not form groups", in->dims[3], f->dims[0], f->dims[3]);
    int32_t oh = pl_pad_out_size(padding, in->dims[1], f->dims[1], p->stride_h,
                                 p->dilation_h);
    int32_t ow = pl_pad_out_size(padding, in->dims[2], f->dims[2], p->stride_w,
                                 p->dilation_w);
    if (out->dims[0] != in->dims[0] || out->dims[1] != oh || out->dims[2] != ow ||
        out->dims[3] != f->dims[0])
        return ctx->fail(ctx, PL_ERR_MODEL, "CONV_2D: output shape [%d,%d,%d,%d] should be "
                         "[%d,%d,%d,%d]", out->dims[0], out->dims[1], out->dims[2],
                         out->dims[3], in->dims[0], oh, ow, f->dims[0]);
    if (bias != NULL && pl_tensor_count(bias) != (size_t)f->dims[0])
        return ctx->fail(ctx, PL_ERR_MODEL, "CONV_2D: bias has %zu elements for %d channels",
                         pl_tensor_count(bias), f->dims[0]);
    p->pad_h = pl_pad_before(p->stride_h, p->dilation_h, in->dims[1], f->dims[1], oh, NULL);
    p->pad_w = pl_pad_before(p->stride_w, p->dilation_w, in->dims[2], f->dims[2], ow, NULL);
    return PL_OK;
}

static pl_status check_types(pl_context *ctx, const pl_tensor *in, const pl_tensor *f,
                             const pl_tensor *bias, const pl_tensor *out,
                             const pl_table *qbt_options, pl_type *bias_type)
{
    pl_type want_f = in->type == PL_FLOAT32 ? PL_FLOAT32 : PL_INT8;
    bool ok = (in->type == PL_FLOAT32 || in->type == PL_INT8 || in->type == PL_INT16) &&
              f->type == want_f && out->type == in->type;
    /* Without a bias, LiteRT picks the 16x8 accumulator from quantized_bias_type */
    if (bias == NULL && in->type == PL_INT16)
        *bias_type = pl_table_i8(qbt_options, OPT_QUANTIZED_BIAS_TYPE, 0) == PL_INT32
                         ? PL_INT32 : PL_INT64;
    else
        *bias_type = bias != NULL ? bias->type : PL_INT32;
    if (bias != NULL) {
        ok = ok && (in->type == PL_FLOAT32 ? bias->type == PL_FLOAT32
                    : in->type == PL_INT8  ? bias->type == PL_INT32
                    : (bias->type == PL_INT32 || bias->type == PL_INT64));
    }
    if (!ok)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "CONV_2D: input %s, filter %s, bias %s, "
                         "output %s is not supported", pl_type_name(in->type),
                         pl_type_name(f->type), bias ? pl_type_name(bias->type) : "none",
                         pl_type_name(out->type));
    return PL_OK;
}

/* Per-channel multipliers and the activation range of a quantized conv. */
static pl_status prepare_quant(pl_context *ctx, const pl_tensor *in, const pl_tensor *f,
                               const pl_tensor *out, int32_t activation, pl_conv_params *p)
{
    int32_t channels = f->dims[0];
    if (in->q.count != 1 || out->q.count != 1 || f->q.count == 0 ||
        (f->q.count != 1 && (f->q.count != (uint32_t)channels ||
                             f->q.quantized_dimension != 0)))
        return ctx->fail(ctx, PL_ERR_MODEL, "CONV_2D: quantization must be per-tensor for "
                         "input/output and per-tensor or per-output-channel (dimension 0) "
                         "for the filter (got %u, %u, %u scales)", in->q.count,
                         out->q.count, f->q.count);
    for (uint32_t i = 0; i < f->q.count; i++) {
        if (f->q.zero_point[i] != 0)
            return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "CONV_2D: filter zero point %lld "
                             "(channel %u) is not 0", (long long)f->q.zero_point[i], i);
    }
    if (in->type == PL_INT16 && (in->q.zero_point[0] != 0 || out->q.zero_point[0] != 0))
        return ctx->fail(ctx, PL_ERR_MODEL, "CONV_2D: int16 zero points must be 0");
    int32_t *m = NULL, *s = NULL;
    size_t bytes = sizeof(int32_t) * (size_t)channels;
    PL_TRY(ctx->alloc_persistent(ctx, bytes, (void **)&m));
    PL_TRY(ctx->alloc_persistent(ctx, bytes, (void **)&s));
    pl_fx_channel_multipliers(in->q.scale[0], f->q.scale, f->q.count, out->q.scale[0],
                              channels, m, s);
    p->multiplier = m;
    p->shift = s;
    p->input_offset = -(int32_t)in->q.zero_point[0];
    p->output_offset = (int32_t)out->q.zero_point[0];
    int32_t qmin = in->type == PL_INT8 ? INT8_MIN : INT16_MIN;
    int32_t qmax = in->type == PL_INT8 ? INT8_MAX : INT16_MAX;
    if (pl_fx_activation_range_q(activation, out->q.scale[0], p->output_offset, qmin, qmax,
                                 &p->act_min, &p->act_max) != PL_OK)
        return ctx->fail(ctx, PL_ERR_MODEL, "CONV_2D: output scale %g gives no activation "
                         "range", (double)out->q.scale[0]);
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    if (node->inputs.n < 2 || node->inputs.n > 3 || node->outputs.n != 1 ||
        pl_node_input(node, 0) < 0 || pl_node_input(node, 1) < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "CONV_2D: needs input, filter, optional bias "
                         "and one output (got %u inputs, %u outputs)", node->inputs.n,
                         node->outputs.n);
    pl_tensor *in, *f, *out, *bias = NULL;
    /* the bias is read for its type and size only: its eval view spares the temp copy of
    ** its (per-channel) quantization */
    pl_tensor bias_view;
    PL_TRY(ctx->get_tensor(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_tensor(ctx, pl_node_input(node, 1), &f));
    if (pl_node_input(node, 2) >= 0) {
        PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 2), &bias_view));
        bias = &bias_view;
    }
    PL_TRY(ctx->get_tensor(ctx, pl_node_output(node, 0), &out));
    int32_t padding = 0, activation = 0;
    PL_TRY(read_options(ctx, node, &d->p, &padding, &activation));
    PL_TRY(check_types(ctx, in, f, bias, out, &node->options, &d->bias_type));
    PL_TRY(check_shapes(ctx, in, f, bias, out, padding, &d->p));
    d->type = in->type;
    pl_fx_activation_range_f32(activation, &d->p.f_act_min, &d->p.f_act_max);
    if (in->type != PL_FLOAT32)
        PL_TRY(prepare_quant(ctx, in, f, out, activation, &d->p));
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in, f, bias, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 1), &f));
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 2), &bias));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    if (d->type == PL_FLOAT32) {
        pl_conv_f32(&d->p, in.dims, in.data, f.dims, f.data, bias.data, out.dims, out.data);
    } else if (d->type == PL_INT8) {
        pl_conv_s8(&d->p, in.dims, in.data, f.dims, f.data, bias.data, out.dims, out.data);
    } else {
        bool wide = d->bias_type == PL_INT64;
        pl_conv_s16(&d->p, in.dims, in.data, f.dims, f.data, wide ? NULL : bias.data,
                    wide ? bias.data : NULL, wide, out.dims, out.data);
    }
    return PL_OK;
}

const pl_registration *pl_conv_registration(void)
{
    static const pl_registration reg = {"CONV_2D", 3, init, NULL, prepare, invoke, NULL};
    return &reg;
}
