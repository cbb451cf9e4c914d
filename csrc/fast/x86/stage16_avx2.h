/* stage16_avx2.h - TFLite's 16x8 64-bit rescale on int64 lanes with AVX2 (for the files
** built with -mavx2: the 16x8 product and depthwise rows). */
#ifndef PL_FAST_X86_STAGE16_AVX2_H
#define PL_FAST_X86_STAGE16_AVX2_H

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

/* t * r mod 2^64 per lane (AVX2 has no 64-bit low multiply): three 32x32 products. */
static inline __m256i pl_mul64_avx2(__m256i t, __m256i r)
{
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(t, 32), r),
                                     _mm256_mul_epu32(t, _mm256_srli_epi64(r, 32)));
    return _mm256_add_epi64(_mm256_mul_epu32(t, r), _mm256_slli_epi64(cross, 32));
}

/* TFLite's 64-bit rescale of 4 lanes, (t * reduced + round) >> shift: with narrow (t fits
** in int32, as reduced does) one signed 32x32 multiply; the arithmetic shift from the
** logical one (AVX2 has no VPSRAVQ). */
static inline __m256i pl_rescale64_avx2(__m256i t, const int64_t *reduced,
                                        const int64_t *round, const int64_t *shift, bool narrow)
{
    __m256i r = _mm256_loadu_si256((const __m256i *)reduced);
    __m256i p = _mm256_add_epi64(narrow ? _mm256_mul_epi32(t, r) : pl_mul64_avx2(t, r),
                                 _mm256_loadu_si256((const __m256i *)round));
    __m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), p);
    __m256i s = _mm256_loadu_si256((const __m256i *)shift);
    return _mm256_xor_si256(_mm256_srlv_epi64(_mm256_xor_si256(p, sign), s), sign);
}

/* The low 32 bits of lo's 4 lanes, then hi's. */
static inline __m256i pl_low32_avx2(__m256i lo, __m256i hi)
{
    const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    return _mm256_permute2x128_si256(_mm256_permutevar8x32_epi32(lo, even),
                                     _mm256_permutevar8x32_epi32(hi, even), 0x20);
}

#endif
