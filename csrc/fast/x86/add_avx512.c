/* add_avx512.c - int8 ADD on 16 lanes: TFLite's three rescales per element, exact. */
#include <string.h>

#include "fast/elementwise.h"
#include "fast/x86/rescale_avx512.h"

/* A rescale's shift split as the vectors take it. */
static inline void split(int32_t shift, __m512i *left, __m512i *right)
{
    *left = _mm512_set1_epi32(shift > 0 ? shift : 0);
    *right = _mm512_set1_epi32(shift > 0 ? 0 : shift < -31 ? 31 : -shift);
}

void pl_fast_add_s8_avx512(const pl_add_params *p, const int8_t *a, const int8_t *b,
                           int8_t *out, size_t n)
{
    __m512i l1, r1, l2, r2, lo, ro;
    split(p->input1_shift, &l1, &r1);
    split(p->input2_shift, &l2, &r2);
    split(p->output_shift, &lo, &ro);
    const __m512i off1 = _mm512_set1_epi32(p->input1_offset);
    const __m512i off2 = _mm512_set1_epi32(p->input2_offset);
    const __m512i m1 = _mm512_set1_epi32(p->input1_multiplier);
    const __m512i m2 = _mm512_set1_epi32(p->input2_multiplier);
    const __m512i mo = _mm512_set1_epi32(p->output_multiplier);
    const __m512i left = _mm512_set1_epi32(p->left_shift);
    const __m512i oo = _mm512_set1_epi32(p->output_offset);
    const __m512i amin = _mm512_set1_epi32(p->act_min), amax = _mm512_set1_epi32(p->act_max);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 lanes = n - i >= 16 ? 0xFFFF : (__mmask16)((1u << (n - i)) - 1u);
        __m512i x = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(lanes, a + i));
        __m512i y = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(lanes, b + i));
        x = _mm512_sllv_epi32(_mm512_add_epi32(x, off1), left);
        y = _mm512_sllv_epi32(_mm512_add_epi32(y, off2), left);
        __m512i sum = _mm512_add_epi32(pl_rescale_avx512(x, m1, l1, r1),
                                       pl_rescale_avx512(y, m2, l2, r2));
        __m512i v = _mm512_add_epi32(pl_rescale_avx512(sum, mo, lo, ro), oo);
        v = _mm512_min_epi32(_mm512_max_epi32(v, amin), amax);
        _mm_mask_storeu_epi8(out + i, lanes, _mm512_cvtepi32_epi8(v));
    }
}
