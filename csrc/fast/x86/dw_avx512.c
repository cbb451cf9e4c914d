/* dw_avx512.c - the depthwise rows with AVX-512 (see depthwise.h). int8: two taps' staged
** int16 values interleaved and VPDPWSSD against the packed weight pairs, 32 channels per
** group (a last group of 16 with 256-bit vectors); float: 16 channels per vector, a multiply
** and an add per tap (built with -ffp-contract=off) or, for a fused target, VFMADD, the
** reference's order.
** Built with -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vnni -mfma; run only when the
** CPU has them. */
#include <immintrin.h>

#include "fast/depthwise.h"
#include "fast/x86/dw16_avx2.h"
#include "fast/x86/rescale_avx512.h"
#include "fast/x86/vnni_avx512.h"

enum { S8_POINTS = 4, F32_POINTS = 8 };

/* The tilted quick form's tilts of the 32-channel group g (its arrays follow the weights,
** taps / 2 pairs of two vectors: addend, mult, left, right, scale, limit, tilt, 32 each)
** and whether every channel takes it (no tilt below 0, gemm.h's pl_fast_s8_tilt_of). */
static bool group_tilts(const pl_dw_job *job, const uint8_t *g, __m512 tilt[2])
{
    const float *t = (const float *)(const void *)(g + (size_t)job->taps * 64) + 192;
    const __m512 zero = _mm512_setzero_ps();
    tilt[0] = _mm512_loadu_ps(t);
    tilt[1] = _mm512_loadu_ps(t + 16);
    return (_mm512_cmp_ps_mask(tilt[0], zero, _CMP_LT_OQ) |
            _mm512_cmp_ps_mask(tilt[1], zero, _CMP_LT_OQ)) == 0;
}

/* The exact form of 16 channels' stage (their arrays 32 entries apart: addend, mult, left,
** right), + the output offset; out of line where a quick form's vector needs it rarely. */
static inline __m512i s8_exact(__m512i acc, const int32_t *arr, int32_t out_offset)
{
    return _mm512_add_epi32(pl_rescale_avx512(acc, _mm512_loadu_si512(arr + 32),
                                              _mm512_loadu_si512(arr + 64),
                                              _mm512_loadu_si512(arr + 96)),
                            _mm512_set1_epi32(out_offset));
}

__attribute__((noinline, cold)) static __m512i s8_exact_cold(__m512i acc, const int32_t *arr,
                                                             int32_t out_offset)
{
    return s8_exact(acc, arr, out_offset);
}

/* n (1..S8_POINTS) points from in on, channels c0..c0+31 with their packed group g (fast:
** group_tilts' answer, tilt its tilts). The sums start at the addend (int32 adds wrap, so
** where it joins does not change them); the two halves' quick forms are tested at once. */
PL_FAST_INLINE void s8_points(const pl_dw_job *job, int32_t n, const int16_t *in,
                             const uint8_t *g, bool fast, const __m512 tilt[2], int32_t c0,
                             int8_t *out)
{
    /* after the weights: addend, mult, left, right, then the quick forms' scale, limit and
    ** tilt, 32 each */
    const int32_t *arr = (const int32_t *)(const void *)(g + (size_t)job->taps * 64);
    const float *scale = (const float *)(arr + 128);
    __m512i lo[S8_POINTS], hi[S8_POINTS];
    PL_FAST_UNROLL
    for (int32_t r = 0; r < S8_POINTS; r++) {
        lo[r] = _mm512_loadu_si512(arr);
        hi[r] = _mm512_loadu_si512(arr + 16);
    }
    const __m512i *w = (const __m512i *)g;
    for (int32_t t = 0; t < job->taps; t += 2, w += 2) {
        __m512i w_lo = _mm512_loadu_si512(w), w_hi = _mm512_loadu_si512(w + 1);
        const int16_t *x0 = in + job->tap_at[t] + c0, *x1 = in + job->tap_at[t + 1] + c0;
        PL_FAST_UNROLL
        for (int32_t r = 0; r < n; r++) {
            size_t at = (size_t)r * job->step;
            __m512i a = _mm512_loadu_si512(x0 + at), b = _mm512_loadu_si512(x1 + at);
            lo[r] = pl_dpwssd512(lo[r], _mm512_unpacklo_epi16(a, b), w_lo);
            hi[r] = pl_dpwssd512(hi[r], _mm512_unpackhi_epi16(a, b), w_hi);
        }
    }
    const int32_t count = job->channels - c0 < 32 ? job->channels - c0 : 32;
    const __mmask32 lanes = count == 32 ? 0xFFFFFFFFu : (__mmask32)((1u << count) - 1u);
    const __m512 offset = _mm512_set1_ps((float)job->out_offset);
    const __m512i act_min = _mm512_set1_epi32(job->act_min);
    const __m512i act_max = _mm512_set1_epi32(job->act_max);
    const bool clamp = job->act_min > INT8_MIN || job->act_max < INT8_MAX;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < n; r++) {
        __m512i vl, vh;
        if (!fast ||
            __builtin_expect(
                !_kortestz_mask16_u8(pl_quick16_tilted(lo[r], _mm512_loadu_ps(scale), tilt[0],
                                                       offset, &vl),
                                     pl_quick16_tilted(hi[r], _mm512_loadu_ps(scale + 16),
                                                       tilt[1], offset, &vh)),
                0)) {
            vl = s8_exact_cold(lo[r], arr, job->out_offset);
            vh = s8_exact_cold(hi[r], arr + 16, job->out_offset);
        }
        if (clamp) {
            vl = _mm512_min_epi32(_mm512_max_epi32(vl, act_min), act_max);
            vh = _mm512_min_epi32(_mm512_max_epi32(vh, act_min), act_max);
        }
        /* the halves' lanes interleave back into channel order; both narrowings saturate */
        __m256i bytes = _mm512_cvtsepi16_epi8(_mm512_packs_epi32(vl, vh));
        _mm256_mask_storeu_epi8(out + (size_t)r * (size_t)job->channels + c0, lanes, bytes);
    }
}

