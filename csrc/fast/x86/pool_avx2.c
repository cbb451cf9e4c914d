/* pool_avx2.c - the pooling windows with AVX2 (see pool.h): int8 maxima 32 channels per vector
** (then 8 per half SSE vector), int16 maxima 16 (then 8), int8 and int16 sums 8 per vector in
** int32 lanes, floats 8 per vector; channels past the last whole vector one at a time with the
** reference's scalar arithmetic. Built with -mavx2 -mfma (and -ffp-contract=off); run only when
** the CPU has them. */
#include <float.h>
#include <immintrin.h>
#include <string.h>

#include "fast/pool_tail.h"

/* MAXPS/MINPS give their second operand on NaN or equal values, so min(hi, max(lo, v)) is
** the reference's clamp. */
static inline __m256 clamp_ps(__m256 v, __m256 lo, __m256 hi)
{
    return _mm256_min_ps(hi, _mm256_max_ps(lo, v));
}

static void max_s8(const pl_pool_window *w, const int8_t *x, int32_t lo, int32_t hi,
                   int8_t *out)
{
    int32_t c = 0;
    for (; w->depth - c >= 32; c += 32) {
        __m256i m = _mm256_set1_epi8(INT8_MIN);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                m = _mm256_max_epi8(m, _mm256_loadu_si256(
                           (const __m256i *)(PL_POOL_TAP(x, w, r, k) + c)));
        m = _mm256_max_epi8(m, _mm256_set1_epi8((int8_t)lo));
        m = _mm256_min_epi8(m, _mm256_set1_epi8((int8_t)hi));
        _mm256_storeu_si256((__m256i *)(out + c), m);
    }
    for (; w->depth - c >= 8; c += 8) { /* 8 channels are common in small nets */
        __m128i m = _mm_set1_epi8(INT8_MIN);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                m = _mm_max_epi8(m, _mm_loadl_epi64(
                           (const __m128i *)(PL_POOL_TAP(x, w, r, k) + c)));
        m = _mm_min_epi8(_mm_max_epi8(m, _mm_set1_epi8((int8_t)lo)), _mm_set1_epi8((int8_t)hi));
        _mm_storel_epi64((__m128i *)(out + c), m);
    }
    pl_pool_max_tail_s8(w, x, c, lo, hi, out);
}

static void avg_s8(const pl_pool_window *w, const int8_t *x, int32_t lo, int32_t hi,
                   int8_t *out)
{
    const int32_t count = w->rows * w->cols;
    /* |sum| + count / 2 < 2^24 and the quotient below 256: the float division truncates to
    ** the exact integer quotient (pool.c limits count) */
    const __m256 fcount = _mm256_set1_ps((float)count);
    const __m256i half = _mm256_set1_epi32(count / 2), zero = _mm256_setzero_si256();
    int32_t c = 0;
    for (; w->depth - c >= 8; c += 8) {
        __m256i acc = zero;
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++) {
                int64_t v;
                memcpy(&v, PL_POOL_TAP(x, w, r, k) + c, sizeof v);
                acc = _mm256_add_epi32(acc, _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(v)));
            }
        __m256i pos = _mm256_cmpgt_epi32(acc, zero);
        __m256i num = _mm256_blendv_epi8(_mm256_sub_epi32(acc, half),
                                         _mm256_add_epi32(acc, half), pos);
        __m256i q = _mm256_cvttps_epi32(_mm256_div_ps(_mm256_cvtepi32_ps(num), fcount));
        q = _mm256_min_epi32(_mm256_max_epi32(q, _mm256_set1_epi32(lo)), _mm256_set1_epi32(hi));
        __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
        int64_t bytes = _mm_cvtsi128_si64(_mm_packs_epi16(words, words));
        memcpy(out + c, &bytes, sizeof bytes);
    }
    pl_pool_avg_tail_s8(w, x, c, lo, hi, out);
}

