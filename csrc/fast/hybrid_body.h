/* hybrid_body.h - hybrid.h's kernels written once in the compilers' vector extension (GCC
** and Clang, the only compilers the fast paths build with), W lanes wide. A file built for
** one instruction set defines W (4, 8 or 16), includes this, defines store_q, less_f and
** more_f (below) and names
** its table from the statics here: quantize, output and output_f32. Every lane does the
** scalar code's operations in its order; the lanes a scalar rule treats apart (NaN, out of
** range) go through the same selects, whose IEEE comparisons are false on a NaN as the
** scalar ones. */
#ifndef PL_FAST_HYBRID_BODY_H
#define PL_FAST_HYBRID_BODY_H

#include <string.h>

#include "fast/hybrid.h"
#include "kernels/conv/hybrid_fast.h"

typedef float vf __attribute__((vector_size(4 * W)));
typedef int32_t vi __attribute__((vector_size(4 * W)));
typedef uint32_t vu __attribute__((vector_size(4 * W)));
typedef uint8_t vb __attribute__((vector_size(W)));

static inline vf load_f(const float *p)
{
    vf v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline vi load_i(const int32_t *p)
{
    vi v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* A lane of x everywhere: an integer vector plus a scalar (the compilers' broadcast, which
** a loop over the lanes may not become), a float one from its bits. */
static inline vi splat_i(int32_t x)
{
    return (vi){0} + x;
}

static inline vf splat_f(float x)
{
    int32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (vf)splat_i(bits);
}

/* The including file's: W bytes q[k] ^ flip to out (q in [-128, 127]), with its
** instruction set's narrowing (the vector extension's takes the lanes one by one). */
static inline void store_q(uint8_t *out, vi q, uint8_t flip);

/* The including file's: a < b ? a : b and a > b ? a : b lane by lane, b where either is a
** NaN (x86's MINPS and MAXPS; Arm's FMIN and FMAX differ on NaN, so select_f there). */
static inline vf less_f(vf a, vf b);
static inline vf more_f(vf a, vf b);

/* m ? a : b, lane by lane (m all ones or all zeros). */
static inline vf select_f(vi m, vf a, vf b)
{
    return (vf)(((vi)a & m) | ((vi)b & ~m));
}

/* One running least and greatest: the scalar walk's strict comparisons per lane. */
static inline void range_step(vf v, vf *lo, vf *hi)
{
    *lo = less_f(v, *lo);
    *hi = more_f(v, *hi);
}

/* pl_hybrid_*_params' lo and hi: the scalar walk's strict comparisons in four running
** vectors (one would wait on each comparison), every lane starting from x[0], then across
** the lanes and the tail in the same way. Lanes may meet +0 and -0 in another order than
** the walk: the parameters do not depend on the sign of a zero. */
static void range(const float *x, int32_t n, float *lo, float *hi)
{
    vf lo4[4], hi4[4];
    for (int j = 0; j < 4; j++)
        lo4[j] = hi4[j] = splat_f(x[0]);
    int32_t i = 0;
    for (; i + 4 * W <= n; i += 4 * W)
        for (int j = 0; j < 4; j++)
            range_step(load_f(x + i + j * W), &lo4[j], &hi4[j]);
    for (; i + W <= n; i += W)
        range_step(load_f(x + i), &lo4[0], &hi4[0]);
    for (int j = 1; j < 4; j++)
        range_step(lo4[j], &lo4[0], &hi4[0]), range_step(hi4[j], &lo4[0], &hi4[0]);
    float l = x[0], h = x[0];
    for (int k = 0; k < W; k++) {
        l = lo4[0][k] < l ? lo4[0][k] : l;
        h = hi4[0][k] > h ? hi4[0][k] : h;
    }
    for (; i < n; i++) {
        l = x[i] < l ? x[i] : l;
        h = x[i] > h ? x[i] : h;
    }
    *lo = l;
    *hi = h;
}

/* round_half_away(x * inv) clamped to [lo, hi] (integers, |lo|, |hi| < 2^23), a NaN to lo:
** clamped first, which gives the same (the rounding is monotonic and keeps integers), so the
** truncating conversion is in range; x - trunc(x) is exact. */
static inline vi quantize_lanes(vf x, float inv, float lo, float hi)
{
    vf v = x * inv;
    v = more_f(v, splat_f(lo));
    v = less_f(v, splat_f(hi));
    vi t = __builtin_convertvector(v, vi);
    vf rest = v - __builtin_convertvector(t, vf);
    return t - (rest >= 0.5f) + (rest <= -0.5f); /* a true comparison is -1 */
}

/* W values quantized: q in [-128, 127]. Asymmetric, the scalar code clamps round(x inv) +
** zp to [-128, 127]: the same as rounding x inv clamped to [-128 - zp, 127 - zp] (integers;
** the rounding is monotonic and keeps them), then adding zp (|zp| <= 128). */
static inline vi quantize_vector(vf x, bool asymmetric, float inv, int32_t zp)
{
    if (!asymmetric)
        return quantize_lanes(x, inv, -127.0f, 127.0f);
    return quantize_lanes(x, inv, (float)(-128 - zp), (float)(127 - zp)) + zp;
}

static void quantize(const float *x, int32_t n, bool asymmetric, uint8_t flip, uint8_t *out,
                     float *scale, int32_t *zp_out)
{
    float lo, hi, inv;
    int32_t zp = 0;
    range(x, n, &lo, &hi);
    bool any = asymmetric ? pl_hybrid_asymmetric_params(lo, hi, scale, &zp, &inv)
                          : pl_hybrid_symmetric_params(lo, hi, scale, &inv);
    *zp_out = zp;
    if (!any) {
        memset(out, flip, (size_t)n);
        return;
    }
    int32_t i = 0;
    for (; i + W <= n; i += W)
        store_q(out + i, quantize_vector(load_f(x + i), asymmetric, inv, zp), flip);
    if (i < n) { /* the tail in a whole vector, its padding lanes dropped */
        float tail[W] = {0};
        uint8_t bytes[W];
        memcpy(tail, x + i, sizeof(float) * (size_t)(n - i));
        store_q(bytes, quantize_vector(load_f(tail), asymmetric, inv, zp), flip);
        memcpy(out + i, bytes, (size_t)(n - i));
    }
}

/* The stage's operands as locals (a store to out could otherwise alias them). */
typedef struct stage {
    vi fold; /* 128 + zp in every lane */
    vf row_scale, act_min, act_max;
    bool after;
} stage;

/* Channels c..c+W of the stage (their arrays readable that far): the sums are int32 from the
** product, or (from_float) already the float values of exact integer sums. */
static inline vf output_vector(const stage *g, const void *sums, bool from_float,
                               const int32_t *weight_sum, const float *scale, const float *bias,
                               int32_t c)
{
    vf f;
    if (from_float) {
        f = load_f((const float *)sums + c);
    } else {
        vu fold = (vu)load_i(weight_sum + c) * (vu)g->fold;
        f = __builtin_convertvector((vi)((vu)load_i((const int32_t *)sums + c) - fold), vf);
    }
    vf s = load_f(scale + c);
    vf y = g->after ? f * s * g->row_scale : f * (s * g->row_scale);
    if (bias != NULL)
        y = y + load_f(bias + c);
    y = more_f(g->act_min, y); /* y < act_min ? act_min : y */
    return less_f(g->act_max, y);
}

/* output and output_f32 (from_float a constant in each: inlined apart). */
static inline void output_row(const pl_hybrid_out *o, const void *sums, bool from_float,
                              int32_t n, float *out)
{
    const stage g = {splat_i(128 + o->zp), splat_f(o->row_scale), splat_f(o->act_min),
                     splat_f(o->act_max), o->after};
    const int32_t *weight_sum = o->weight_sum;
    const float *scale = o->scale, *bias = o->bias;
    int32_t c = 0;
    for (; c + W <= n; c += W) {
        vf y = output_vector(&g, sums, from_float, weight_sum, scale, bias, c);
        memcpy(out + c, &y, sizeof y);
    }
    if (c < n) { /* the last channels through copies padded to a whole vector */
        uint32_t tail_sums[W] = {0};
        int32_t tail_weights[W] = {0};
        float tail_scale[W] = {0}, tail_bias[W] = {0};
        size_t m = (size_t)(n - c);
        memcpy(tail_sums, (const uint32_t *)sums + c, sizeof(uint32_t) * m);
        if (!from_float)
            memcpy(tail_weights, weight_sum + c, sizeof(int32_t) * m);
        memcpy(tail_scale, scale + c, sizeof(float) * m);
        if (bias != NULL)
            memcpy(tail_bias, bias + c, sizeof(float) * m);
        vf y = output_vector(&g, tail_sums, from_float, tail_weights, tail_scale,
                             bias != NULL ? tail_bias : NULL, 0);
        memcpy(out + c, &y, sizeof(float) * m);
    }
}

static void output(const pl_hybrid_out *o, const int32_t *sums, int32_t n, float *out)
{
    output_row(o, sums, false, n, out);
}

static void output_f32(const pl_hybrid_out *o, const float *sums, int32_t n, float *out)
{
    output_row(o, sums, true, n, out);
}

#endif
