/* softmax16_avx2.c - int16 SOFTMAX rows with AVX2 (see softmax16.h), 16 values per vector
** for the maximum, 8 per gather. Built with -mavx2 -mfma; run only when the CPU has them. */
#include <immintrin.h>

#include "fast/softmax16.h"

static int32_t row_max(const int16_t *in, size_t depth)
{
    __m256i m = _mm256_set1_epi16(INT16_MIN);
    size_t c = 0;
    for (; depth - c >= 16; c += 16)
        m = _mm256_max_epi16(m, _mm256_loadu_si256((const __m256i *)(in + c)));
    __m128i h = _mm_max_epi16(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    /* the largest of 8 is the smallest of their offsets from INT16_MAX (MINPOSUW) */
    h = _mm_sub_epi16(_mm_set1_epi16(INT16_MAX), h);
    int32_t max = INT16_MAX - (int32_t)(uint16_t)_mm_cvtsi128_si32(_mm_minpos_epu16(h));
    for (; c < depth; c++)
        max = in[c] > max ? in[c] : max;
    return max;
}

/* The exps of the row into out (as the portable kernel caches them), their sum returned. */
static int32_t exps_row(const int16_t *exps, int32_t n, int32_t max, const int16_t *in,
                        int16_t *out, size_t depth)
{
    const __m256i vmax = _mm256_set1_epi32(max), last = _mm256_set1_epi32(n - 1);
    __m256i acc = _mm256_setzero_si256();
    size_t c = 0;
    for (; depth - c >= 8; c += 8) {
        __m256i x = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(in + c)));
        __m256i d = _mm256_min_epi32(_mm256_sub_epi32(vmax, x), last);
        /* 32 bits at entry d: exps[d] in the low half (the padding covers d = n - 1) */
        __m256i e = _mm256_i32gather_epi32((const int *)(const void *)exps, d, 2);
        e = _mm256_srai_epi32(_mm256_slli_epi32(e, 16), 16);
        acc = _mm256_add_epi32(acc, e);
        __m128i packed = _mm_packs_epi32(_mm256_castsi256_si128(e),
                                         _mm256_extracti128_si256(e, 1));
        _mm_storeu_si128((__m128i *)(out + c), packed);
    }
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    uint32_t sum = (uint32_t)_mm_cvtsi128_si32(s); /* wrapping, as the int32 sum does */
    for (; c < depth; c++) {
        int32_t d = max - in[c];
        out[c] = exps[d < n ? d : n - 1];
        sum += (uint32_t)out[c];
    }
    return (int32_t)sum;
}

/* out[c] = min((out[c] * recip + 2^(shift-1)) >> shift, INT16_MAX): every term >= 0 and
** below 2^31, so int32 lanes give the int64 reference's values. */
static void scale_row(const pl_softmax_params *p, int16_t *out, size_t depth, int16_t recip,
                      int32_t right_shift)
{
    const __m256i r = _mm256_set1_epi32(recip), top = _mm256_set1_epi32(INT16_MAX);
    const __m256i round = _mm256_set1_epi32(1 << (right_shift - 1));
    const __m128i shift = _mm_cvtsi32_si128(right_shift);
    size_t c = 0;
    for (; depth - c >= 8; c += 8) {
        __m256i x = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(out + c)));
        x = _mm256_srl_epi32(_mm256_add_epi32(_mm256_mullo_epi32(x, r), round), shift);
        x = _mm256_min_epi32(x, top);
        _mm_storeu_si128((__m128i *)(out + c),
                         _mm_packs_epi32(_mm256_castsi256_si128(x),
                                         _mm256_extracti128_si256(x, 1)));
    }
    pl_softmax_s16_scale(p, out + c, depth - c, recip, right_shift);
}

void pl_softmax16_avx2(const pl_softmax_params *p, const int16_t *exps, int32_t n,
                       const int16_t *in, int16_t *out, size_t outer, size_t depth)
{
    for (size_t i = 0; i < outer; i++, in += depth, out += depth) {
        int32_t sum = exps_row(exps, n, row_max(in, depth), in, out, depth), right_shift;
        int16_t recip = pl_softmax_s16_recip(p, sum, &right_shift);
        if (recip >= 0 && right_shift >= 1 && right_shift <= 31)
            scale_row(p, out, depth, recip, right_shift);
        else /* never for a sum of exps that did not wrap */
            pl_softmax_s16_scale(p, out, depth, recip, right_shift);
    }
}
