/* s16_wide_run.h - the 16x8 matrix product's driver for the wide x86 sets (AVX2, AVX-512),
** written once: MR rows at a time against each panel, the last rows as one block of their
** constant count (the accumulators stay in registers and the panel is read once for them
** too). The includer defines NR, MR (at most 8) and block(rows, m0, kp, a, lda, panel, st,
** n0, n, out, sums, ldo) over int16 panels. */

/* A row count the switch below names, as a constant no larger than MR. */
#define S16_ROWS(c) ((c) < MR ? (c) : MR)

static void run(int32_t m, int32_t n, int32_t kp, const int16_t *a, size_t lda,
                const void *packed, const pl_s16_stage *st, int16_t *out, int64_t *sums,
                size_t ldo)
{
    for (int32_t m0 = 0; m0 < m; m0 += MR)
        for (int32_t n0 = 0; n0 < n; n0 += NR) {
            const int16_t *panel = (const int16_t *)packed + (size_t)n0 * (size_t)kp;
#define S16_BLOCK(c) block(S16_ROWS(c), m0, kp, a, lda, panel, st, n0, n, out, sums, ldo)
            switch (m - m0 >= MR ? MR : m - m0) {
            case 1: S16_BLOCK(1); break;
            case 2: S16_BLOCK(2); break;
            case 3: S16_BLOCK(3); break;
            case 4: S16_BLOCK(4); break;
            case 5: S16_BLOCK(5); break;
            case 6: S16_BLOCK(6); break;
            case 7: S16_BLOCK(7); break;
            default: S16_BLOCK(8);
            }
#undef S16_BLOCK
        }
}

#undef S16_ROWS
