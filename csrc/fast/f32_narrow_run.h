/* f32_narrow_run.h - the float32 matrix product's row loop for the narrow sets (SSE4.1,
** NEON), written once: MR rows at a time against each panel (a constant row count: the
** accumulators stay in registers), the last rows one by one. The includer defines NR, MR
** and block(rows, m0, k, a, lda, panel, bias, lo, hi, n0, n, out, ldo). */
static void run(int32_t m, int32_t n, int32_t k, const float *a, size_t lda,
                const void *packed, const float *bias, float act_min, float act_max,
                float *out, size_t ldo)
{
    for (int32_t m0 = 0; m0 < m; m0 += MR)
        for (int32_t n0 = 0; n0 < n; n0 += NR) {
            const float *panel = (const float *)packed + (size_t)n0 * (size_t)k;
            if (m - m0 >= MR)
                block(MR, m0, k, a, lda, panel, bias, act_min, act_max, n0, n, out, ldo);
            else
                for (int32_t r = m0; r < m; r++)
                    block(1, r, k, a, lda, panel, bias, act_min, act_max, n0, n, out, ldo);
        }
}