static void max_s16(const pl_pool_window *w, const int16_t *x, int32_t lo, int32_t hi,
                    int16_t *out)
{
    int32_t c = 0;
    for (; w->depth - c >= 16; c += 16) {
        __m256i m = _mm256_set1_epi16(INT16_MIN);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                m = _mm256_max_epi16(m, _mm256_loadu_si256(
                           (const __m256i *)(PL_POOL_TAP(x, w, r, k) + c)));
        m = _mm256_max_epi16(m, _mm256_set1_epi16((int16_t)lo));
        m = _mm256_min_epi16(m, _mm256_set1_epi16((int16_t)hi));
        _mm256_storeu_si256((__m256i *)(out + c), m);
    }
    for (; w->depth - c >= 8; c += 8) { /* 8 channels are common in small nets */
        __m128i m = _mm_set1_epi16(INT16_MIN);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                m = _mm_max_epi16(m, _mm_loadu_si128(
                           (const __m128i *)(PL_POOL_TAP(x, w, r, k) + c)));
        m = _mm_min_epi16(_mm_max_epi16(m, _mm_set1_epi16((int16_t)lo)),
                          _mm_set1_epi16((int16_t)hi));
        _mm_storeu_si128((__m128i *)(out + c), m);
    }
    pl_pool_max_tail_s16(w, x, c, lo, hi, out);
}

/* 4 lanes of num / count truncated: in double both are exact and the quotient, within
** 2^-37 of the true one, never crosses an integer it does not reach (count < 2^16). */
static inline __m128i divide4(__m128i num, __m256d count)
{
    return _mm256_cvttpd_epi32(_mm256_div_pd(_mm256_cvtepi32_pd(num), count));
}

static void avg_s16(const pl_pool_window *w, const int16_t *x, int32_t lo, int32_t hi,
                    int16_t *out)
{
    const int32_t count = w->rows * w->cols;
    const __m256d dcount = _mm256_set1_pd((double)count);
    const __m256i half = _mm256_set1_epi32(count / 2), zero = _mm256_setzero_si256();
    int32_t c = 0;
    for (; w->depth - c >= 8; c += 8) {
        __m256i acc = zero;
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                acc = _mm256_add_epi32(acc, _mm256_cvtepi16_epi32(_mm_loadu_si128(
                                                (const __m128i *)(PL_POOL_TAP(x, w, r, k) + c))));
        __m256i pos = _mm256_cmpgt_epi32(acc, zero);
        __m256i num = _mm256_blendv_epi8(_mm256_sub_epi32(acc, half),
                                         _mm256_add_epi32(acc, half), pos);
        __m256i q = _mm256_set_m128i(divide4(_mm256_extracti128_si256(num, 1), dcount),
                                     divide4(_mm256_castsi256_si128(num), dcount));
        q = _mm256_min_epi32(_mm256_max_epi32(q, _mm256_set1_epi32(lo)), _mm256_set1_epi32(hi));
        __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(q),
                                        _mm256_extracti128_si256(q, 1));
        _mm_storeu_si128((__m128i *)(out + c), words);
    }
    pl_pool_avg_tail_s16(w, x, c, lo, hi, out);
}

static void max_f32(const pl_pool_window *w, const float *x, float lo, float hi, float *out)
{
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    int32_t c = 0;
    for (; w->depth - c >= 8; c += 8) {
        __m256 m = _mm256_set1_ps(-FLT_MAX);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++) /* MAXPS(x, m): m < x ? x : m */
                m = _mm256_max_ps(_mm256_loadu_ps(PL_POOL_TAP(x, w, r, k) + c), m);
        _mm256_storeu_ps(out + c, clamp_ps(m, vlo, vhi));
    }
    pl_pool_max_tail_f32(w, x, c, lo, hi, out);
}

static void avg_f32(const pl_pool_window *w, const float *x, float lo, float hi, float *out)
{
    const float count = (float)(w->rows * w->cols);
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    int32_t c = 0;
    for (; w->depth - c >= 8; c += 8) {
        __m256 t = _mm256_setzero_ps();
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                t = _mm256_add_ps(t, _mm256_loadu_ps(PL_POOL_TAP(x, w, r, k) + c));
        _mm256_storeu_ps(out + c, clamp_ps(_mm256_div_ps(t, _mm256_set1_ps(count)), vlo, vhi));
    }
    pl_pool_avg_tail_f32(w, x, c, lo, hi, out);
}

const pl_pool pl_pool_avx2 = {max_s8, avg_s8, max_s16, avg_s16, max_f32, avg_f32};
