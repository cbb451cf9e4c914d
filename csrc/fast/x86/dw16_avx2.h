/* dw16_avx2.h - one 16-channel group of the int8 depthwise rows with 256-bit vectors: the
** whole of AVX2's run and AVX-512's last group when the channels are an odd number of 16s
** (static inline: each file compiles it with its own flags). */
#ifndef PL_FAST_X86_DW16_AVX2_H
#define PL_FAST_X86_DW16_AVX2_H

#include <immintrin.h>
#include <string.h>

#include "fast/depthwise.h"
#include "fast/x86/rescale_avx2.h"

enum { PL_DW16_POINTS = 4 }; /* output points per pass: their sums stay in registers */

/* The int32 sums of n (1..PL_DW16_POINTS) points, channels c0..c0+15 of int16 staged
** values, over taps (even) whose int16 weight pairs start at g, VPMADDWD summing each
** channel's pair of taps; lo/hi hold the unpack order. Returns what follows the weights. */
PL_FAST_INLINE const uint8_t *pl_dw16_sums(int32_t taps, const size_t *tap_at, size_t step,
                                          int32_t n, const int16_t *in, const uint8_t *g,
                                          int32_t c0, __m256i *lo, __m256i *hi)
{
    PL_FAST_UNROLL
    for (int32_t r = 0; r < PL_DW16_POINTS; r++)
        lo[r] = hi[r] = _mm256_setzero_si256();
    const __m256i *w = (const __m256i *)g;
    for (int32_t t = 0; t < taps; t += 2, w += 2) {
        __m256i w_lo = _mm256_loadu_si256(w), w_hi = _mm256_loadu_si256(w + 1);
        const int16_t *x0 = in + tap_at[t] + c0, *x1 = in + tap_at[t + 1] + c0;
        PL_FAST_UNROLL
        for (int32_t r = 0; r < n; r++) {
            size_t at = (size_t)r * step;
            __m256i a = _mm256_loadu_si256((const __m256i *)(x0 + at));
            __m256i b = _mm256_loadu_si256((const __m256i *)(x1 + at));
            lo[r] = _mm256_add_epi32(lo[r], _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), w_lo));
            hi[r] = _mm256_add_epi32(hi[r], _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), w_hi));
        }
    }
    return (const uint8_t *)w;
}

/* Whether every channel of the 16-channel group g takes the quick form (no limit below 0):
** its arrays follow the weights (taps / 2 pairs of two vectors), the limits at 80 and 88. */
static inline bool pl_dw16_group_quick(const pl_dw_job *job, const uint8_t *g)
{
    const float *limit = (const float *)(const void *)(g + (size_t)job->taps * 32) + 80;
    const __m256 zero = _mm256_setzero_ps();
    const __m256 below = _mm256_or_ps(_mm256_cmp_ps(_mm256_loadu_ps(limit), zero, _CMP_LT_OQ),
                                      _mm256_cmp_ps(_mm256_loadu_ps(limit + 8), zero, _CMP_LT_OQ));
    return _mm256_movemask_ps(below) == 0;
}

/* n (1..PL_DW16_POINTS) points from in on, channels c0..c0+15 with their packed group g
** (fast: pl_dw16_group_quick's answer). */
PL_FAST_INLINE void pl_dw16_s8_points(const pl_dw_job *job, int32_t n, const int16_t *in,
                                     const uint8_t *g, bool fast, int32_t c0, int8_t *out)
{
    __m256i lo[PL_DW16_POINTS], hi[PL_DW16_POINTS];
    /* addend, multiplier, left and right shifts, then the quick form's scale and limit: 16
    ** each */
    const int32_t *arr = (const int32_t *)(const void *)pl_dw16_sums(
        job->taps, job->tap_at, job->step, n, in, g, c0, lo, hi);
    const float *quick = (const float *)(arr + 64);
    const int32_t count = job->channels - c0 < 16 ? job->channels - c0 : 16;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < n; r++) {
        __m256i vl = pl_stage_quick_avx2(fast, lo[r], arr, arr + 16, arr + 32, arr + 48, quick,
                                         quick + 16, job->out_offset, job->act_min,
                                         job->act_max);
        __m256i vh = pl_stage_quick_avx2(fast, hi[r], arr + 8, arr + 24, arr + 40, arr + 56,
                                         quick + 8, quick + 24, job->out_offset, job->act_min,
                                         job->act_max);
        /* the halves' lanes interleave back into channel order */
        __m256i words = _mm256_packs_epi32(vl, vh);
        __m256i bytes = _mm256_permute4x64_epi64(_mm256_packs_epi16(words, words), 0xD8);
        int8_t *o = out + (size_t)r * (size_t)job->channels + c0;
        if (count == 16) {
            _mm_storeu_si128((__m128i *)o, _mm256_castsi256_si128(bytes));
        } else {
            int8_t tmp[16];
            _mm_storeu_si128((__m128i *)tmp, _mm256_castsi256_si128(bytes));
            memcpy(o, tmp, (size_t)count);
        }
    }
}

/* Every point of the row for the group at c0. */
static inline void pl_dw16_s8_group(const pl_dw_job *job, const int16_t *in, int32_t points,
                                    const uint8_t *g, int32_t c0, int8_t *out)
{
    const bool fast = pl_dw16_group_quick(job, g);
    int32_t pt = 0;
    for (; points - pt >= PL_DW16_POINTS; pt += PL_DW16_POINTS) /* constant n: registers */
        pl_dw16_s8_points(job, PL_DW16_POINTS, in + (size_t)pt * job->step, g, fast, c0,
                          out + (size_t)pt * (size_t)job->channels);
    for (; pt < points; pt++)
        pl_dw16_s8_points(job, 1, in + (size_t)pt * job->step, g, fast, c0,
                          out + (size_t)pt * (size_t)job->channels);
}

#endif
