/* pool_tail.h - what the vector pooling windows (x86/pool_*.c, arm/pool_neon.c) share: a
** window's pixel, the reference's clamps and rounded average, and the channels past the last
** whole vector, one at a time with the reference's scalar arithmetic. */
#ifndef PL_FAST_POOL_TAIL_H
#define PL_FAST_POOL_TAIL_H

#include <float.h>
#include <stdint.h>

#include "fast/pool.h"

/* The pixel of tap (r, c) of window w over x. */
#define PL_POOL_TAP(x, w, r, c) \
    ((x) + (size_t)(r) * (w)->row_stride + (size_t)(c) * (size_t)(w)->depth)

static inline int32_t pl_pool_clamp(int32_t v, int32_t lo, int32_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The reference's clamp: x < lo ? lo : x, then y > hi ? hi : y. */
static inline float pl_pool_clampf(float v, float lo, float hi)
{
    float y = v < lo ? lo : v;
    return y > hi ? hi : y;
}

/* TFLite's average, rounded half away from zero (count > 0). */
static inline int32_t pl_pool_rounded_average(int32_t acc, int32_t count)
{
    return acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
}

/* Channels c.. of window w: the reference's maximum (from the type's lowest value). */
static inline void pl_pool_max_tail_s8(const pl_pool_window *w, const int8_t *x, int32_t c,
                                       int32_t lo, int32_t hi, int8_t *out)
{
    for (; c < w->depth; c++) {
        int32_t m = INT8_MIN;
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                m = m < PL_POOL_TAP(x, w, r, k)[c] ? PL_POOL_TAP(x, w, r, k)[c] : m;
        out[c] = (int8_t)pl_pool_clamp(m, lo, hi);
    }
}

static inline void pl_pool_max_tail_s16(const pl_pool_window *w, const int16_t *x, int32_t c,
                                        int32_t lo, int32_t hi, int16_t *out)
{
    for (; c < w->depth; c++) {
        int32_t m = INT16_MIN;
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                m = m < PL_POOL_TAP(x, w, r, k)[c] ? PL_POOL_TAP(x, w, r, k)[c] : m;
        out[c] = (int16_t)pl_pool_clamp(m, lo, hi);
    }
}

/* From -FLT_MAX, m < x ? x : m: NaN never taken. */
static inline void pl_pool_max_tail_f32(const pl_pool_window *w, const float *x, int32_t c,
                                        float lo, float hi, float *out)
{
    for (; c < w->depth; c++) {
        float m = -FLT_MAX;
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                m = m < PL_POOL_TAP(x, w, r, k)[c] ? PL_POOL_TAP(x, w, r, k)[c] : m;
        out[c] = pl_pool_clampf(m, lo, hi);
    }
}

/* Channels c.. of window w: the exact sum, then the reference's rounded average. */
static inline void pl_pool_avg_tail_s8(const pl_pool_window *w, const int8_t *x, int32_t c,
                                       int32_t lo, int32_t hi, int8_t *out)
{
    for (; c < w->depth; c++) {
        int32_t acc = 0;
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                acc += PL_POOL_TAP(x, w, r, k)[c];
        out[c] = (int8_t)pl_pool_clamp(pl_pool_rounded_average(acc, w->rows * w->cols), lo, hi);
    }
}

static inline void pl_pool_avg_tail_s16(const pl_pool_window *w, const int16_t *x, int32_t c,
                                        int32_t lo, int32_t hi, int16_t *out)
{
    for (; c < w->depth; c++) {
        int32_t acc = 0;
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                acc += PL_POOL_TAP(x, w, r, k)[c];
        out[c] = (int16_t)pl_pool_clamp(pl_pool_rounded_average(acc, w->rows * w->cols), lo,
                                        hi);
    }
}

/* The float sum in the reference's order from +0, then one division. */
static inline void pl_pool_avg_tail_f32(const pl_pool_window *w, const float *x, int32_t c,
                                        float lo, float hi, float *out)
{
    const float count = (float)(w->rows * w->cols);
    for (; c < w->depth; c++) {
        float t = 0.0f;
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                t += PL_POOL_TAP(x, w, r, k)[c];
        out[c] = pl_pool_clampf(t / count, lo, hi);
    }
}

#endif
