/* dw_neon.c - the depthwise rows with NEON (see depthwise.h). int8: the 16-channel groups
** of the x86 layout, whose weights come in (tap, tap + 1) pairs: two taps' staged int16
** values interleaved the same way (ZIP1/ZIP2) and SMLAL/SMLAL2 into two sums per channel
** pair, added pairwise (ADDP) at the end: exact. float: 16 channels in four vectors, FMUL
** then FADD per tap (built with -ffp-contract=off) or, for a fused target, FMLA, the
** reference's order. */
#include <arm_neon.h>
#include <string.h>

#include "fast/arm/dw_pairs_neon.h"
#include "fast/arm/s8_stage.h"
#include "fast/depthwise.h"
#include "fast/gemm.h"

enum { S8_POINTS = 2, F32_POINTS = 3 }; /* output points per pass: sums stay in registers */

/* n (1..S8_POINTS) points from in on, channels c0..c0+15 with their packed group g. The
** sums come in the layout's order: channels 0-3, 8-11, 4-7, 12-15. */
PL_FAST_INLINE void s8_points(const pl_dw_job *job, int32_t n, const int16_t *in,
                              const uint8_t *g, const pl_neon_stage *ns, int32_t c0,
                              int8_t *out)
{
    int32x4_t a[S8_POINTS][4], b[S8_POINTS][4]; /* per channel: tap t's, tap t + 1's sums */
    pl_dw_pairs_neon(job->taps, job->tap_at, job->step, n, in, c0,
                     (const int16_t *)(const void *)g, a, b);
    PL_FAST_UNROLL
    for (int32_t r = 0; r < n; r++) {
        /* pairs added; back into channel order */
        int32x4_t sums[4] = {vpaddq_s32(a[r][0], b[r][0]), vpaddq_s32(a[r][2], b[r][2]),
                             vpaddq_s32(a[r][1], b[r][1]), vpaddq_s32(a[r][3], b[r][3])};
        pl_neon_finish(sums, ns, c0, job->channels, out + (size_t)r * (size_t)job->channels,
                       NULL, 0);
    }
}

static void s8_run(const pl_dw_job *job, const int16_t *in, int32_t points, int8_t *out)
{
    const uint8_t *g = job->packed;
    for (int32_t c0 = 0; c0 < job->cp; c0 += 16, g += pl_dw_s8_group_bytes(job->taps, 16)) {
        const int32_t *arr = (const int32_t *)(const void *)(g + (size_t)job->taps / 2 * 64);
        /* no quick form on NEON: its exact stage only */
        const pl_s8_stage st = {arr, arr + 16, arr + 32, arr + 48, job->out_offset,
                                job->act_min, job->act_max, NULL, NULL, NULL};
        pl_neon_stage ns, order;
        pl_neon_stage_of(&st, 0, &ns);
        order = ns; /* the arrays' order (0-3, 8-11, 4-7, 12-15) to channel order */
        PL_FAST_UNROLL
        for (int32_t h = 0; h < 4; h++) {
            int32_t from = h == 1 ? 2 : h == 2 ? 1 : h;
            order.addend[h] = ns.addend[from];
            order.mult[h] = ns.mult[from];
            order.left[h] = ns.left[from];
            order.neg_right[h] = ns.neg_right[from];
        }
        int32_t pt = 0;
        for (; points - pt >= S8_POINTS; pt += S8_POINTS)
            s8_points(job, S8_POINTS, in + (size_t)pt * job->step, g, &order, c0,
                      out + (size_t)pt * (size_t)job->channels);
        for (; pt < points; pt++)
            s8_points(job, 1, in + (size_t)pt * job->step, g, &order, c0,
                      out + (size_t)pt * (size_t)job->channels);
    }
}

/* The reference's min(max(x, lo), hi) as it compares (x < lo ? lo : x, then y > hi ? hi :
** y): NaN passes, FMAX/FMIN's own rules never apply. */
static inline float32x4_t clamp(float32x4_t x, float32x4_t lo, float32x4_t hi)
{
    float32x4_t y = vbslq_f32(vcltq_f32(x, lo), lo, x);
    return vbslq_f32(vcgtq_f32(y, hi), hi, y);
}

/* acc + x * w, the one step a fused target changes: fused (one rounding, as the firmware's
** VFMA) or a multiply and an add. */
PL_FAST_INLINE float32x4_t madd(float32x4_t acc, float32x4_t x, float32x4_t w, bool fused)
{
    return fused ? vfmaq_f32(acc, x, w) : vaddq_f32(acc, vmulq_f32(x, w));
}

/* n (1..F32_POINTS) points from in on, channels c0..c0+15. */
PL_FAST_INLINE void f32_points(const pl_dw_job *job, int32_t n, const float *in, int32_t c0,
                               float *out, bool fused)
{
    float32x4_t acc[F32_POINTS][4];
    PL_FAST_UNROLL
    for (int32_t r = 0; r < F32_POINTS; r++)
        PL_FAST_UNROLL
        for (int32_t h = 0; h < 4; h++)
            acc[r][h] = vdupq_n_f32(0.0f);
    const float *w = (const float *)job->packed + c0;
    for (int32_t t = 0; t < job->taps; t++, w += job->cp) {
        float32x4_t wv[4] = {vld1q_f32(w), vld1q_f32(w + 4), vld1q_f32(w + 8),
                             vld1q_f32(w + 12)};
        const float *x = in + job->tap_at[t] + c0;
        PL_FAST_UNROLL
        for (int32_t r = 0; r < n; r++, x += job->step)
            PL_FAST_UNROLL
            for (int32_t h = 0; h < 4; h++)
                acc[r][h] = madd(acc[r][h], vld1q_f32(x + 4 * h), wv[h], fused);
    }
    const float32x4_t lo = vdupq_n_f32(job->act_lo), hi = vdupq_n_f32(job->act_hi);
    const int32_t count = job->channels - c0 < 16 ? job->channels - c0 : 16;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < n; r++) {
        float tmp[16], *o = out + (size_t)r * (size_t)job->channels + c0;
        PL_FAST_UNROLL
        for (int32_t h = 0; h < 4; h++) /* w is at the bias now */
            vst1q_f32(tmp + 4 * h, clamp(vaddq_f32(acc[r][h], vld1q_f32(w + 4 * h)), lo, hi));
        memcpy(o, tmp, sizeof(float) * (size_t)count);
    }
}

#define F32_FUSED
#include "fast/dw_rows_body.h"

const pl_dw_s8 pl_dw_s8_neon = {16, s8_run, NULL};
const pl_dw_f32 pl_dw_f32_neon = {f32_run, f32_run_fused};
