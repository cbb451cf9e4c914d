/* rescale_avx2.h - TFLite's int8 output stage on 8 int32 lanes with AVX2 (for the files
** built with -mavx2: gemm and depthwise). */
#ifndef PL_FAST_X86_RESCALE_AVX2_H
#define PL_FAST_X86_RESCALE_AVX2_H

#include <immintrin.h>
#include <stdint.h>

/* A rescale's per-channel operands, split once for the lanes (rescale_avx512.h). */
typedef struct pl_rescale8 {
    __m256i mult, mult_odd, left, right, mask, half;
} pl_rescale8;

static inline pl_rescale8 pl_rescale8_of(__m256i mult, __m256i left, __m256i right)
{
    const __m256i one = _mm256_set1_epi32(1);
    __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
    return (pl_rescale8){mult, _mm256_srli_epi64(mult, 32), left, right, mask,
                         _mm256_srai_epi32(mask, 1)};
}

/* TFLite's MultiplyByQuantizedMultiplier on 8 lanes (multipliers are never INT32_MIN): see
** rescale_avx512.h. */
static inline __m256i pl_rescale8_apply(__m256i x, const pl_rescale8 *r)
{
    const __m256i half = _mm256_set1_epi64x(1LL << 30);
    x = _mm256_sllv_epi32(x, r->left);
    __m256i even = _mm256_mul_epi32(x, r->mult);
    __m256i odd = _mm256_mul_epi32(_mm256_srli_epi64(x, 32), r->mult_odd);
    even = _mm256_srli_epi64(_mm256_add_epi64(even, half), 31);
    odd = _mm256_slli_epi64(_mm256_srli_epi64(_mm256_add_epi64(odd, half), 31), 32);
    __m256i high = _mm256_blend_epi32(even, odd, 0xAA);
    __m256i threshold = _mm256_sub_epi32(r->half, _mm256_srai_epi32(high, 31));
    __m256i q = _mm256_srav_epi32(high, r->right);
    __m256i up = _mm256_cmpgt_epi32(_mm256_and_si256(high, r->mask), threshold);
    return _mm256_sub_epi32(q, up);
}

static inline __m256i pl_rescale_avx2(__m256i x, __m256i mult, __m256i left, __m256i right)
{
    const pl_rescale8 r = pl_rescale8_of(mult, left, right);
    return pl_rescale8_apply(x, &r);
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
