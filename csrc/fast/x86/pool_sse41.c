/* pool_sse41.c - the pooling windows with SSE4.1 (see pool.h): int8 maxima 16 channels per vector
** (then 8), int16 maxima 8 (then 4), int8 and int16 sums 4 per vector in int32 lanes, floats 4 per
** vector; channels past the last whole vector one at a time with the reference's scalar
** arithmetic. Built with -msse4.1 (and -ffp-contract=off); run only when the CPU has it. */
#include <float.h>
#include <smmintrin.h>
#include <string.h>

#include "fast/pool_tail.h"

/* The sums + count / 2 away from zero: the numerators of the rounded averages. */
static inline __m128i numerators(__m128i acc, __m128i half)
{
    __m128i pos = _mm_cmpgt_epi32(acc, _mm_setzero_si128());
    return _mm_blendv_epi8(_mm_sub_epi32(acc, half), _mm_add_epi32(acc, half), pos);
}

/* MAXPS/MINPS give their second operand on NaN or equal values, so min(hi, max(lo, v)) is
** the reference's clamp. */
static inline __m128 clamp_ps(__m128 v, __m128 lo, __m128 hi)
{
    return _mm_min_ps(hi, _mm_max_ps(lo, v));
}

static void max_s8(const pl_pool_window *w, const int8_t *x, int32_t lo, int32_t hi,
                   int8_t *out)
{
    int32_t c = 0;
    for (; w->depth - c >= 16; c += 16) {
        __m128i m = _mm_set1_epi8(INT8_MIN);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                m = _mm_max_epi8(m, _mm_loadu_si128(
                           (const __m128i *)(PL_POOL_TAP(x, w, r, k) + c)));
        m = _mm_min_epi8(_mm_max_epi8(m, _mm_set1_epi8((int8_t)lo)), _mm_set1_epi8((int8_t)hi));
        _mm_storeu_si128((__m128i *)(out + c), m);
    }
    if (w->depth - c >= 8) { /* half a vector: 8 channels are common in small nets */
        __m128i m = _mm_set1_epi8(INT8_MIN);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                m = _mm_max_epi8(m, _mm_loadl_epi64(
                           (const __m128i *)(PL_POOL_TAP(x, w, r, k) + c)));
        m = _mm_min_epi8(_mm_max_epi8(m, _mm_set1_epi8((int8_t)lo)), _mm_set1_epi8((int8_t)hi));
        _mm_storel_epi64((__m128i *)(out + c), m);
        c += 8;
    }
    pl_pool_max_tail_s8(w, x, c, lo, hi, out);
}

static void avg_s8(const pl_pool_window *w, const int8_t *x, int32_t lo, int32_t hi,
                   int8_t *out)
{
    const int32_t count = w->rows * w->cols;
    /* |sum| + count / 2 < 2^24 and the quotient below 256: the float division truncates to
    ** the exact integer quotient (pool.c limits count) */
    const __m128 fcount = _mm_set1_ps((float)count);
    const __m128i half = _mm_set1_epi32(count / 2);
    int32_t c = 0;
    for (; w->depth - c >= 4; c += 4) {
        __m128i acc = _mm_setzero_si128();
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++) {
                int32_t v;
                memcpy(&v, PL_POOL_TAP(x, w, r, k) + c, sizeof v);
                acc = _mm_add_epi32(acc, _mm_cvtepi8_epi32(_mm_cvtsi32_si128(v)));
            }
        __m128 num = _mm_cvtepi32_ps(numerators(acc, half));
        __m128i q = _mm_cvttps_epi32(_mm_div_ps(num, fcount));
        q = _mm_min_epi32(_mm_max_epi32(q, _mm_set1_epi32(lo)), _mm_set1_epi32(hi));
        __m128i words = _mm_packs_epi32(q, q);
        int32_t bytes = _mm_cvtsi128_si32(_mm_packs_epi16(words, words));
        memcpy(out + c, &bytes, sizeof bytes);
    }
    pl_pool_avg_tail_s8(w, x, c, lo, hi, out);
}

