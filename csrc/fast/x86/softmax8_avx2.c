/* softmax8_avx2.c - int8 SOFTMAX rows (int8 output) with AVX2, 8 values per gather (see
** softmax16.h): the row maximum, the exps gathered from the host table (exps[d], the exp of
** -d, d in [0, 255]) and their rounded sum, the portable reciprocal (pl_softmax_s8_recip),
** then each output's rescale by lanes. Integer sums are exact in any order and each lane's
** rescale is TFLite's, so the bytes are pl_softmax_s8_exps'. Built with -mavx2 -mfma; run
** only when the CPU has them (AVX-512 CPUs too). */
#include <immintrin.h>
#include <string.h>

#include "fast/softmax16.h"
#include "fast/x86/rescale_avx2.h"

static int32_t row_max(const int8_t *in, size_t depth)
{
    __m256i m = _mm256_set1_epi8(INT8_MIN);
    size_t c = 0;
    for (; depth - c >= 32; c += 32)
        m = _mm256_max_epi8(m, _mm256_loadu_si256((const __m256i *)(in + c)));
    __m128i h = _mm_max_epi8(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    for (; depth - c >= 16; c += 16)
        h = _mm_max_epi8(h, _mm_loadu_si128((const __m128i *)(in + c)));
    h = _mm_max_epi8(h, _mm_srli_si128(h, 8));
    h = _mm_max_epi8(h, _mm_srli_si128(h, 4));
    h = _mm_max_epi8(h, _mm_srli_si128(h, 2));
    h = _mm_max_epi8(h, _mm_srli_si128(h, 1));
    int32_t max = (int8_t)_mm_cvtsi128_si32(h);
    for (; c < depth; c++)
        max = in[c] > max ? in[c] : max;
    return max;
}

/* 8 values from in (n of them, the rest read as the row maximum): their offsets below the
** maximum, the table's index. */
static __m256i offsets(const int8_t *in, size_t n, int32_t max)
{
    int64_t bytes;
    if (n == 8) {
        memcpy(&bytes, in, sizeof bytes);
    } else {
        int8_t t[8];
        memset(t, (int)(int8_t)max, sizeof t);
        memcpy(t, in, n);
        memcpy(&bytes, t, sizeof bytes);
    }
    __m256i x = _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(bytes));
    return _mm256_sub_epi32(_mm256_set1_epi32(max), x);
}

/* RoundingDivideByPOT(x, 12) for x >= 0: the quotient, up by one past half. */
static __m256i divide_accum(__m256i x)
{
    const int32_t bits = PL_SOFTMAX_ACCUM_BITS, half = 1 << (bits - 1);
    __m256i rem = _mm256_and_si256(x, _mm256_set1_epi32((1 << bits) - 1));
    __m256i up = _mm256_cmpgt_epi32(rem, _mm256_set1_epi32(half - 1));
    return _mm256_sub_epi32(_mm256_srai_epi32(x, bits), up);
}

/* A difference below diff_min has a 0 in the table (pl_softmax_exp_table): it adds nothing
** to the sum and its output rescales to the lowest value, as the portable row gives it. */
static void row(const int32_t *exps, const int8_t *in, int8_t *out, size_t depth)
{
    const int32_t max = row_max(in, depth);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i acc = _mm256_setzero_si256();
    for (size_t c = 0; c < depth; c += 8) {
        size_t n = depth - c < 8 ? depth - c : 8;
        __m256i e = _mm256_i32gather_epi32((const int *)exps, offsets(in + c, n, max), 4);
        __m256i in_row = _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)n), lane);
        acc = _mm256_add_epi32(acc, _mm256_and_si256(divide_accum(e), in_row));
    }
    int32_t lanes[8], sum = 0, scale;
    _mm256_storeu_si256((__m256i *)lanes, acc);
    for (int j = 0; j < 8; j++)
        sum = (int32_t)((uint32_t)sum + (uint32_t)lanes[j]);
    int32_t exponent = pl_softmax_s8_recip(sum, 8, &scale);
    if (exponent > 31) { /* every quotient rounds to 0 (the portable value_s8) */
        memset(out, INT8_MIN, depth);
        return;
    }
    const pl_rescale8 r = pl_rescale8_of(_mm256_set1_epi32(scale), _mm256_setzero_si256(),
                                         _mm256_set1_epi32(exponent));
    const __m256i lo = _mm256_set1_epi32(INT8_MIN), hi = _mm256_set1_epi32(INT8_MAX);
    for (size_t c = 0; c < depth; c += 8) {
        size_t n = depth - c < 8 ? depth - c : 8;
        __m256i e = _mm256_i32gather_epi32((const int *)exps, offsets(in + c, n, max), 4);
        __m256i v = _mm256_add_epi32(pl_rescale8_apply(e, &r), lo);
        pl_store8_s8(out + c, _mm256_min_epi32(_mm256_max_epi32(v, lo), hi), n);
    }
}

void pl_softmax8_avx2(const int32_t *exps, const int8_t *in, int8_t *out, size_t outer,
                      size_t depth)
{
    for (size_t i = 0; i < outer; i++, in += depth, out += depth)
        row(exps, in, out, depth);
}