static void s8_run(const pl_dw_job *job, const int16_t *in, int32_t points, int8_t *out)
{
    const uint8_t *g = job->packed;
    int32_t c0 = 0;
    for (; job->cp - c0 >= 32; c0 += 32, g += pl_dw_s8_group_bytes(job->taps, 32)) {
        __m512 tilt[2];
        const bool fast = group_tilts(job, g, tilt);
        int32_t pt = 0;
        for (; points - pt >= S8_POINTS; pt += S8_POINTS) /* constant n: registers */
            s8_points(job, S8_POINTS, in + (size_t)pt * job->step, g, fast, tilt, c0,
                      out + (size_t)pt * (size_t)job->channels);
        for (; pt < points; pt++)
            s8_points(job, 1, in + (size_t)pt * job->step, g, fast, tilt, c0,
                      out + (size_t)pt * (size_t)job->channels);
    }
    if (c0 < job->cp)
        pl_dw16_s8_group(job, in, points, g, c0, out);
}

static void stage(const int8_t *s, int16_t *o, size_t cols, size_t cin, size_t cp, int16_t off)
{
    const __m512i voff = _mm512_set1_epi16(off);
    if (cin == cp) { /* the row is one run */
        cin *= cols;
        cols = 1;
    }
    for (size_t x = 0; x < cols; x++, s += cin, o += cp)
        for (size_t c = 0; c < cin; c += 32) {
            __mmask32 m = cin - c >= 32 ? 0xFFFFFFFFu : (__mmask32)((1u << (cin - c)) - 1u);
            __m512i v = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(m, s + c));
            _mm512_mask_storeu_epi16(o + c, m, _mm512_add_epi16(v, voff));
        }
}

/* acc + x * w, the one step a fused target changes: fused (one rounding, as the firmware's
** VFMA) or a multiply and an add. */
PL_FAST_INLINE __m512 madd(__m512 acc, __m512 x, __m512 w, bool fused)
{
    return fused ? _mm512_fmadd_ps(x, w, acc) : _mm512_add_ps(acc, _mm512_mul_ps(x, w));
}

/* n (1..F32_POINTS) points from in on, channels c0..c0+15. */
PL_FAST_INLINE void f32_points(const pl_dw_job *job, int32_t n, const float *in, int32_t c0,
                              float *out, bool fused)
{
    __m512 acc[F32_POINTS];
    PL_FAST_UNROLL
    for (int32_t r = 0; r < F32_POINTS; r++)
        acc[r] = _mm512_setzero_ps();
    const float *w = (const float *)job->packed + c0;
    for (int32_t t = 0; t < job->taps; t++, w += job->cp) {
        __m512 wv = _mm512_loadu_ps(w);
        const float *x = in + job->tap_at[t] + c0;
        PL_FAST_UNROLL
        for (int32_t r = 0; r < n; r++, x += job->step)
            acc[r] = madd(acc[r], _mm512_loadu_ps(x), wv, fused);
    }
    const __m512 lo = _mm512_set1_ps(job->act_lo), hi = _mm512_set1_ps(job->act_hi);
    const int32_t count = job->channels - c0 < 16 ? job->channels - c0 : 16;
    const __mmask16 lanes = (__mmask16)((1u << count) - 1u);
    const __m512 bias = _mm512_loadu_ps(w); /* w is at the bias now */
    PL_FAST_UNROLL
    for (int32_t r = 0; r < n; r++) {
        /* VMAXPS/VMINPS give their second operand on NaN or equal values: the reference's
        ** x < lo ? lo : x, then y > hi ? hi : y */
        __m512 y = _mm512_min_ps(hi, _mm512_max_ps(lo, _mm512_add_ps(acc[r], bias)));
        _mm512_mask_storeu_ps(out + (size_t)r * (size_t)job->channels + c0, lanes, y);
    }
}

#define F32_FUSED
#include "fast/dw_rows_body.h"

const pl_dw_s8 pl_dw_s8_avx512 = {32, s8_run, stage};
const pl_dw_f32 pl_dw_f32_avx512 = {f32_run, f32_run_fused};
