/* dw_s16_sse41.c - the 16x8 depthwise rows with SSE4.1 (see depthwise16.h): AVX2's
** 16-channel groups, each 256-bit vector of a pair's weights taken as two 128-bit ones: two
** taps' staged values interleaved (PUNPCKLWD/PUNPCKHWD) and PMADDWD against them, two
** output points' sums in registers, then the 64-bit stage (stage16_sse41.h). Built with
** -msse4.1; run only when the CPU has it. */
#include <smmintrin.h>
#include <string.h>

#include "fast/depthwise16.h"
#include "fast/inline.h"
#include "fast/x86/dw_pairs_sse41.h"
#include "fast/x86/rescale_sse41.h"
#include "fast/x86/stage16_sse41.h"

enum { POINTS = 2 }; /* output points per pass: their sums stay in registers */

/* 4 int32 sums at entry `at` of the arrays (bias, reduced multiplier, rounding, shift: 16
** int64 each) through the stage: 4 int32 results. */
PL_FAST_INLINE __m128i stage(__m128i acc, const int64_t *arr, int32_t at,
                             const pl_dw16_job *job, bool narrow)
{
    __m128i v = pl_stage64_sse41(_mm_cvtepi32_epi64(acc),
                                 _mm_cvtepi32_epi64(_mm_srli_si128(acc, 8)), arr + at,
                                 arr + 16 + at, arr + 32 + at, arr + 48 + at, narrow);
    return pl_clamp_sse41(v, job->out_offset, job->act_min, job->act_max);
}

/* n (1..POINTS) points from in on, channels c0..c0+15 with their packed group g (narrow:
** job->narrow, a constant). */
PL_FAST_INLINE void points_at(const pl_dw16_job *job, int32_t n, const int16_t *in,
                              const uint8_t *g, int32_t c0, int16_t *out, bool narrow)
{
    __m128i acc[POINTS][4]; /* channels 0-3, 8-11, 4-7, 12-15 */
    const __m128i *w = pl_dw_pairs_sse41(job->taps, job->tap_at, job->step, n, in, c0,
                                         (const __m128i *)g, acc);
    const int64_t *arr = (const int64_t *)(const void *)w; /* the stage follows the weights */
    const int32_t count = job->channels - c0 < 16 ? job->channels - c0 : 16;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < n; r++) {
        __m128i v[4];
        for (int32_t h = 0; h < 4; h++)
            v[h] = stage(acc[r][h], arr, 4 * h, job, narrow);
        int16_t tmp[16], *o = out + (size_t)r * (size_t)job->channels + c0;
        _mm_storeu_si128((__m128i *)tmp, _mm_packs_epi32(v[0], v[2]));
        _mm_storeu_si128((__m128i *)(tmp + 8), _mm_packs_epi32(v[1], v[3]));
        memcpy(o, tmp, sizeof(int16_t) * (size_t)count);
    }
}

#define S16_POINTS POINTS
#define DW_ROWS_S16
#include "fast/dw_rows_body.h"

const pl_dw_s16 pl_dw_s16_sse41 = {run};
