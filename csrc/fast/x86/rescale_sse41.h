/* rescale_sse41.h - TFLite's int8 output stage on 4 int32 lanes with SSE4.1, per-channel
** scales (for the files built with -msse4.1: gemm and depthwise). SSE has no per-lane
** shifts: the left shift is a multiply by 2^left and the right shift one SRAD per lane,
** their operands built once per 4 channels. */
#ifndef PL_FAST_X86_RESCALE_SSE41_H
#define PL_FAST_X86_RESCALE_SSE41_H

#include <smmintrin.h>
#include <stdint.h>

/* 4 channels' stage operands: addend, multiplier, 2^left (mod 2^32), the rounding mask
** 2^right - 1 and each lane's right shift count. */
typedef struct pl_sse41_quad {
    __m128i addend, mult, pow2, mask, right[4];
} pl_sse41_quad;

static inline void pl_sse41_quad_of(const int32_t *addend, const int32_t *mult,
                                    const int32_t *left, const int32_t *right,
                                    pl_sse41_quad *q)
{
    int32_t pow2[4], mask[4];
    for (int32_t j = 0; j < 4; j++) {
        /* past 31 (hostile scales) every bit goes, as the reference's wrap does */
        pow2[j] = left[j] < 32 ? (int32_t)(1u << left[j]) : 0;
        mask[j] = (int32_t)((1u << right[j]) - 1u); /* right is <= 31 */
        q->right[j] = _mm_cvtsi32_si128(right[j]);
    }
    q->addend = _mm_loadu_si128((const __m128i *)addend);
    q->mult = _mm_loadu_si128((const __m128i *)mult);
    q->pow2 = _mm_loadu_si128((const __m128i *)pow2);
    q->mask = _mm_loadu_si128((const __m128i *)mask);
}

/* acc + addend (wrapping, as TFLite's int32 add), then TFLite's MultiplyByQuantizedMultiplier
** (multipliers are never INT32_MIN): the doubling high multiply as floor((x * m + 2^30) /
** 2^31), then the rounding right shift, half away from zero. */
static inline __m128i pl_rescale_sse41(__m128i acc, const pl_sse41_quad *q)
{
    const __m128i half = _mm_set1_epi64x(1LL << 30);
    __m128i x = _mm_mullo_epi32(_mm_add_epi32(acc, q->addend), q->pow2);
    __m128i even = _mm_mul_epi32(x, q->mult);
    __m128i odd = _mm_mul_epi32(_mm_srli_epi64(x, 32), _mm_srli_epi64(q->mult, 32));
    even = _mm_srli_epi64(_mm_add_epi64(even, half), 31);
    odd = _mm_slli_epi64(_mm_srli_epi64(_mm_add_epi64(odd, half), 31), 32);
    __m128i high = _mm_blend_epi16(even, odd, 0xCC);
    __m128i threshold = _mm_sub_epi32(_mm_srai_epi32(q->mask, 1), _mm_srai_epi32(high, 31));
    __m128i q01 = _mm_blend_epi16(_mm_sra_epi32(high, q->right[0]),
                                  _mm_sra_epi32(high, q->right[1]), 0x0C);
    __m128i q23 = _mm_blend_epi16(_mm_sra_epi32(high, q->right[2]),
                                  _mm_sra_epi32(high, q->right[3]), 0xC0);
    __m128i shifted = _mm_blend_epi16(q01, q23, 0xF0);
    __m128i up = _mm_cmpgt_epi32(_mm_and_si128(high, q->mask), threshold);
    return _mm_sub_epi32(shifted, up);
}

/* + the output offset, then the activation clamp. */
static inline __m128i pl_clamp_sse41(__m128i v, int32_t out_offset, int32_t act_min,
                                     int32_t act_max)
{
    v = _mm_add_epi32(v, _mm_set1_epi32(out_offset));
    return _mm_min_epi32(_mm_max_epi32(v, _mm_set1_epi32(act_min)), _mm_set1_epi32(act_max));
}

#endif
