/* stage16_sse41.h - TFLite's 16x8 64-bit rescale on int64 lanes with SSE4.1 (for the files
** built with -msse4.1: the 16x8 product and depthwise rows). SSE has neither a 64-bit low
** multiply nor per-lane or arithmetic 64-bit shifts: each is built from what it has. */
#ifndef PL_FAST_X86_STAGE16_SSE41_H
#define PL_FAST_X86_STAGE16_SSE41_H

#include <smmintrin.h>
#include <stdbool.h>
#include <stdint.h>

/* t * r mod 2^64 per lane: three 32x32 products. */
static inline __m128i pl_mul64_sse41(__m128i t, __m128i r)
{
    __m128i cross = _mm_add_epi64(_mm_mul_epu32(_mm_srli_epi64(t, 32), r),
                                  _mm_mul_epu32(t, _mm_srli_epi64(r, 32)));
    return _mm_add_epi64(_mm_mul_epu32(t, r), _mm_slli_epi64(cross, 32));
}

/* TFLite's 64-bit rescale of 2 lanes, (t * reduced + round) >> shift (shift 1..63): with
** narrow (t fits in int32, as reduced does) one signed 32x32 multiply; the arithmetic shift
** as the logical one of the complement for negative lanes, each lane shifted by its own
** count and the halves blended. */
static inline __m128i pl_rescale64_sse41(__m128i t, const int64_t *reduced,
                                         const int64_t *round, const int64_t *shift,
                                         bool narrow)
{
    __m128i r = _mm_loadu_si128((const __m128i *)reduced);
    __m128i p = _mm_add_epi64(narrow ? _mm_mul_epi32(t, r) : pl_mul64_sse41(t, r),
                              _mm_loadu_si128((const __m128i *)round));
    __m128i sign = _mm_shuffle_epi32(_mm_srai_epi32(p, 31), _MM_SHUFFLE(3, 3, 1, 1));
    __m128i x = _mm_xor_si128(p, sign);
    __m128i lo = _mm_srl_epi64(x, _mm_loadl_epi64((const __m128i *)shift));
    __m128i hi = _mm_srl_epi64(x, _mm_loadl_epi64((const __m128i *)(shift + 1)));
    return _mm_xor_si128(_mm_blend_epi16(lo, hi, 0xF0), sign);
}

/* The low 32 bits of lo's 2 lanes, then hi's. */
static inline __m128i pl_low32_sse41(__m128i lo, __m128i hi)
{
    return _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(lo), _mm_castsi128_ps(hi),
                                           _MM_SHUFFLE(2, 0, 2, 0)));
}

/* 4 int64 sums (lo, hi) + bias through the 64-bit rescale, truncated to int32, from the
** arrays' entries 0..3. */
static inline __m128i pl_stage64_sse41(__m128i lo, __m128i hi, const int64_t *bias,
                                       const int64_t *reduced, const int64_t *round,
                                       const int64_t *shift, bool narrow)
{
    lo = _mm_add_epi64(lo, _mm_loadu_si128((const __m128i *)bias));
    hi = _mm_add_epi64(hi, _mm_loadu_si128((const __m128i *)(bias + 2)));
    return pl_low32_sse41(pl_rescale64_sse41(lo, reduced, round, shift, narrow),
                          pl_rescale64_sse41(hi, reduced + 2, round + 2, shift + 2, narrow));
}

#endif
