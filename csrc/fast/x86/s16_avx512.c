/* s16_avx512.c - the 16x8 matrix product with AVX-512 VNNI: VPDPWSSD (two int16 products
** added to each int32 lane; it wraps rather than saturates, and the int32 blocks of
** PL_S16_BLOCK k cannot reach 2^31 anyway), 16 output channels per vector, then int64.
** Built with -mavx512f -mavx512bw -mavx512vl -mavx512vnni; run only when the CPU has them. */
#include <immintrin.h>

#include "fast/gemm16.h"

enum { NR = 16, MR = 8 };

/* Panels of 16 channels; per pair of k, one vector of channel j's (w[k], w[k+1]). */
static size_t packed_bytes(int32_t n, int32_t kp)
{
    return (size_t)(n + NR - 1) / NR * NR * (size_t)kp * 2;
}

static void pack(const int8_t *w, int32_t n, int32_t k, int32_t kp, void *packed)
{
    int16_t *p = packed;
    for (int32_t n0 = 0; n0 < n; n0 += NR)
        for (int32_t k0 = 0; k0 < kp; k0 += 2)
            for (int32_t j = 0; j < NR; j++)
                for (int32_t q = 0; q < 2; q++, p++) {
                    int32_t c = n0 + j, i = k0 + q;
                    *p = c < n && i < k ? w[(size_t)c * (size_t)k + (size_t)i] : 0;
                }
}

/* rows (1..MR) rows of a from row m0 on against one panel: channels n0.. of n. */
static inline void block(int32_t rows, int32_t m0, int32_t kp, const int16_t *a, size_t lda,
                         const int16_t *panel, int32_t n0, int32_t n, int64_t *sums,
                         size_t ldo)
{
    __m512i lo[MR], hi[MR];
    a += (size_t)m0 * lda;
    for (int32_t r = 0; r < MR; r++)
        lo[r] = hi[r] = _mm512_setzero_si512();
    for (int32_t k0 = 0; k0 < kp; k0 += PL_S16_BLOCK) {
        int32_t k1 = kp - k0 < PL_S16_BLOCK ? kp : k0 + PL_S16_BLOCK;
        __m512i acc[MR];
        for (int32_t r = 0; r < MR; r++)
            acc[r] = _mm512_setzero_si512();
        for (int32_t k = k0; k < k1; k += 2) {
            __m512i w = _mm512_loadu_si512(panel + (size_t)k * NR);
            for (int32_t r = 0; r < rows; r++) {
                int32_t x;
                __builtin_memcpy(&x, a + (size_t)r * lda + (size_t)k, 4);
                acc[r] = _mm512_dpwssd_epi32(acc[r], _mm512_set1_epi32(x), w);
            }
        }
        for (int32_t r = 0; r < rows; r++) {
            lo[r] = _mm512_add_epi64(lo[r], _mm512_cvtepi32_epi64(_mm512_castsi512_si256(acc[r])));
            hi[r] = _mm512_add_epi64(hi[r],
                                     _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(acc[r], 1)));
        }
    }
    int32_t count = n - n0 >= NR ? NR : n - n0;
    __mmask8 mlo = (__mmask8)(count >= 8 ? 0xFF : (1u << count) - 1u);
    __mmask8 mhi = (__mmask8)(count <= 8 ? 0 : count >= 16 ? 0xFF : (1u << (count - 8)) - 1u);
    for (int32_t r = 0; r < rows; r++) {
        int64_t *s = sums + (size_t)(m0 + r) * ldo + (size_t)n0;
        _mm512_mask_storeu_epi64(s, mlo, lo[r]);
        _mm512_mask_storeu_epi64(s + 8, mhi, hi[r]);
    }
}

static void run(int32_t m, int32_t n, int32_t kp, const int16_t *a, size_t lda,
                const void *packed, int64_t *sums, size_t ldo)
{
    for (int32_t m0 = 0; m0 < m; m0 += MR)
        for (int32_t n0 = 0; n0 < n; n0 += NR) {
            const int16_t *panel = (const int16_t *)packed + (size_t)n0 * (size_t)kp;
            if (m - m0 >= MR) /* a constant row count: the accumulators stay in registers */
                block(MR, m0, kp, a, lda, panel, n0, n, sums, ldo);
            else
                for (int32_t r = m0; r < m; r++)
                    block(1, r, kp, a, lda, panel, n0, n, sums, ldo);
        }
}

const pl_gemm_s16 pl_gemm_s16_avx512 = {packed_bytes, pack, run};
