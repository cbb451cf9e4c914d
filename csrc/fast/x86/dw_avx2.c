/* dw_avx2.c - the depthwise rows with AVX2 (see depthwise.h). int8: two taps' staged int16
** values interleaved and VPMADDWD against the packed weight pairs, 16 channels per group;
** float: 8 channels per vector, a multiply and an add per tap (built with -ffp-contract=off)
** or, for a fused target, VFMADD, the reference's order. Built with -mavx2 -mfma; run only when the CPU has them. */
#include <immintrin.h>
#include <string.h>

#include "fast/depthwise.h"
#include "fast/x86/dw16_avx2.h"

enum { POINTS = 4 };

static void s8_run(const pl_dw_job *job, const int16_t *in, int32_t points, int8_t *out)
{
    const uint8_t *g = job->packed;
    for (int32_t c0 = 0; c0 < job->cp; c0 += 16, g += pl_dw_s8_group_bytes(job->taps, 16))
        pl_dw16_s8_group(job, in, points, g, c0, out);
}

static void stage(const int8_t *s, int16_t *o, size_t cols, size_t cin, size_t cp, int16_t off)
{
    const __m256i voff = _mm256_set1_epi16(off);
    if (cin == cp) { /* the row is one run */
        cin *= cols;
        cols = 1;
    }
    for (size_t x = 0; x < cols; x++, s += cin, o += cp) {
        size_t c = 0;
        for (; cin - c >= 16; c += 16) {
            __m256i v = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(s + c)));
            _mm256_storeu_si256((__m256i *)(o + c), _mm256_add_epi16(v, voff));
        }
        if (cin - c >= 8) {
            __m128i v = _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(s + c)));
            _mm_storeu_si128((__m128i *)(o + c), _mm_add_epi16(v, _mm256_castsi256_si128(voff)));
            c += 8;
        }
        for (; c < cin; c++)
            o[c] = (int16_t)(s[c] + off);
    }
}

/* acc + x * w, the one step a fused target changes: fused (one rounding, as the firmware's
** VFMA) or a multiply and an add. */
PL_FAST_INLINE __m256 madd(__m256 acc, __m256 x, __m256 w, bool fused)
{
    return fused ? _mm256_fmadd_ps(x, w, acc) : _mm256_add_ps(acc, _mm256_mul_ps(x, w));
}

/* n (1..POINTS) points from in on, channels c0..c0+15. */
PL_FAST_INLINE void f32_points(const pl_dw_job *job, int32_t n, const float *in, int32_t c0,
                              float *out, bool fused)
{
    __m256 acc[POINTS][2];
    PL_FAST_UNROLL
    for (int32_t r = 0; r < POINTS; r++)
        acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    const float *w = (const float *)job->packed + c0;
    for (int32_t t = 0; t < job->taps; t++, w += job->cp) {
        __m256 w0 = _mm256_loadu_ps(w), w1 = _mm256_loadu_ps(w + 8);
        const float *x = in + job->tap_at[t] + c0;
        PL_FAST_UNROLL
        for (int32_t r = 0; r < n; r++, x += job->step) {
            acc[r][0] = madd(acc[r][0], _mm256_loadu_ps(x), w0, fused);
            acc[r][1] = madd(acc[r][1], _mm256_loadu_ps(x + 8), w1, fused);
        }
    }
    const __m256 lo = _mm256_set1_ps(job->act_lo), hi = _mm256_set1_ps(job->act_hi);
    const int32_t count = job->channels - c0 < 16 ? job->channels - c0 : 16;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < n; r++) {
        float tmp[16], *o = out + (size_t)r * (size_t)job->channels + c0;
        float *dst = count == 16 ? o : tmp;
        for (int32_t v = 0; v < 2; v++) {
            /* w is at the bias now. MAXPS/MINPS give their second operand on NaN or equal
            ** values: the reference's x < lo ? lo : x, then y > hi ? hi : y */
            __m256 y = _mm256_add_ps(acc[r][v], _mm256_loadu_ps(w + 8 * v));
            _mm256_storeu_ps(dst + 8 * v, _mm256_min_ps(hi, _mm256_max_ps(lo, y)));
        }
        if (count < 16)
            memcpy(o, tmp, sizeof(float) * (size_t)count);
    }
}

#define F32_POINTS POINTS
#define F32_FUSED
#include "fast/dw_rows_body.h"

const pl_dw_s8 pl_dw_s8_avx2 = {16, s8_run, stage};
const pl_dw_f32 pl_dw_f32_avx2 = {f32_run, f32_run_fused};
