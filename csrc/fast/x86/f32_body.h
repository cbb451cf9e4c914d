/* f32_body.h - the float32 matrix product's driver for the wide x86 sets, written once
** (exp_body.h's pattern). Each lane sums its channel's products in k order with a separate
** multiply and add (the includer is built with -ffp-contract=off; run), or with VFMADD for
** a target whose firmware fuses them (run_fused): the portable kernel's own rounding, bit
** for bit.
**
** The includer defines NR, MR (accumulators: rows x panels of a block) and ROWS (the rows of
** the main blocks when n spans more than one panel, each then against MR / ROWS panels; one
** panel takes MR rows) as an enum, vf (the float vector), PS(op) (its
** _mm*_<op>_ps intrinsic), lanes_t with lanes_of(channels left), and the tail's
** bias_of(bias or NULL, lanes: 0.0f past them and without a bias) and store(dst, v, lanes),
** as functions or macros (f32_avx512.c says why its are macros). */
#include "fast/f32_pack.h"
#include "fast/inline.h"

/* acc + x * w, the one step a fused target changes: fused (one rounding, as the firmware's
** VFMA) or a multiply and an add. */
PL_FAST_INLINE vf madd(vf acc, vf x, vf w, bool fused)
{
    return fused ? PS(fmadd)(x, w, acc) : PS(add)(acc, PS(mul)(x, w));
}

/* rows rows of a from row m0 on against `panels` panels from channel n0 on (rows * panels
** <= MR): + bias, clamp, store. A sum per row and panel, so that even one row keeps several
** adds in flight; each still sums its k in order. Row r's i-th value is a[r lda + i], or
** a[r lda + tap[i]] when `taps` (a convolution's windows read in place: no gathered rows). */
PL_FAST_INLINE void block(int32_t rows, int32_t panels, int32_t m0, int32_t k, const float *a,
                          size_t lda, const int32_t *tap, bool taps, const float *panel,
                          const float *bias, float lo, float hi, int32_t n0, int32_t n,
                          float *out, size_t ldo, bool fused)
{
    vf acc[MR];
    a += (size_t)m0 * lda;
    PL_FAST_UNROLL
    for (int32_t i = 0; i < MR; i++)
        acc[i] = PS(setzero)();
    for (int32_t i = 0; i < k; i++) {
        const float *ai = a + (taps ? (size_t)tap[i] : (size_t)i);
        PL_FAST_UNROLL
        for (int32_t j = 0; j < panels; j++) {
            vf w = PS(loadu)(panel + ((size_t)j * (size_t)k + (size_t)i) * NR);
            PL_FAST_UNROLL
            for (int32_t r = 0; r < rows; r++)
                acc[r * panels + j] = madd(acc[r * panels + j],
                                           PS(set1)(ai[(size_t)r * lda]), w, fused);
        }
    }
    PL_FAST_UNROLL
    for (int32_t j = 0; j < panels; j++) {
        int32_t c0 = n0 + j * NR;
        lanes_t lanes = lanes_of(n - c0);
        vf b = bias_of(bias != NULL ? bias + c0 : NULL, lanes);
        PL_FAST_UNROLL
        for (int32_t r = 0; r < rows; r++) {
            /* MAXPS/MINPS give their second operand when one is NaN, so NaN passes the clamp
            ** as in the reference */
            vf v = PS(add)(acc[r * panels + j], b);
            v = PS(min)(PS(set1)(hi), PS(max)(PS(set1)(lo), v));
            store(out + (size_t)(m0 + r) * ldo + (size_t)c0, v, lanes);
        }
    }
}

/* rows (a constant) rows from m0 on against every panel, MR / rows panels at a time. */
PL_FAST_INLINE void rows_by_panels(int32_t rows, int32_t m0, int32_t n, int32_t k,
                                  const float *a, size_t lda, const int32_t *tap, bool taps,
                                  const float *packed, const float *bias, float lo, float hi,
                                  float *out, size_t ldo, bool fused)
{
    const int32_t wide = MR / rows;
    int32_t n0 = 0;
    for (; n - n0 > (wide - 1) * NR; n0 += wide * NR)
        block(rows, wide, m0, k, a, lda, tap, taps, packed + (size_t)n0 * (size_t)k, bias, lo,
              hi, n0, n, out, ldo, fused);
    for (; n0 < n; n0 += NR)
        block(rows, 1, m0, k, a, lda, tap, taps, packed + (size_t)n0 * (size_t)k, bias, lo, hi,
              n0, n, out, ldo, fused);
}

PL_FAST_INLINE void run_any(int32_t m, int32_t n, int32_t k, const float *a, size_t lda,
                           const int32_t *tap, bool taps, const void *packed,
                           const float *bias, float lo, float hi, float *out, size_t ldo,
                           bool fused)
{
    int32_t m0 = 0;
    if (n > NR) /* several panels: fewer rows against each, so a broadcast feeds several */
        for (; m - m0 >= ROWS; m0 += ROWS)
            rows_by_panels(ROWS, m0, n, k, a, lda, tap, taps, packed, bias, lo, hi, out, ldo,
                           fused);
    for (; m - m0 >= MR; m0 += MR)
        rows_by_panels(MR, m0, n, k, a, lda, tap, taps, packed, bias, lo, hi, out, ldo, fused);
    /* the last rows (fewer than MR or ROWS: a small M is a fully connected layer's batch or
    ** a late layer's few pixels) in groups of 4, 2 and 1, each against several panels */
    for (; m - m0 >= 4; m0 += 4)
        rows_by_panels(4, m0, n, k, a, lda, tap, taps, packed, bias, lo, hi, out, ldo, fused);
    if (m - m0 >= 2) {
        rows_by_panels(2, m0, n, k, a, lda, tap, taps, packed, bias, lo, hi, out, ldo, fused);
        m0 += 2;
    }
    if (m > m0)
        rows_by_panels(1, m0, n, k, a, lda, tap, taps, packed, bias, lo, hi, out, ldo, fused);
}

static void run(int32_t m, int32_t n, int32_t k, const float *a, size_t lda,
                const void *packed, const float *bias, float act_min, float act_max,
                float *out, size_t ldo)
{
    run_any(m, n, k, a, lda, NULL, false, packed, bias, act_min, act_max, out, ldo, false);
}

static void run_fused(int32_t m, int32_t n, int32_t k, const float *a, size_t lda,
                      const void *packed, const float *bias, float act_min, float act_max,
                      float *out, size_t ldo)
{
    run_any(m, n, k, a, lda, NULL, false, packed, bias, act_min, act_max, out, ldo, true);
}

static void run_taps(int32_t m, int32_t n, int32_t k, const float *a, size_t lda,
                     const int32_t *tap, const void *packed, const float *bias, float act_min,
                     float act_max, float *out, size_t ldo)
{
    run_any(m, n, k, a, lda, tap, true, packed, bias, act_min, act_max, out, ldo, false);
}

static void run_taps_fused(int32_t m, int32_t n, int32_t k, const float *a, size_t lda,
                           const int32_t *tap, const void *packed, const float *bias,
                           float act_min, float act_max, float *out, size_t ldo)
{
    run_any(m, n, k, a, lda, tap, true, packed, bias, act_min, act_max, out, ldo, true);
}
