/* s8_wide_body.h - the int8 matrix product's driver for the wide x86 sets (AVX2, AVX-512),
** written once (exp_body.h's pattern): blocks of rows against several panels at once.
**
** The includer defines NR and MR (an enum), panel_t (the packed entries, NR * 4 per group
** of 4 k), the accumulator vi starting at vi_start(st, n0) (channels n0..'s addend, zero for
** raw sums: int32 adds wrap, so where the addend joins does not change the sum; the stage
** then has one operation less per vector) and added by vi_add, a row's 4 inputs
** xin = x_of(bytes), a panel's 4 k of weights wts = w_of(entries), acc = mac(acc, xin, wts), a panel's output stage
** stage_t = stage_of(st, n0) (st may be NULL: raw sums) and finish(acc, &stage, st, n0, n,
** out, raw, row); defining PL_S8_FINISH_PAIRS, also finish_pair(acc, acc_next, &stage,
** &stage_next, st, n0, n, out, raw, row) for two panels of a row.
**
** taps (a constant, so each driver is compiled twice): row r's k-th byte lies at
** win->origin[r][win->tap[k]] (run_taps: a convolution's windows where they lie), else at
** a[r lda + k]. */
#include <stdbool.h>

#include "fast/gemm.h"
#include "fast/inline.h"

/* One step of 4 k (from k on) of a block: chain c of every sum (block's acc layout). */
PL_FAST_INLINE void k_step(bool taps, const pl_s8_windows *win, const uint8_t *const *origin,
                           int32_t rows, int32_t panels, int32_t split, int32_t c, int32_t k,
                           int32_t kp, const uint8_t *a, size_t lda, const panel_t *panel,
                           vi *acc)
{
    const size_t tap = taps ? (size_t)win->tap[k] : 0;
    xin x[MR];
    PL_FAST_UNROLL
    for (int32_t r = 0; r < rows; r++)
        x[r] = x_of(taps ? origin[r] + tap : a + (size_t)r * lda + (size_t)k);
    PL_FAST_UNROLL
    for (int32_t j = 0; j < panels; j++) {
        wts w = w_of(panel + ((size_t)j * (size_t)kp + (size_t)k) * NR);
        PL_FAST_UNROLL
        for (int32_t r = 0; r < rows; r++) {
            vi *sum = &acc[(r * panels + j) * split + c];
            *sum = mac(*sum, x[r], w);
        }
    }
}

/* rows rows of a from row m0 on against `panels` panels from channel n0 on (rows * panels
** <= MR): a sum per row and panel, so that even one row keeps several products in flight. */
PL_FAST_INLINE void block(bool taps, const pl_s8_windows *win, int32_t rows, int32_t panels,
                          int32_t m0, int32_t kp, const uint8_t *a, size_t lda,
                          const panel_t *panel,
                          const pl_s8_stage *st, int32_t n0, int32_t n, int8_t *out,
                          int32_t *raw, size_t ldo)
{
    /* A block of fewer than 4 sums (a fully connected layer's one row against one panel)
    ** would wait on its one chain of multiply-adds (4-5 cycles each): its k steps go round
    ** `split` chains instead, summed at the end (int32 adds wrap: the same sums). */
    const int32_t sums = rows * panels, split = sums >= 4 ? 1 : 4 / sums;
    vi acc[MR];
    if (!taps) /* with taps, a is NULL */
        a += (size_t)m0 * lda;
    const uint8_t *origin[MR];
    if (taps) {
        PL_FAST_UNROLL
        for (int32_t r = 0; r < rows; r++)
            origin[r] = win->origin[m0 + r];
    }
    PL_FAST_UNROLL
    for (int32_t j = 0; j < panels; j++) {
        const vi start = vi_start(st, n0 + j * NR);
        PL_FAST_UNROLL
        for (int32_t r = 0; r < rows; r++) {
            acc[(r * panels + j) * split] = start;
            PL_FAST_UNROLL
            for (int32_t c = 1; c < split; c++)
                acc[(r * panels + j) * split + c] = vi_start(NULL, 0);
        }
    }
    int32_t k = 0;
    for (; k + 4 * split <= kp; k += 4 * split)
        PL_FAST_UNROLL
        for (int32_t c = 0; c < split; c++)
            k_step(taps, win, origin, rows, panels, split, c, k + 4 * c, kp, a, lda, panel, acc);
    for (; k < kp; k += 4)
        k_step(taps, win, origin, rows, panels, split, 0, k, kp, a, lda, panel, acc);
    PL_FAST_UNROLL
    for (int32_t i = 0; i < sums; i++)
        PL_FAST_UNROLL
        for (int32_t c = 1; c < split; c++)
            acc[i * split] = vi_add(acc[i * split], acc[i * split + c]);
    if (split > 1)
        PL_FAST_UNROLL
        for (int32_t i = 1; i < sums; i++)
            acc[i] = acc[i * split];
    stage_t s[MR]; /* once per panel, not per row */
    PL_FAST_UNROLL
    for (int32_t j = 0; j < panels; j++)
        s[j] = stage_of(st, n0 + j * NR);
    PL_FAST_UNROLL
    for (int32_t r = 0; r < rows; r++) {
        const size_t row = (size_t)(m0 + r) * ldo;
        int32_t j = 0;
#if defined(PL_S8_FINISH_PAIRS)
        PL_FAST_UNROLL
        for (; j + 1 < panels; j += 2)
            finish_pair(acc[r * panels + j], acc[r * panels + j + 1], &s[j], &s[j + 1], st,
                        n0 + j * NR, n, out, raw, row);
#endif
        PL_FAST_UNROLL
        for (; j < panels; j++)
            finish(acc[r * panels + j], &s[j], st, n0 + j * NR, n, out, raw, row);
    }
}

