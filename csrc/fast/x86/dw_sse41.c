/* dw_sse41.c - the depthwise rows with SSE4.1 (see depthwise.h). int8: AVX2's 16-channel
** groups, each 256-bit half of a pair's weights (a lane of 8 channels) taken as two
** 128-bit vectors: two taps' staged int16 values interleaved (PUNPCKLWD/PUNPCKHWD) and
** PMADDWD against them; float: 16 channels in four vectors, a multiply and an add per tap
** (built with -ffp-contract=off), the reference's order. Built with -msse4.1; run only when
** the CPU has it. */
#include <smmintrin.h>
#include <string.h>

#include "fast/depthwise.h"
#include "fast/gemm.h"
#include "fast/x86/dw_pairs_sse41.h"
#include "fast/x86/rescale_sse41.h"

enum { POINTS = 2 }; /* output points per pass: their sums stay in registers */

/* A group's stage in the order of its sums: channels 0-3, 8-11 (the low halves of the
** two lanes), then 4-7, 12-15 (the high halves), as pack_s8 lays out the arrays. */
typedef struct group_stage {
    pl_sse41_quad q[4];
} group_stage;

/* n (1..POINTS) points from in on, channels c0..c0+15 with their packed group g. */
PL_FAST_INLINE void s8_points(const pl_dw_job *job, int32_t n, const int16_t *in,
                              const uint8_t *g, const group_stage *gs, int32_t c0, int8_t *out)
{
    __m128i acc[POINTS][4]; /* channels 0-3, 8-11, 4-7, 12-15 */
    pl_dw_pairs_sse41(job->taps, job->tap_at, job->step, n, in, c0,
                      (const __m128i *)g, acc);
    const int32_t count = job->channels - c0 < 16 ? job->channels - c0 : 16;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < n; r++) {
        __m128i v[4];
        for (int32_t h = 0; h < 4; h++)
            v[h] = pl_clamp_sse41(pl_rescale_sse41(acc[r][h], &gs->q[h]), job->out_offset,
                                  job->act_min, job->act_max);
        __m128i bytes = _mm_packs_epi16(_mm_packs_epi32(v[0], v[2]), _mm_packs_epi32(v[1], v[3]));
        int8_t tmp[16], *o = out + (size_t)r * (size_t)job->channels + c0;
        _mm_storeu_si128((__m128i *)tmp, bytes);
        memcpy(o, tmp, (size_t)count);
    }
}

static void s8_run(const pl_dw_job *job, const int16_t *in, int32_t points, int8_t *out)
{
    const uint8_t *g = job->packed;
    for (int32_t c0 = 0; c0 < job->cp; c0 += 16, g += pl_dw_s8_group_bytes(job->taps, 16)) {
        const int32_t *arr = (const int32_t *)(const void *)(g + (size_t)job->taps / 2 * 64);
        group_stage gs;
        for (int32_t h = 0; h < 4; h++)
            pl_sse41_quad_of(arr + 4 * h, arr + 16 + 4 * h, arr + 32 + 4 * h, arr + 48 + 4 * h,
                             &gs.q[h]);
        int32_t pt = 0;
        for (; points - pt >= POINTS; pt += POINTS)
            s8_points(job, POINTS, in + (size_t)pt * job->step, g, &gs, c0,
                      out + (size_t)pt * (size_t)job->channels);
        for (; pt < points; pt++)
            s8_points(job, 1, in + (size_t)pt * job->step, g, &gs, c0,
                      out + (size_t)pt * (size_t)job->channels);
    }
}

/* n (1..POINTS) points from in on, channels c0..c0+15. Never fused: SSE4.1 has no FMA (no
** f32_run_fused: a fused target's nodes take the portable kernel). */
PL_FAST_INLINE void f32_points(const pl_dw_job *job, int32_t n, const float *in, int32_t c0,
                               float *out, bool fused)
{
    (void)fused;
    __m128 acc[POINTS][4];
    PL_FAST_UNROLL
    for (int32_t r = 0; r < POINTS; r++)
        acc[r][0] = acc[r][1] = acc[r][2] = acc[r][3] = _mm_setzero_ps();
    const float *w = (const float *)job->packed + c0;
    for (int32_t t = 0; t < job->taps; t++, w += job->cp) {
        __m128 w0 = _mm_loadu_ps(w), w1 = _mm_loadu_ps(w + 4), w2 = _mm_loadu_ps(w + 8),
               w3 = _mm_loadu_ps(w + 12);
        const float *x = in + job->tap_at[t] + c0;
        PL_FAST_UNROLL
        for (int32_t r = 0; r < n; r++, x += job->step) {
            acc[r][0] = _mm_add_ps(acc[r][0], _mm_mul_ps(_mm_loadu_ps(x), w0));
            acc[r][1] = _mm_add_ps(acc[r][1], _mm_mul_ps(_mm_loadu_ps(x + 4), w1));
            acc[r][2] = _mm_add_ps(acc[r][2], _mm_mul_ps(_mm_loadu_ps(x + 8), w2));
            acc[r][3] = _mm_add_ps(acc[r][3], _mm_mul_ps(_mm_loadu_ps(x + 12), w3));
        }
    }
    const __m128 lo = _mm_set1_ps(job->act_lo), hi = _mm_set1_ps(job->act_hi);
    const int32_t count = job->channels - c0 < 16 ? job->channels - c0 : 16;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < n; r++) {
        float tmp[16], *o = out + (size_t)r * (size_t)job->channels + c0;
        for (int32_t v = 0; v < 4; v++) {
            /* w is at the bias now. MAXPS/MINPS give their second operand on NaN or equal
            ** values: the reference's x < lo ? lo : x, then y > hi ? hi : y */
            __m128 y = _mm_add_ps(acc[r][v], _mm_loadu_ps(w + 4 * v));
            _mm_storeu_ps(tmp + 4 * v, _mm_min_ps(hi, _mm_max_ps(lo, y)));
        }
        memcpy(o, tmp, sizeof(float) * (size_t)count);
    }
}

#define F32_POINTS POINTS
#include "fast/dw_rows_body.h"

const pl_dw_s8 pl_dw_s8_sse41 = {16, s8_run, NULL};
const pl_dw_f32 pl_dw_f32_sse41 = {f32_run, NULL};