static void max_s16(const pl_pool_window *w, const int16_t *x, int32_t lo, int32_t hi,
                    int16_t *out)
{
    int32_t c = 0;
    for (; w->depth - c >= 8; c += 8) {
        __m128i m = _mm_set1_epi16(INT16_MIN);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                m = _mm_max_epi16(m, _mm_loadu_si128(
                           (const __m128i *)(PL_POOL_TAP(x, w, r, k) + c)));
        m = _mm_min_epi16(_mm_max_epi16(m, _mm_set1_epi16((int16_t)lo)),
                          _mm_set1_epi16((int16_t)hi));
        _mm_storeu_si128((__m128i *)(out + c), m);
    }
    if (w->depth - c >= 4) { /* half a vector */
        __m128i m = _mm_set1_epi16(INT16_MIN);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                m = _mm_max_epi16(m, _mm_loadl_epi64(
                           (const __m128i *)(PL_POOL_TAP(x, w, r, k) + c)));
        m = _mm_min_epi16(_mm_max_epi16(m, _mm_set1_epi16((int16_t)lo)),
                          _mm_set1_epi16((int16_t)hi));
        _mm_storel_epi64((__m128i *)(out + c), m);
        c += 4;
    }
    pl_pool_max_tail_s16(w, x, c, lo, hi, out);
}

/* 2 lanes of num / count truncated: in double both are exact and the quotient, within
** 2^-37 of the true one, never crosses an integer it does not reach (count < 2^16). */
static inline __m128i divide2(__m128i num, __m128d count)
{
    return _mm_cvttpd_epi32(_mm_div_pd(_mm_cvtepi32_pd(num), count));
}

static void avg_s16(const pl_pool_window *w, const int16_t *x, int32_t lo, int32_t hi,
                    int16_t *out)
{
    const int32_t count = w->rows * w->cols;
    const __m128d dcount = _mm_set1_pd((double)count);
    const __m128i half = _mm_set1_epi32(count / 2);
    int32_t c = 0;
    for (; w->depth - c >= 4; c += 4) {
        __m128i acc = _mm_setzero_si128();
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                acc = _mm_add_epi32(acc, _mm_cvtepi16_epi32(_mm_loadl_epi64(
                                             (const __m128i *)(PL_POOL_TAP(x, w, r, k) + c))));
        __m128i num = numerators(acc, half);
        __m128i q = _mm_unpacklo_epi64(divide2(num, dcount),
                                       divide2(_mm_srli_si128(num, 8), dcount));
        q = _mm_min_epi32(_mm_max_epi32(q, _mm_set1_epi32(lo)), _mm_set1_epi32(hi));
        _mm_storel_epi64((__m128i *)(out + c), _mm_packs_epi32(q, q));
    }
    pl_pool_avg_tail_s16(w, x, c, lo, hi, out);
}

static void max_f32(const pl_pool_window *w, const float *x, float lo, float hi, float *out)
{
    const __m128 vlo = _mm_set1_ps(lo), vhi = _mm_set1_ps(hi);
    int32_t c = 0;
    for (; w->depth - c >= 4; c += 4) {
        __m128 m = _mm_set1_ps(-FLT_MAX);
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++) /* MAXPS(x, m): m < x ? x : m */
                m = _mm_max_ps(_mm_loadu_ps(PL_POOL_TAP(x, w, r, k) + c), m);
        _mm_storeu_ps(out + c, clamp_ps(m, vlo, vhi));
    }
    pl_pool_max_tail_f32(w, x, c, lo, hi, out);
}

static void avg_f32(const pl_pool_window *w, const float *x, float lo, float hi, float *out)
{
    const float count = (float)(w->rows * w->cols);
    const __m128 vlo = _mm_set1_ps(lo), vhi = _mm_set1_ps(hi), vcount = _mm_set1_ps(count);
    int32_t c = 0;
    for (; w->depth - c >= 4; c += 4) {
        __m128 t = _mm_setzero_ps();
        for (int32_t r = 0; r < w->rows; r++)
            for (int32_t k = 0; k < w->cols; k++)
                t = _mm_add_ps(t, _mm_loadu_ps(PL_POOL_TAP(x, w, r, k) + c));
        _mm_storeu_ps(out + c, clamp_ps(_mm_div_ps(t, vcount), vlo, vhi));
    }
    pl_pool_avg_tail_f32(w, x, c, lo, hi, out);
}

const pl_pool pl_pool_sse41 = {max_s8, avg_s8, max_s16, avg_s16, max_f32, avg_f32};
