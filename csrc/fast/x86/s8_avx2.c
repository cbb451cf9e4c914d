/* s8_avx2.c - the int8 matrix product with AVX2: bytes widened to int16 and VPMADDWD (two
** int16 products summed into each int32 lane: exact, unlike VPMADDUBSW, which saturates),
** 8 output channels per vector. Built with -mavx2 -mfma; run only when the CPU has them. */
#include <immintrin.h>
#include <string.h>

#include "fast/gemm.h"
#include "fast/inline.h"
#include "fast/x86/rescale_avx2.h"

enum { NR = 8, MR = 6 };

/* Panels of 8 channels; per group of 4 k, two vectors of int16 pairs: (w[k], w[k+1]) of
** channels 0..7, then (w[k+2], w[k+3]). */
static size_t packed_bytes(int32_t n, int32_t kp)
{
    return (size_t)pl_fast_round_up(n, NR) * (size_t)kp * 2;
}

static void pack(const int8_t *w, int32_t n, int32_t k, int32_t kp, void *packed)
{
    int16_t *p = packed;
    for (int32_t n0 = 0; n0 < n; n0 += NR)
        for (int32_t k0 = 0; k0 < kp; k0 += 4)
            for (int32_t half = 0; half < 4; half += 2)
                for (int32_t j = 0; j < NR; j++)
                    for (int32_t q = 0; q < 2; q++, p++) {
                        int32_t c = n0 + j, i = k0 + half + q;
                        *p = c < n && i < k ? w[(size_t)c * (size_t)k + (size_t)i] : 0;
                    }
}

/* Row `row` of the output (out or raw, the other NULL), channels n0.. of n. */
static inline void finish(__m256i acc, const pl_s8_stage *st, int32_t n0, int32_t n,
                          int8_t *out, int32_t *raw, size_t row)
{
    int32_t count = n - n0 >= NR ? NR : n - n0;
    if (st == NULL) {
        int32_t tmp[NR];
        _mm256_storeu_si256((__m256i *)tmp, acc);
        memcpy(raw + row + (size_t)n0, tmp, sizeof(int32_t) * (size_t)count);
        return;
    }
    acc = pl_stage_avx2(acc, st->addend + n0, st->mult + n0, st->left + n0, st->right + n0,
                        st->out_offset, st->act_min, st->act_max);
    __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(acc),
                                    _mm256_extracti128_si256(acc, 1));
    __m128i bytes = _mm_packs_epi16(words, words);
    int8_t tmp[16];
    _mm_storeu_si128((__m128i *)tmp, bytes);
    memcpy(out + row + (size_t)n0, tmp, (size_t)count);
}

/* rows rows of a from row m0 on against `panels` panels from channel n0 on (rows * panels
** <= MR): a sum per row and panel, so that even one row keeps several products in flight. */
PL_FAST_INLINE void block(int32_t rows, int32_t panels, int32_t m0, int32_t kp,
                         const uint8_t *a, size_t lda, const int16_t *panel,
                         const pl_s8_stage *st, int32_t n0, int32_t n, int8_t *out,
                         int32_t *raw, size_t ldo)
{
    __m256i acc[MR];
    a += (size_t)m0 * lda;
    PL_FAST_UNROLL
    for (int32_t i = 0; i < MR; i++)
        acc[i] = _mm256_setzero_si256();
    for (int32_t k = 0; k < kp; k += 4) {
        __m256i p01[MR], p23[MR];
        PL_FAST_UNROLL
        for (int32_t r = 0; r < rows; r++) {
            int32_t x;
            memcpy(&x, a + (size_t)r * lda + (size_t)k, 4);
            __m256i x16 = _mm256_cvtepu8_epi16(_mm_set1_epi32(x));
            p01[r] = _mm256_shuffle_epi32(x16, 0x00);
            p23[r] = _mm256_shuffle_epi32(x16, 0x55);
        }
        PL_FAST_UNROLL
        for (int32_t j = 0; j < panels; j++) {
            const __m256i *w =
                (const __m256i *)(panel + ((size_t)j * (size_t)kp + (size_t)k) * NR);
            __m256i w01 = _mm256_loadu_si256(w), w23 = _mm256_loadu_si256(w + 1);
            PL_FAST_UNROLL
            for (int32_t r = 0; r < rows; r++) {
                __m256i *s = &acc[r * panels + j];
                *s = _mm256_add_epi32(*s, _mm256_madd_epi16(p01[r], w01));
                *s = _mm256_add_epi32(*s, _mm256_madd_epi16(p23[r], w23));
            }
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
                                  const uint8_t *a, size_t lda, const int16_t *packed,
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

/* 4 units per step in double lanes, the last few one by one. */
static void fc_output(const pl_fc_output *o, const int32_t *sums, int32_t n, int8_t *out)
{
    const __m256d half = _mm256_set1_pd(0.5), one = _mm256_set1_pd(1.0);
    const __m256d off = _mm256_set1_pd((double)o->p->output_offset);
    const __m256d lo = _mm256_set1_pd((double)o->p->act_min);
    const __m256d hi = _mm256_set1_pd((double)o->p->act_max);
    int32_t u = 0;
    for (; n - u >= 4; u += 4) {
        __m128i acc = _mm_add_epi32(_mm_loadu_si128((const __m128i *)(sums + u)),
                                    _mm_loadu_si128((const __m128i *)(o->fold + u)));
        if (o->bias != NULL)
            acc = _mm_add_epi32(acc, _mm_loadu_si128((const __m128i *)(o->bias + u)));
        __m256d x = _mm256_mul_pd(_mm256_cvtepi32_pd(acc), _mm256_loadu_pd(o->scale + u));
        /* half away from zero: truncated, then one step where the rest reaches a half */
        __m256d t = _mm256_round_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        __m256d rest = _mm256_sub_pd(x, t);
        __m256d up = _mm256_and_pd(_mm256_cmp_pd(rest, half, _CMP_GE_OQ), one);
        __m256d down = _mm256_and_pd(_mm256_cmp_pd(rest, _mm256_sub_pd(_mm256_setzero_pd(), half),
                                                   _CMP_LE_OQ), one);
        t = _mm256_sub_pd(_mm256_add_pd(t, up), down);
        t = _mm256_min_pd(_mm256_max_pd(_mm256_add_pd(t, off), lo), hi);
        __m128i words = _mm_packs_epi32(_mm256_cvttpd_epi32(t), _mm_setzero_si128());
        int32_t bytes = _mm_cvtsi128_si32(_mm_packs_epi16(words, words));
        memcpy(out + u, &bytes, 4);
    }
    for (; u < n; u++)
        out[u] = pl_fc_output_one(o, sums[u], u);
}

const pl_gemm_s8 pl_gemm_s8_avx2 = {packed_bytes, pack, run, fc_output};
