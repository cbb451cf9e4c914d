/* dw_pairs_sse41.h - the SSE4.1 depthwise rows' sums, int8's and 16x8's (one group layout,
** depthwise.h): two taps' staged int16 values interleaved (PUNPCKLWD/PUNPCKHWD) and PMADDWD
** against the pair's weights, AVX2's 16-channel group taken as 128-bit halves. */
#ifndef PL_FAST_X86_DW_PAIRS_SSE41_H
#define PL_FAST_X86_DW_PAIRS_SSE41_H

#include <smmintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "fast/inline.h"

/* acc[r] for r < n: point r's sums (points step apart from in + c0) of channels 0-3, 8-11,
** 4-7 and 12-15 over taps (even) at tap_at, with the group's weights w. Returns past the
** weights: the group's stage. */
PL_FAST_INLINE const __m128i *pl_dw_pairs_sse41(int32_t taps, const size_t *tap_at,
                                                size_t step, int32_t n, const int16_t *in,
                                                int32_t c0, const __m128i *w, __m128i acc[][4])
{
    PL_FAST_UNROLL
    for (int32_t r = 0; r < n; r++)
        acc[r][0] = acc[r][1] = acc[r][2] = acc[r][3] = _mm_setzero_si128();
    for (int32_t t = 0; t < taps; t += 2, w += 4) {
        __m128i w0 = _mm_loadu_si128(w), w1 = _mm_loadu_si128(w + 1);
        __m128i w2 = _mm_loadu_si128(w + 2), w3 = _mm_loadu_si128(w + 3);
        const int16_t *x0 = in + tap_at[t] + c0, *x1 = in + tap_at[t + 1] + c0;
        PL_FAST_UNROLL
        for (int32_t r = 0; r < n; r++) {
            size_t at = (size_t)r * step;
            __m128i a0 = _mm_loadu_si128((const __m128i *)(x0 + at));
            __m128i a1 = _mm_loadu_si128((const __m128i *)(x0 + at + 8));
            __m128i b0 = _mm_loadu_si128((const __m128i *)(x1 + at));
            __m128i b1 = _mm_loadu_si128((const __m128i *)(x1 + at + 8));
            acc[r][0] = _mm_add_epi32(acc[r][0], _mm_madd_epi16(_mm_unpacklo_epi16(a0, b0), w0));
            acc[r][1] = _mm_add_epi32(acc[r][1], _mm_madd_epi16(_mm_unpacklo_epi16(a1, b1), w1));
            acc[r][2] = _mm_add_epi32(acc[r][2], _mm_madd_epi16(_mm_unpackhi_epi16(a0, b0), w2));
            acc[r][3] = _mm_add_epi32(acc[r][3], _mm_madd_epi16(_mm_unpackhi_epi16(a1, b1), w3));
        }
    }
    return w;
}

#endif
