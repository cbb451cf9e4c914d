/* f32_narrow_run.h - the float32 matrix product's row loop for the narrow sets (SSE4.1,
** NEON), written once: MR rows at a time against each panel (a constant row count: the
** accumulators stay in registers), the last rows one by one. The includer defines NR, MR
** and block(rows, m0, k, a, lda, panel, bias, lo, hi, n0, n, out, ldo, fused), and
** F32_FUSED when its block can fuse (a fused target's run_fused; else there is none). */
PL_FAST_INLINE void run_any(int32_t m, int32_t n, int32_t k, const float *a, size_t lda,
                           const void *packed, const float *bias, float act_min,
                           float act_max, float *out, size_t ldo, bool fused)
{
    for (int32_t m0 = 0; m0 < m; m0 += MR)
        for (int32_t n0 = 0; n0 < n; n0 += NR) {
            const float *panel = (const float *)packed + (size_t)n0 * (size_t)k;
            if (m - m0 >= MR)
                block(MR, m0, k, a, lda, panel, bias, act_min, act_max, n0, n, out, ldo,
                      fused);
            else
                for (int32_t r = m0; r < m; r++)
                    block(1, r, k, a, lda, panel, bias, act_min, act_max, n0, n, out, ldo,
                          fused);
        }
}

static void run(int32_t m, int32_t n, int32_t k, const float *a, size_t lda,
                const void *packed, const float *bias, float act_min, float act_max,
                float *out, size_t ldo)
{
    run_any(m, n, k, a, lda, packed, bias, act_min, act_max, out, ldo, false);
}

#ifdef F32_FUSED
static void run_fused(int32_t m, int32_t n, int32_t k, const float *a, size_t lda,
                      const void *packed, const float *bias, float act_min, float act_max,
                      float *out, size_t ldo)
{
    run_any(m, n, k, a, lda, packed, bias, act_min, act_max, out, ldo, true);
}
#endif
