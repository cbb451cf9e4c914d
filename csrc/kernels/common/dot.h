/* dot.h - inner products the matrix-shaped kernels (CONV_2D, FULLY_CONNECTED) share. */
#ifndef PL_KERNELS_DOT_H
#define PL_KERNELS_DOT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* t[k] += sum(x[i] * w_k[i]) for the four rows w_k = w + k * stride, one float chain per
** output in TFLite's sequential order: the four independent chains just overlap. */
static inline void pl_dot4_f32(const float *restrict x, const float *restrict w, size_t stride,
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

/* pl_dot4_f32 with each product fused into its sum (one rounding), as the firmware of a
** fused target computes TFLite's `total += x * w` (ctx->fused_madd). */
static inline void pl_dot4_fma_f32(const float *restrict x, const float *restrict w,
                                   size_t stride, int32_t n, float *restrict t)
{
    const float *w0 = w, *w1 = w + stride, *w2 = w + 2 * stride, *w3 = w + 3 * stride;
    float t0 = t[0], t1 = t[1], t2 = t[2], t3 = t[3];
    for (int32_t i = 0; i < n; i++) {
        t0 = fmaf(x[i], w0[i], t0);
        t1 = fmaf(x[i], w1[i], t1);
        t2 = fmaf(x[i], w2[i], t2);
        t3 = fmaf(x[i], w3[i], t3);
    }
    t[0] = t0;
    t[1] = t1;
    t[2] = t2;
    t[3] = t3;
}

/* 16x8 products reach 2^22, so 256 of them fit an int32: longer runs add int32 partial sums
** into the int64 total, exactly (as TFLite's int64 accumulator). */
enum { PL_DOT_S16_CHUNK = 256 };

static inline int64_t pl_dot_s16(const int16_t *restrict x, const int8_t *restrict w, int32_t n)
{
    int64_t total = 0;
    for (int32_t start = 0; start < n; start += PL_DOT_S16_CHUNK) {
        int32_t end = n - start < PL_DOT_S16_CHUNK ? n : start + PL_DOT_S16_CHUNK;
        int32_t s = 0;
        for (int32_t i = start; i < end; i++)
            s += x[i] * (int16_t)w[i]; /* int16 x int16: the compiler's pairwise multiply-add */
        total += s;
    }
    return total;
}

#endif
