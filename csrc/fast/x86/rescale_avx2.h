/* rescale_avx2.h - TFLite's int8 output stage on 8 int32 lanes with AVX2 (for the files
** built with -mavx2: gemm and depthwise). */
#ifndef PL_FAST_X86_RESCALE_AVX2_H
#define PL_FAST_X86_RESCALE_AVX2_H

#include <immintrin.h>
#include <stdint.h>

/* TFLite's MultiplyByQuantizedMultiplier on 8 lanes (multipliers are never INT32_MIN): see
** rescale_avx512.h. */
static inline __m256i pl_rescale_avx2(__m256i x, __m256i mult, __m256i left, __m256i right)
{
    const __m256i half = _mm256_set1_epi64x(1LL << 30), one = _mm256_set1_epi32(1);
    x = _mm256_sllv_epi32(x, left);
    __m256i even = _mm256_mul_epi32(x, mult);
    __m256i odd = _mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(mult, 32));
    even = _mm256_srli_epi64(_mm256_add_epi64(even, half), 31);
    odd = _mm256_slli_epi64(_mm256_srli_epi64(_mm256_add_epi64(odd, half), 31), 32);
    __m256i high = _mm256_blend_epi32(even, odd, 0xAA);
    __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
    __m256i threshold = _mm256_sub_epi32(_mm256_srai_epi32(mask, 1),
                                         _mm256_srai_epi32(high, 31));
    __m256i q = _mm256_srav_epi32(high, right);
    __m256i up = _mm256_cmpgt_epi32(_mm256_and_si256(high, mask), threshold);
    return _mm256_sub_epi32(q, up);
}

/* The whole stage from int32 sums: + addend (wrapping, as TFLite's int32 add), rescale,
** + the output offset, clamp. The arrays hold 8 lanes each. */
static inline __m256i pl_stage_avx2(__m256i acc, const int32_t *addend, const int32_t *mult,
                                    const int32_t *left, const int32_t *right,
                                    int32_t out_offset, int32_t act_min, int32_t act_max)
{
    acc = _mm256_add_epi32(acc, _mm256_loadu_si256((const __m256i *)addend));
    acc = pl_rescale_avx2(acc, _mm256_loadu_si256((const __m256i *)mult),
                          _mm256_loadu_si256((const __m256i *)left),
                          _mm256_loadu_si256((const __m256i *)right));
    acc = _mm256_add_epi32(acc, _mm256_set1_epi32(out_offset));
    acc = _mm256_max_epi32(acc, _mm256_set1_epi32(act_min));
    return _mm256_min_epi32(acc, _mm256_set1_epi32(act_max));
}

#endif
