/* dw_s16_avx2.c - the 16x8 depthwise rows with AVX2 (see depthwise16.h): 16 channels per
** pass, four output points' sums in registers. Built with -mavx2 -mfma; run only when the
** CPU has them. */
#include <immintrin.h>
#include <string.h>

#include "fast/depthwise16.h"
#include "fast/inline.h"
#include "fast/x86/dw16_avx2.h"
#include "fast/x86/stage16_avx2.h"

/* 8 int32 sums (channel order of the arrays) through the stage: 8 int32 results. */
PL_FAST_INLINE __m256i stage(__m256i acc, const int64_t *arr, const pl_dw16_job *job,
                             bool narrow)
{
    __m256i lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(acc));
    __m256i hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(acc, 1));
    lo = _mm256_add_epi64(lo, _mm256_loadu_si256((const __m256i *)arr));
    hi = _mm256_add_epi64(hi, _mm256_loadu_si256((const __m256i *)(arr + 4)));
    __m256i x = pl_low32_avx2(pl_rescale64_avx2(lo, arr + 16, arr + 32, arr + 48, narrow),
                              pl_rescale64_avx2(hi, arr + 20, arr + 36, arr + 52, narrow));
    x = _mm256_add_epi32(x, _mm256_set1_epi32(job->out_offset));
    x = _mm256_max_epi32(x, _mm256_set1_epi32(job->act_min));
    return _mm256_min_epi32(x, _mm256_set1_epi32(job->act_max));
}

/* n (1..PL_DW16_POINTS) points from in on, channels c0..c0+15 with their packed group g
** (narrow: job->narrow, a constant). */
PL_FAST_INLINE void points_at(const pl_dw16_job *job, int32_t n, const int16_t *in,
                             const uint8_t *g, int32_t c0, int16_t *out, bool narrow)
{
    __m256i lo[PL_DW16_POINTS], hi[PL_DW16_POINTS];
    /* bias, reduced multiplier, rounding, shift (int64): 16 each */
    const int64_t *arr = (const int64_t *)(const void *)pl_dw16_sums(
        job->taps, job->tap_at, job->step, n, in, g, c0, lo, hi);
    const int32_t count = job->channels - c0 < 16 ? job->channels - c0 : 16;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < n; r++) {
        /* the halves' lanes interleave back into channel order */
        __m256i v = _mm256_packs_epi32(stage(lo[r], arr, job, narrow),
                                       stage(hi[r], arr + 8, job, narrow));
        int16_t *o = out + (size_t)r * (size_t)job->channels + c0;
        if (count == 16) {
            _mm256_storeu_si256((__m256i *)o, v);
        } else {
            int16_t tmp[16];
            _mm256_storeu_si256((__m256i *)tmp, v);
            memcpy(o, tmp, sizeof(int16_t) * (size_t)count);
        }
    }
}

#define S16_POINTS PL_DW16_POINTS
#define DW_ROWS_S16
#include "fast/dw_rows_body.h"

const pl_dw_s16 pl_dw_s16_avx2 = {run};
