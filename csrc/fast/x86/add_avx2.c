/* add_avx2.c - int8 ADD on 8 lanes: TFLite's three rescales per element, exact. */
#include <string.h>

#include "fast/elementwise.h"
#include "fast/x86/rescale_avx2.h"

static inline void split(int32_t shift, __m256i *left, __m256i *right)
{
    *left = _mm256_set1_epi32(shift > 0 ? shift : 0);
    *right = _mm256_set1_epi32(shift > 0 ? 0 : shift < -31 ? 31 : -shift);
}

void pl_fast_add_s8_avx2(const pl_add_params *p, const int8_t *a, const int8_t *b,
                         int8_t *out, size_t n)
{
    __m256i l1, r1, l2, r2, lo, ro;
    split(p->input1_shift, &l1, &r1);
    split(p->input2_shift, &l2, &r2);
    split(p->output_shift, &lo, &ro);
    const __m256i off1 = _mm256_set1_epi32(p->input1_offset);
    const __m256i off2 = _mm256_set1_epi32(p->input2_offset);
    const __m256i m1 = _mm256_set1_epi32(p->input1_multiplier);
    const __m256i m2 = _mm256_set1_epi32(p->input2_multiplier);
    const __m256i mo = _mm256_set1_epi32(p->output_multiplier);
    const __m256i left = _mm256_set1_epi32(p->left_shift);
    const __m256i oo = _mm256_set1_epi32(p->output_offset);
    const __m256i amin = _mm256_set1_epi32(p->act_min), amax = _mm256_set1_epi32(p->act_max);
    for (size_t i = 0; i < n; i += 8) {
        size_t count = n - i >= 8 ? 8 : n - i;
        int64_t xa = 0, xb = 0; /* a partial last group is read through a copy */
        memcpy(&xa, a + i, count);
        memcpy(&xb, b + i, count);
        __m256i x = _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(xa));
        __m256i y = _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(xb));
        x = _mm256_sllv_epi32(_mm256_add_epi32(x, off1), left);
        y = _mm256_sllv_epi32(_mm256_add_epi32(y, off2), left);
        __m256i sum = _mm256_add_epi32(pl_rescale_avx2(x, m1, l1, r1),
                                       pl_rescale_avx2(y, m2, l2, r2));
        __m256i v = _mm256_add_epi32(pl_rescale_avx2(sum, mo, lo, ro), oo);
        v = _mm256_min_epi32(_mm256_max_epi32(v, amin), amax);
        __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(v),
                                        _mm256_extracti128_si256(v, 1));
        int64_t bytes = _mm_cvtsi128_si64(_mm_packs_epi16(words, words));
        memcpy(out + i, &bytes, count);
    }
}
