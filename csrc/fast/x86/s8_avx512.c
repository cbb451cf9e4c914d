/* s8_avx512.c - the int8 matrix product with AVX-512 VNNI (VPDPBUSD: four unsigned-by-
** signed byte products summed into each int32 lane), 16 output channels per vector.
** Built with -mavx512f -mavx512bw -mavx512vl -mavx512vnni; run only when the CPU has them. */
#include <immintrin.h>

#include "fast/gemm.h"
#include "fast/inline.h"
#include "fast/x86/rescale_avx512.h"

enum { NR = 16, MR = 8 };

/* Panels of 16 channels; per group of 4 k, 16 x 4 bytes: channel j's w[k..k+3]. */
static size_t packed_bytes(int32_t n, int32_t kp)
{
    return (size_t)pl_fast_round_up(n, NR) * (size_t)kp;
}

static void pack(const int8_t *w, int32_t n, int32_t k, int32_t kp, void *packed)
{
    int8_t *p = packed;
    for (int32_t n0 = 0; n0 < n; n0 += NR)
        for (int32_t k0 = 0; k0 < kp; k0 += 4)
            for (int32_t j = 0; j < NR; j++)
                for (int32_t q = 0; q < 4; q++, p++) {
                    int32_t c = n0 + j, i = k0 + q;
                    *p = c < n && i < k ? w[(size_t)c * (size_t)k + (size_t)i] : 0;
                }
}

/* Row `row` of the output (out or raw, the other NULL), channels n0.. of n. */
static inline void finish(__m512i acc, const pl_s8_stage *st, int32_t n0, int32_t n,
                          int8_t *out, int32_t *raw, size_t row)
{
    __mmask16 lanes = n - n0 >= NR ? 0xFFFF : (__mmask16)((1u << (n - n0)) - 1u);
    if (st == NULL) {
        _mm512_mask_storeu_epi32(raw + row + (size_t)n0, lanes, acc);
        return;
    }
    acc = pl_stage_avx512(acc, st->addend + n0, st->mult + n0, st->left + n0,
                          st->right + n0, st->out_offset, st->act_min, st->act_max);
    _mm_mask_storeu_epi8(out + row + (size_t)n0, lanes, _mm512_cvtepi32_epi8(acc));
}

/* rows rows of a from row m0 on against `panels` panels from channel n0 on (rows * panels
** <= MR): a sum per row and panel, so that even one row keeps several VPDPBUSD in flight. */
PL_FAST_INLINE void block(int32_t rows, int32_t panels, int32_t m0, int32_t kp,
                         const uint8_t *a, size_t lda, const int8_t *panel,
                         const pl_s8_stage *st, int32_t n0, int32_t n, int8_t *out,
                         int32_t *raw, size_t ldo)
{
    __m512i acc[MR];
    a += (size_t)m0 * lda;
    PL_FAST_UNROLL
    for (int32_t i = 0; i < MR; i++)
        acc[i] = _mm512_setzero_si512();
    for (int32_t k = 0; k < kp; k += 4) {
        __m512i x[MR];
        PL_FAST_UNROLL
        for (int32_t r = 0; r < rows; r++) {
            int32_t bytes;
            __builtin_memcpy(&bytes, a + (size_t)r * lda + (size_t)k, 4);
            x[r] = _mm512_set1_epi32(bytes);
        }
        PL_FAST_UNROLL
        for (int32_t j = 0; j < panels; j++) {
            __m512i w = _mm512_loadu_si512(panel + ((size_t)j * (size_t)kp + (size_t)k) * NR);
            PL_FAST_UNROLL
            for (int32_t r = 0; r < rows; r++)
                acc[r * panels + j] = _mm512_dpbusd_epi32(acc[r * panels + j], x[r], w);
        }
    }
    PL_FAST_UNROLL
    for (int32_t r = 0; r < rows; r++)
        PL_FAST_UNROLL
        for (int32_t j = 0; j < panels; j++)
            finish(acc[r * panels + j], st, n0 + j * NR, n, out, raw, (size_t)(m0 + r) * ldo);
}

