/* softmax16_avx512.c - int16 SOFTMAX rows with AVX-512 (see softmax16.h), 32 values per
** vector for the maximum, 16 per gather. Built with -mavx512f -mavx512bw (and the rest of
** the set); run only when the CPU has them. */
#include <immintrin.h>

#include "fast/softmax16.h"

static int32_t row_max(const int16_t *in, size_t depth)
{
    __m512i m = _mm512_set1_epi16(INT16_MIN);
    size_t c = 0;
    for (; depth - c >= 32; c += 32)
        m = _mm512_max_epi16(m, _mm512_loadu_si512(in + c));
    __m512i wide = _mm512_max_epi32(_mm512_cvtepi16_epi32(_mm512_castsi512_si256(m)),
                                    _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(m, 1)));
    int32_t max = _mm512_reduce_max_epi32(wide);
    for (; c < depth; c++)
        max = in[c] > max ? in[c] : max;
    return max;
}

/* The exps of the row into out (as the portable kernel caches them), their sum returned. */
static int32_t exps_row(const int16_t *exps, int32_t n, int32_t max, const int16_t *in,
                        int16_t *out, size_t depth)
{
    const __m512i vmax = _mm512_set1_epi32(max), last = _mm512_set1_epi32(n - 1);
    __m512i acc = _mm512_setzero_si512();
    size_t c = 0;
    for (; depth - c >= 16; c += 16) {
        __m512i x = _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(in + c)));
        __m512i d = _mm512_min_epi32(_mm512_sub_epi32(vmax, x), last);
        /* 32 bits at entry d: exps[d] in the low half (the padding covers d = n - 1) */
        __m512i e = _mm512_i32gather_epi32(d, (const void *)exps, 2);
        e = _mm512_srai_epi32(_mm512_slli_epi32(e, 16), 16);
        acc = _mm512_add_epi32(acc, e);
        _mm256_storeu_si256((__m256i *)(out + c), _mm512_cvtepi32_epi16(e));
    }
    /* wrapping, as the int32 sum does */
    uint32_t sum = (uint32_t)_mm512_reduce_add_epi32(acc);
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
    const __m512i r = _mm512_set1_epi32(recip), top = _mm512_set1_epi32(INT16_MAX);
    const __m512i round = _mm512_set1_epi32(1 << (right_shift - 1));
    const __m128i shift = _mm_cvtsi32_si128(right_shift);
    size_t c = 0;
    for (; depth - c >= 16; c += 16) {
        __m512i x = _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(out + c)));
        x = _mm512_srl_epi32(_mm512_add_epi32(_mm512_mullo_epi32(x, r), round), shift);
        _mm256_storeu_si256((__m256i *)(out + c), _mm512_cvtepi32_epi16(_mm512_min_epi32(x, top)));
    }
    pl_softmax_s16_scale(p, out + c, depth - c, recip, right_shift);
}

void pl_softmax16_avx512(const pl_softmax_params *p, const int16_t *exps, int32_t n,
                         const int16_t *in, int16_t *out, size_t outer, size_t depth)
{
    if (depth < 16) { /* AVX2's rows fill their vectors (every AVX-512 CPU has AVX2) */
        pl_softmax16_avx2(p, exps, n, in, out, outer, depth);
        return;
    }
    for (size_t i = 0; i < outer; i++, in += depth, out += depth) {
        int32_t sum = exps_row(exps, n, row_max(in, depth), in, out, depth), right_shift;
        int16_t recip = pl_softmax_s16_recip(p, sum, &right_shift);
        if (recip >= 0 && right_shift >= 1 && right_shift <= 31)
            scale_row(p, out, depth, recip, right_shift);
        else /* never for a sum of exps that did not wrap */
            pl_softmax_s16_scale(p, out, depth, recip, right_shift);
    }
}
