/* gemm_panels_body.h - the integer matrix products' driver for the narrow sets (SSE4.1 and
** NEON, int8 and 16x8), written once: panel by panel, the panel's output stage built once,
** then MR rows at a time (a constant count: the accumulators stay in registers), the last
** rows one by one.
**
** The includer defines NR and MR (an enum), panel_t (the packed entries), panel_stage with
** stage_of(st, n0, &ps), block(rows, m0, kp, a, lda, panel, ps or NULL, n0, n, out, raw,
** ldo), optionally PANEL_AT(packed, n0, kp) (else panels of NR * kp entries), and
** PL_GEMM_S16 for the 16x8 product's types (else int8's). */
#ifdef PL_GEMM_S16
typedef int16_t gemm_in;
typedef int16_t gemm_out;
typedef int64_t gemm_raw;
typedef pl_s16_stage gemm_stage;
#else
typedef uint8_t gemm_in;
typedef int8_t gemm_out;
typedef int32_t gemm_raw;
typedef pl_s8_stage gemm_stage;
#endif

#ifndef PANEL_AT
#define PANEL_AT(packed, n0, kp) ((const panel_t *)(packed) + (size_t)(n0) * (size_t)(kp))
#endif

static void run(int32_t m, int32_t n, int32_t kp, const gemm_in *a, size_t lda,
                const void *packed, const gemm_stage *st, gemm_out *out, gemm_raw *raw,
                size_t ldo)
{
    for (int32_t n0 = 0; n0 < n; n0 += NR) {
        const panel_t *panel = PANEL_AT(packed, n0, kp);
        panel_stage ps;
        if (st != NULL)
            stage_of(st, n0, &ps);
        const panel_stage *use = st != NULL ? &ps : NULL;
        for (int32_t m0 = 0; m0 < m; m0 += MR) {
            if (m - m0 >= MR)
                block(MR, m0, kp, a, lda, panel, use, n0, n, out, raw, ldo);
            else
                for (int32_t r = m0; r < m; r++)
                    block(1, r, kp, a, lda, panel, use, n0, n, out, raw, ldo);
        }
    }
}
