/* hybrid_avx512.c - hybrid.h's kernels with AVX-512: 16 lanes (hybrid_body.h). Built with
** -mavx512f -mavx512bw -mavx512vl (and -ffp-contract=off); run only when the CPU has them. */
#include <immintrin.h>

#include "fast/hybrid.h"

enum { W = 16 };

#include "fast/hybrid_body.h"

static inline void store_q(uint8_t *out, vi q, uint8_t flip)
{
    __m128i bytes = _mm512_cvtepi32_epi8((__m512i)q);
    _mm_storeu_si128((__m128i *)out, _mm_xor_si128(bytes, _mm_set1_epi8((char)flip)));
}

static inline vf less_f(vf a, vf b)
{
    return (vf)_mm512_min_ps((__m512)a, (__m512)b);
}

static inline vf more_f(vf a, vf b)
{
    return (vf)_mm512_max_ps((__m512)a, (__m512)b);
}

const pl_hybrid_kernels pl_hybrid_avx512 = {quantize, output, output_f32};
