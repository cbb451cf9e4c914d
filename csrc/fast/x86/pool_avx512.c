/* pool_avx512.c - the pooling windows with AVX-512 (see pool.h): int8 maxima 64 channels
** per vector, int16 maxima 32, int8 and int16 sums 16 per vector in int32 lanes, floats
** 16 per vector; the last channels through masked loads and stores. Built with -mavx512f
** -mavx512bw -mavx512vl -mavx512dq -mavx512vnni -mfma (and -ffp-contract=off); run only when
** the CPU has them. */
#include <float.h>
#include <immintrin.h>

#include "fast/pool_tail.h"

static inline __mmask64 mask64(int32_t left)
{
    return left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
}

static inline __mmask16 mask16(int32_t left)
{
    return left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
}

/* VMAXPS/VMINPS give their second operand on NaN or equal values, so min(hi, max(lo, v))
** is the reference's clamp. */
static inline __m512 clamp_ps(__m512 v, __m512 lo, __m512 hi)
{
    return _mm512_min_ps(hi, _mm512_max_ps(lo, v));
}

static void max_s8(const pl_pool_window *w, const int8_t *x, int32_t lo, int32_t hi,
                   int8_t *out)
{
    for (int32_t c = 0; c < w->depth; c += 64) {
        __mmask64 m = mask64(w->depth - c);
        __m512i v = _mm512_set1_epi8(INT8_MIN);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                v = _mm512_max_epi8(v, _mm512_maskz_loadu_epi8(m, PL_POOL_TAP(x, w, r, k) + c));
        v = _mm512_max_epi8(v, _mm512_set1_epi8((int8_t)lo));
        v = _mm512_min_epi8(v, _mm512_set1_epi8((int8_t)hi));
        _mm512_mask_storeu_epi8(out + c, m, v);
    }
}

static void avg_s8(const pl_pool_window *w, const int8_t *x, int32_t lo, int32_t hi,
                   int8_t *out)
{
    const int32_t count = w->rows * w->cols;
    /* |sum| + count / 2 < 2^24 and the quotient below 256: the float division truncates to
    ** the exact integer quotient (pool.c limits count) */
    const __m512 fcount = _mm512_set1_ps((float)count);
    const __m512i half = _mm512_set1_epi32(count / 2), zero = _mm512_setzero_si512();
    for (int32_t c = 0; c < w->depth; c += 16) {
        __mmask16 m = mask16(w->depth - c);
        __m512i acc = zero;
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                acc = _mm512_add_epi32(acc, _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(
                                                m, PL_POOL_TAP(x, w, r, k) + c)));
        __mmask16 pos = _mm512_cmpgt_epi32_mask(acc, zero);
        __m512i num = _mm512_mask_add_epi32(_mm512_sub_epi32(acc, half), pos, acc, half);
        __m512i q = _mm512_cvttps_epi32(_mm512_div_ps(_mm512_cvtepi32_ps(num), fcount));
        q = _mm512_min_epi32(_mm512_max_epi32(q, _mm512_set1_epi32(lo)), _mm512_set1_epi32(hi));
        _mm_mask_storeu_epi8(out + c, m, _mm512_cvtepi32_epi8(q));
    }
}

static inline __mmask32 mask32(int32_t left)
{
    return left >= 32 ? ~(__mmask32)0 : (((__mmask32)1 << left) - 1);
}

static void max_s16(const pl_pool_window *w, const int16_t *x, int32_t lo, int32_t hi,
                    int16_t *out)
{
    for (int32_t c = 0; c < w->depth; c += 32) {
        __mmask32 m = mask32(w->depth - c);
        __m512i v = _mm512_set1_epi16(INT16_MIN);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                v = _mm512_max_epi16(v, _mm512_maskz_loadu_epi16(m, PL_POOL_TAP(x, w, r, k) + c));
        v = _mm512_max_epi16(v, _mm512_set1_epi16((int16_t)lo));
        v = _mm512_min_epi16(v, _mm512_set1_epi16((int16_t)hi));
        _mm512_mask_storeu_epi16(out + c, m, v);
    }
}

/* 8 lanes of num / count truncated: in double both are exact and the quotient, within
** 2^-37 of the true one, never crosses an integer it does not reach (count < 2^16). */
static inline __m256i divide8(__m256i num, __m512d count)
{
    return _mm512_cvttpd_epi32(_mm512_div_pd(_mm512_cvtepi32_pd(num), count));
}

static void avg_s16(const pl_pool_window *w, const int16_t *x, int32_t lo, int32_t hi,
                    int16_t *out)
{
    const int32_t count = w->rows * w->cols;
    const __m512d dcount = _mm512_set1_pd((double)count);
    const __m512i half = _mm512_set1_epi32(count / 2), zero = _mm512_setzero_si512();
    for (int32_t c = 0; c < w->depth; c += 16) {
        __mmask16 m = mask16(w->depth - c);
        __m512i acc = zero;
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                acc = _mm512_add_epi32(acc, _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(
                                                m, PL_POOL_TAP(x, w, r, k) + c)));
        __mmask16 pos = _mm512_cmpgt_epi32_mask(acc, zero);
        __m512i num = _mm512_mask_add_epi32(_mm512_sub_epi32(acc, half), pos, acc, half);
        __m512i q = _mm512_inserti64x4(
            _mm512_castsi256_si512(divide8(_mm512_castsi512_si256(num), dcount)),
            divide8(_mm512_extracti64x4_epi64(num, 1), dcount), 1);
        q = _mm512_min_epi32(_mm512_max_epi32(q, _mm512_set1_epi32(lo)), _mm512_set1_epi32(hi));
        _mm256_mask_storeu_epi16(out + c, m, _mm512_cvtepi32_epi16(q));
    }
}

static void max_f32(const pl_pool_window *w, const float *x, float lo, float hi, float *out)
{
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    for (int32_t c = 0; c < w->depth; c += 16) {
        __mmask16 m = mask16(w->depth - c);
        __m512 v = _mm512_set1_ps(-FLT_MAX);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++) /* VMAXPS(x, v): v < x ? x : v */
                v = _mm512_max_ps(_mm512_maskz_loadu_ps(m, PL_POOL_TAP(x, w, r, k) + c), v);
        _mm512_mask_storeu_ps(out + c, m, clamp_ps(v, vlo, vhi));
    }
}

static void avg_f32(const pl_pool_window *w, const float *x, float lo, float hi, float *out)
{
    const __m512 count = _mm512_set1_ps((float)(w->rows * w->cols));
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    for (int32_t c = 0; c < w->depth; c += 16) {
        __mmask16 m = mask16(w->depth - c);
        __m512 t = _mm512_setzero_ps();
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                t = _mm512_add_ps(t, _mm512_maskz_loadu_ps(m, PL_POOL_TAP(x, w, r, k) + c));
        _mm512_mask_storeu_ps(out + c, m, clamp_ps(_mm512_div_ps(t, count), vlo, vhi));
    }
}

const pl_pool pl_pool_avx512 = {max_s8, avg_s8, max_s16, avg_s16, max_f32, avg_f32};
