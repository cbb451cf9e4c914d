/* dw_s16_neon.c - the 16x8 depthwise rows with NEON (see depthwise16.h): the 16-channel
** groups of the x86 layout, whose weights come in (tap, tap + 1) pairs: two taps' staged
** values interleaved the same way (ZIP1/ZIP2) and SMLAL/SMLAL2 into two sums per channel
** pair (one product per int32 lane per pair of taps: at most 2^29, exact), added pairwise
** (ADDP) at the end, then the 64-bit stage (stage16_neon.h). */
#include <arm_neon.h>
#include <string.h>

#include "fast/arm/stage16_neon.h"
#include "fast/depthwise16.h"
#include "fast/inline.h"

enum { POINTS = 2 }; /* output points per pass: their sums stay in registers */

/* n (1..POINTS) points from in on, channels c0..c0+15 with their packed group g (narrow:
** job->narrow, a constant). */
PL_FAST_INLINE void points_at(const pl_dw16_job *job, int32_t n, const int16_t *in,
                              const uint8_t *g, int32_t c0, int16_t *out, bool narrow)
{
    int32x4_t a[POINTS][4], b[POINTS][4]; /* per channel: tap t's, tap t + 1's sums */
    PL_FAST_UNROLL
    for (int32_t r = 0; r < POINTS; r++)
        PL_FAST_UNROLL
        for (int32_t h = 0; h < 4; h++)
            a[r][h] = b[r][h] = vdupq_n_s32(0);
    const int16_t *w = (const int16_t *)(const void *)g;
    for (int32_t t = 0; t < job->taps; t += 2, w += 32) {
        int16x8_t wz[4] = {vld1q_s16(w), vld1q_s16(w + 8), vld1q_s16(w + 16),
                           vld1q_s16(w + 24)};
        const int16_t *x0 = in + job->tap_at[t] + c0, *x1 = in + job->tap_at[t + 1] + c0;
        PL_FAST_UNROLL
        for (int32_t r = 0; r < n; r++) {
            size_t at = (size_t)r * job->step;
            int16x8_t p0 = vld1q_s16(x0 + at), p1 = vld1q_s16(x0 + at + 8);
            int16x8_t q0 = vld1q_s16(x1 + at), q1 = vld1q_s16(x1 + at + 8);
            /* the layout's order: channels 0-3, 8-11, 4-7, 12-15 */
            int16x8_t z[4] = {vzip1q_s16(p0, q0), vzip1q_s16(p1, q1), vzip2q_s16(p0, q0),
                              vzip2q_s16(p1, q1)};
            PL_FAST_UNROLL
            for (int32_t h = 0; h < 4; h++) {
                a[r][h] = vmlal_s16(a[r][h], vget_low_s16(z[h]), vget_low_s16(wz[h]));
                b[r][h] = vmlal_high_s16(b[r][h], z[h], wz[h]);
            }
        }
    }
    /* bias, reduced multiplier, rounding, shift (int64, 16 each) follow the weights */
    const int64_t *arr = (const int64_t *)(const void *)w;
    const int32_t count = job->channels - c0 < 16 ? job->channels - c0 : 16;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < n; r++) {
        int16x4_t words[4];
        for (int32_t h = 0; h < 4; h++) {
            int32x4_t s = vpaddq_s32(a[r][h], b[r][h]);
            int32x4_t v = pl_stage64_neon(vmovl_s32(vget_low_s32(s)), vmovl_high_s32(s),
                                          arr + 4 * h, arr + 16 + 4 * h, arr + 32 + 4 * h,
                                          arr + 48 + 4 * h, narrow);
            words[h] = vqmovn_s32(pl_clamp_neon(v, job->out_offset, job->act_min,
                                                job->act_max));
        }
        int16_t tmp[16], *o = out + (size_t)r * (size_t)job->channels + c0;
        /* back into channel order */
        vst1q_s16(tmp, vcombine_s16(words[0], words[2]));
        vst1q_s16(tmp + 8, vcombine_s16(words[1], words[3]));
        memcpy(o, tmp, sizeof(int16_t) * (size_t)count);
    }
}

PL_FAST_INLINE void rows(const pl_dw16_job *job, const int16_t *in, int32_t points,
                         int16_t *out, bool narrow)
{
    const uint8_t *g = job->packed;
    for (int32_t c0 = 0; c0 < job->cp; c0 += 16, g += pl_dw16_group_bytes(job->taps)) {
        int32_t pt = 0;
        for (; points - pt >= POINTS; pt += POINTS) /* constant n: registers */
            points_at(job, POINTS, in + (size_t)pt * job->step, g, c0,
                      out + (size_t)pt * (size_t)job->channels, narrow);
        for (; pt < points; pt++)
            points_at(job, 1, in + (size_t)pt * job->step, g, c0,
                      out + (size_t)pt * (size_t)job->channels, narrow);
    }
}

static void run(const pl_dw16_job *job, const int16_t *in, int32_t points, int16_t *out)
{
    if (job->narrow) /* the stage's multiply chosen once per row */
        rows(job, in, points, out, true);
    else
        rows(job, in, points, out, false);
}

const pl_dw_s16 pl_dw_s16_neon = {run};
