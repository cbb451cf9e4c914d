/* dw_rows_body.h - a depthwise row's outer loops, written once for every instruction set:
** each group of 16 channels, the row's points in passes of a constant count (the sums stay
** in registers), the last ones in passes of 4 and 2 (float: a short row's points still keep
** several sums in flight), then one by one. The includer defines either
**   float32: f32_points(job, n, in, c0, out, fused) and F32_POINTS, for f32_run (and, with
**   F32_FUSED, for f32_run_fused: a fused target's multiply-adds); or
**   16x8 (DW_ROWS_S16): points_at(job, n, in, g, c0, out, narrow) and S16_POINTS, for run,
**   whose narrow (the stage's multiply) is a constant chosen once per row. */
#ifndef DW_ROWS_S16
PL_FAST_INLINE void f32_run_any(const pl_dw_job *job, const float *in, int32_t points,
                               float *out, bool fused)
{
    for (int32_t c0 = 0; c0 < job->cp; c0 += 16) {
        int32_t pt = 0;
        for (; points - pt >= F32_POINTS; pt += F32_POINTS)
            f32_points(job, F32_POINTS, in + (size_t)pt * job->step, c0,
                       out + (size_t)pt * (size_t)job->channels, fused);
        if (F32_POINTS > 4 && points - pt >= 4) {
            f32_points(job, 4, in + (size_t)pt * job->step, c0,
                       out + (size_t)pt * (size_t)job->channels, fused);
            pt += 4;
        }
        if (F32_POINTS > 2 && points - pt >= 2) {
            f32_points(job, 2, in + (size_t)pt * job->step, c0,
                       out + (size_t)pt * (size_t)job->channels, fused);
            pt += 2;
        }
        for (; pt < points; pt++)
            f32_points(job, 1, in + (size_t)pt * job->step, c0,
                       out + (size_t)pt * (size_t)job->channels, fused);
    }
}

static void f32_run(const pl_dw_job *job, const float *in, int32_t points, float *out)
{
    f32_run_any(job, in, points, out, false);
}

#ifdef F32_FUSED
static void f32_run_fused(const pl_dw_job *job, const float *in, int32_t points, float *out)
{
    f32_run_any(job, in, points, out, true);
}
#endif
#else
PL_FAST_INLINE void rows(const pl_dw16_job *job, const int16_t *in, int32_t points,
                         int16_t *out, bool narrow)
{
    const uint8_t *g = job->packed;
    for (int32_t c0 = 0; c0 < job->cp; c0 += 16, g += pl_dw16_group_bytes(job->taps)) {
        int32_t pt = 0;
        for (; points - pt >= S16_POINTS; pt += S16_POINTS)
            points_at(job, S16_POINTS, in + (size_t)pt * job->step, g, c0,
                      out + (size_t)pt * (size_t)job->channels, narrow);
        for (; pt < points; pt++)
            points_at(job, 1, in + (size_t)pt * job->step, g, c0,
                      out + (size_t)pt * (size_t)job->channels, narrow);
    }
}

static void run(const pl_dw16_job *job, const int16_t *in, int32_t points, int16_t *out)
{
    if (job->narrow)
        rows(job, in, points, out, true);
    else
        rows(job, in, points, out, false);
}
#endif
