/* s16_avx2.c - the 16x8 matrix product with AVX2: VPMADDWD of broadcast int16 input pairs
** against int16-widened weight pairs (two products summed per int32 lane: at most 2^23, so
** exact), 8 output channels per vector, int32 over blocks of PL_S16_BLOCK k, then int64;
** TFLite's 16x8 output stage on the vectors. Built with -mavx2 -mfma; run only when the
** CPU has them. */
#include <immintrin.h>
#include <string.h>

#include "fast/gemm16.h"
#include "fast/gemm_pack.h"
#include "fast/inline.h"
#include "fast/x86/rescale_avx2.h"
#include "fast/x86/stage16_avx2.h"

enum { NR = 8, MR = 6 };

/* Panels of 8 channels; per group of 4 k, two vectors of int16 pairs: (w[k], w[k+1]) of
** channels 0..7, then (w[k+2], w[k+3]). */
PL_GEMM_PACKING(NR, 4, 2, true)

static inline __m256i load(const void *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

/* total (8 int64 in memory) += the 8 int32 lanes of acc. */
static inline void widen_add(int64_t *total, __m256i acc)
{
    __m256i lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(acc));
    __m256i hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(acc, 1));
    _mm256_storeu_si256((__m256i *)total, _mm256_add_epi64(load(total), lo));
    _mm256_storeu_si256((__m256i *)(total + 4), _mm256_add_epi64(load(total + 4), hi));
}

/* Row sums of channels n0..n0+7 (in memory) through the stage into out. */
static inline void finish(const int64_t *total, const pl_s16_stage *st, int32_t n0,
                          int32_t count, int16_t *out)
{
    __m256i lo = _mm256_add_epi64(load(total), load(st->bias + n0));
    __m256i hi = _mm256_add_epi64(load(total + 4), load(st->bias + n0 + 4));
    __m256i x;
    if (st->acc64)
        x = pl_low32_avx2(
            pl_rescale64_avx2(lo, st->reduced + n0, st->round + n0, st->shift + n0, st->narrow),
            pl_rescale64_avx2(hi, st->reduced + n0 + 4, st->round + n0 + 4, st->shift + n0 + 4,
                              st->narrow));
    else
        x = pl_rescale_avx2(pl_low32_avx2(lo, hi), load(st->mult + n0), load(st->left + n0),
                            load(st->right + n0));
    x = _mm256_add_epi32(x, _mm256_set1_epi32(st->out_offset));
    x = _mm256_max_epi32(x, _mm256_set1_epi32(st->act_min));
    x = _mm256_min_epi32(x, _mm256_set1_epi32(st->act_max));
    int16_t tmp[NR];
    _mm_storeu_si128((__m128i *)tmp, _mm_packs_epi32(_mm256_castsi256_si128(x),
                                                     _mm256_extracti128_si256(x, 1)));
    memcpy(out, tmp, sizeof(int16_t) * (size_t)count);
}

/* rows (1..MR) rows of a from row m0 on against one panel: channels n0.. of n. */
PL_FAST_INLINE void block(int32_t rows, int32_t m0, int32_t kp, const int16_t *a, size_t lda,
                         const int16_t *panel, const pl_s16_stage *st, int32_t n0, int32_t n,
                         int16_t *out, int64_t *sums, size_t ldo)
{
    int64_t total[MR][NR];
    memset(total, 0, sizeof total);
    a += (size_t)m0 * lda;
    for (int32_t k0 = 0; k0 < kp; k0 += PL_S16_BLOCK) {
        int32_t k1 = kp - k0 < PL_S16_BLOCK ? kp : k0 + PL_S16_BLOCK;
        __m256i acc[MR];
        PL_FAST_UNROLL
        for (int32_t r = 0; r < MR; r++)
            acc[r] = _mm256_setzero_si256();
        for (int32_t k = k0; k < k1; k += 4) {
            const __m256i *w = (const __m256i *)(panel + (size_t)k * NR);
            __m256i w01 = _mm256_loadu_si256(w), w23 = _mm256_loadu_si256(w + 1);
            PL_FAST_UNROLL
            for (int32_t r = 0; r < rows; r++) {
                int32_t x01, x23;
                memcpy(&x01, a + (size_t)r * lda + (size_t)k, 4);
                memcpy(&x23, a + (size_t)r * lda + (size_t)k + 2, 4);
                acc[r] = _mm256_add_epi32(acc[r],
                                          _mm256_madd_epi16(_mm256_set1_epi32(x01), w01));
                acc[r] = _mm256_add_epi32(acc[r],
                                          _mm256_madd_epi16(_mm256_set1_epi32(x23), w23));
            }
        }
        PL_FAST_UNROLL
        for (int32_t r = 0; r < rows; r++)
            widen_add(total[r], acc[r]);
    }
    int32_t count = n - n0 >= NR ? NR : n - n0;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < rows; r++) {
        size_t row = (size_t)(m0 + r) * ldo + (size_t)n0;
        if (st != NULL)
            finish(total[r], st, n0, count, out + row);
        else
            memcpy(sums + row, total[r], sizeof(int64_t) * (size_t)count);
    }
}

#include "fast/x86/s16_wide_run.h"

const pl_gemm_s16 pl_gemm_s16_avx2 = {packed_bytes, pack, run};