/* rows (a constant) rows from m0 on against every panel, MR / rows panels at a time. */
PL_FAST_INLINE void rows_by_panels(bool taps, const pl_s8_windows *win, int32_t rows, int32_t m0,
                                   int32_t n, int32_t kp, const uint8_t *a, size_t lda,
                                   const panel_t *packed, const pl_s8_stage *st, int8_t *out,
                                   int32_t *raw, size_t ldo)
{
    const int32_t wide = MR / rows;
    int32_t n0 = 0;
    for (; n - n0 > (wide - 1) * NR; n0 += wide * NR)
        block(taps, win, rows, wide, m0, kp, a, lda, packed + (size_t)n0 * (size_t)kp, st, n0,
              n, out, raw, ldo);
    for (; n0 < n; n0 += NR)
        block(taps, win, rows, 1, m0, kp, a, lda, packed + (size_t)n0 * (size_t)kp, st, n0, n,
              out, raw, ldo);
}

PL_FAST_INLINE void run_any(bool taps, const pl_s8_windows *win, int32_t m, int32_t n, int32_t kp,
                            const uint8_t *a, size_t lda, const void *packed,
                            const pl_s8_stage *st, int8_t *out, int32_t *raw, size_t ldo)
{
    int32_t m0 = 0;
    if (n > NR) /* several panels: fewer rows against each, so a broadcast feeds several */
        for (; m - m0 >= ROWS; m0 += ROWS)
            rows_by_panels(taps, win, ROWS, m0, n, kp, a, lda, packed, st, out, raw, ldo);
    for (; m - m0 >= MR; m0 += MR)
        rows_by_panels(taps, win, MR, m0, n, kp, a, lda, packed, st, out, raw, ldo);
    /* the last rows (fewer than MR or ROWS: a small M is a fully connected layer's batch or
    ** a late layer's few pixels) in groups of 4, 2 and 1, each against several panels */
    for (; m - m0 >= 4; m0 += 4)
        rows_by_panels(taps, win, 4, m0, n, kp, a, lda, packed, st, out, raw, ldo);
    if (m - m0 >= 2) {
        rows_by_panels(taps, win, 2, m0, n, kp, a, lda, packed, st, out, raw, ldo);
        m0 += 2;
    }
    if (m > m0)
        rows_by_panels(taps, win, 1, m0, n, kp, a, lda, packed, st, out, raw, ldo);
}

static void run(int32_t m, int32_t n, int32_t kp, const uint8_t *a, size_t lda,
                const void *packed, const pl_s8_stage *st, int8_t *out, int32_t *raw,
                size_t ldo)
{
    run_any(false, NULL, m, n, kp, a, lda, packed, st, out, raw, ldo);
}

static void run_taps(int32_t m, int32_t n, int32_t kp, const pl_s8_windows *win,
                     const void *packed, const pl_s8_stage *st, int8_t *out, int32_t *raw,
                     size_t ldo)
{
    run_any(true, win, m, n, kp, NULL, 0, packed, st, out, raw, ldo);
}
