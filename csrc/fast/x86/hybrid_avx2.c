/* hybrid_avx2.c - hybrid.h's kernels with AVX2: 8 lanes (hybrid_body.h). Built with -mavx2
** -mfma and -ffp-contract=off (no fused multiply-add); run only when the CPU has them. */
#include <immintrin.h>

#include "fast/hybrid.h"

enum { W = 8 };

#include "fast/hybrid_body.h"

static inline void store_q(uint8_t *out, vi q, uint8_t flip)
{
    __m256i v = (__m256i)q;
    __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    __m128i bytes = _mm_xor_si128(_mm_packs_epi16(words, words), _mm_set1_epi8((char)flip));
    _mm_storel_epi64((__m128i *)out, bytes);
}

static inline vf less_f(vf a, vf b)
{
    return (vf)_mm256_min_ps((__m256)a, (__m256)b);
}

static inline vf more_f(vf a, vf b)
{
    return (vf)_mm256_max_ps((__m256)a, (__m256)b);
}

const pl_hybrid_kernels pl_hybrid_avx2 = {quantize, output, output_f32};