/* rows (a constant) rows from m0 on against every panel, MR / rows panels at a time. */
PL_FAST_INLINE void rows_by_panels(int32_t rows, int32_t m0, int32_t n, int32_t kp,
                                  const uint8_t *a, size_t lda, const int8_t *packed,
                                  const pl_s8_stage *st, int8_t *out, int32_t *raw, size_t ldo)
{
    const int32_t wide = MR / rows;
    int32_t n0 = 0;
    for (; n - n0 > (wide - 1) * NR; n0 += wide * NR)
        block(rows, wide, m0, kp, a, lda, packed + (size_t)n0 * (size_t)kp, st, n0, n, out,
              raw, ldo);
    for (; n0 < n; n0 += NR)
        block(rows, 1, m0, kp, a, lda, packed + (size_t)n0 * (size_t)kp, st, n0, n, out, raw,
              ldo);
}

static void run(int32_t m, int32_t n, int32_t kp, const uint8_t *a, size_t lda,
                const void *packed, const pl_s8_stage *st, int8_t *out, int32_t *raw,
                size_t ldo)
{
    int32_t m0 = 0;
    for (; m - m0 >= MR; m0 += MR)
        rows_by_panels(MR, m0, n, kp, a, lda, packed, st, out, raw, ldo);
    /* the last rows (fewer than MR: a small M is a fully connected layer's batch or a late
    ** layer's few pixels) in groups of 4, 2 and 1, each against several panels at once */
    if (m - m0 >= 4) {
        rows_by_panels(4, m0, n, kp, a, lda, packed, st, out, raw, ldo);
        m0 += 4;
    }
    if (m - m0 >= 2) {
        rows_by_panels(2, m0, n, kp, a, lda, packed, st, out, raw, ldo);
        m0 += 2;
    }
    if (m > m0)
        rows_by_panels(1, m0, n, kp, a, lda, packed, st, out, raw, ldo);
}

/* 8 units per step in double lanes, the last ones masked (their lanes compute zeros). */
static void fc_output(const pl_fc_output *o, const int32_t *sums, int32_t n, int8_t *out)
{
    const __m512d half = _mm512_set1_pd(0.5), one = _mm512_set1_pd(1.0);
    const __m512d off = _mm512_set1_pd((double)o->p->output_offset);
    const __m512d lo = _mm512_set1_pd((double)o->p->act_min);
    const __m512d hi = _mm512_set1_pd((double)o->p->act_max);
    for (int32_t u = 0; u < n; u += 8) {
        __mmask8 m = n - u >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (n - u)) - 1u);
        __m256i acc = _mm256_add_epi32(_mm256_maskz_loadu_epi32(m, sums + u),
                                       _mm256_maskz_loadu_epi32(m, o->fold + u));
        if (o->bias != NULL)
            acc = _mm256_add_epi32(acc, _mm256_maskz_loadu_epi32(m, o->bias + u));
        __m512d x = _mm512_mul_pd(_mm512_cvtepi32_pd(acc), _mm512_maskz_loadu_pd(m, o->scale + u));
        /* half away from zero: truncated, then one step where the rest reaches a half */
        __m512d t = _mm512_roundscale_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        __m512d rest = _mm512_sub_pd(x, t);
        t = _mm512_mask_add_pd(t, _mm512_cmp_pd_mask(rest, half, _CMP_GE_OQ), t, one);
        t = _mm512_mask_sub_pd(t, _mm512_cmp_pd_mask(rest, _mm512_sub_pd(_mm512_setzero_pd(), half),
                                                     _CMP_LE_OQ), t, one);
        t = _mm512_min_pd(_mm512_max_pd(_mm512_add_pd(t, off), lo), hi);
        _mm_mask_storeu_epi8(out + u, m, _mm256_cvtepi32_epi8(_mm512_cvttpd_epi32(t)));
    }
}

const pl_gemm_s8 pl_gemm_s8_avx512 = {packed_bytes, pack, run, fc_output};
