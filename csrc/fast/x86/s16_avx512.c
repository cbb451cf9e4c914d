/* s16_avx512.c - the 16x8 matrix product with AVX-512 VNNI: VPDPWSSD (two int16 products
** added to each int32 lane; it wraps rather than saturates, and the int32 blocks of
** PL_S16_BLOCK k cannot reach 2^31 anyway), 16 output channels per vector, then int64;
** TFLite's 16x8 output stage on the vectors.
** Built with -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vnni -mfma; run only when the
** CPU has them. */
#include <immintrin.h>

#include "fast/gemm16.h"
#include "fast/gemm_pack.h"
#include "fast/inline.h"
#include "fast/x86/rescale_avx512.h"
#include "fast/x86/vnni_avx512.h"

enum { NR = 16, MR = 8 };

/* Panels of 16 channels; per pair of k, one vector of channel j's (w[k], w[k+1]). */
PL_GEMM_PACKING(NR, 2, 2, true)

/* t * r mod 2^64 per lane (no AVX-512 DQ 64-bit multiply): three 32x32 products. */
static inline __m512i mul64(__m512i t, __m512i r)
{
    __m512i cross = _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(t, 32), r),
                                     _mm512_mul_epu32(t, _mm512_srli_epi64(r, 32)));
    return _mm512_add_epi64(_mm512_mul_epu32(t, r), _mm512_slli_epi64(cross, 32));
}

/* TFLite's 64-bit rescale of 8 lanes, truncated to int32; with narrow (t fits in int32, as
** reduced does) one signed 32x32 multiply. */
static inline __m256i rescale64(__m512i t, const int64_t *reduced, const int64_t *round,
                                const int64_t *shift, bool narrow)
{
    __m512i r = _mm512_loadu_si512(reduced);
    __m512i p = _mm512_add_epi64(narrow ? _mm512_mul_epi32(t, r) : mul64(t, r),
                                 _mm512_loadu_si512(round));
    return _mm512_cvtepi64_epi32(_mm512_srav_epi64(p, _mm512_loadu_si512(shift)));
}

/* A row's sums of channels n0..n0+15 (lo: the first 8) through the stage into out. */
static inline void finish(__m512i lo, __m512i hi, const pl_s16_stage *st, int32_t n0,
                          __mmask16 lanes, int16_t *out)
{
    lo = _mm512_add_epi64(lo, _mm512_loadu_si512(st->bias + n0));
    hi = _mm512_add_epi64(hi, _mm512_loadu_si512(st->bias + n0 + 8));
    __m512i x;
    if (st->acc64) {
        x = _mm512_inserti64x4(
            _mm512_castsi256_si512(rescale64(lo, st->reduced + n0, st->round + n0,
                                             st->shift + n0, st->narrow)),
            rescale64(hi, st->reduced + n0 + 8, st->round + n0 + 8, st->shift + n0 + 8,
                      st->narrow), 1);
    } else {
        x = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(lo)),
                               _mm512_cvtepi64_epi32(hi), 1);
        x = pl_rescale_avx512(x, _mm512_loadu_si512(st->mult + n0),
                              _mm512_loadu_si512(st->left + n0),
                              _mm512_loadu_si512(st->right + n0));
    }
    x = _mm512_add_epi32(x, _mm512_set1_epi32(st->out_offset));
    x = _mm512_max_epi32(x, _mm512_set1_epi32(st->act_min));
    x = _mm512_min_epi32(x, _mm512_set1_epi32(st->act_max));
    _mm256_mask_storeu_epi16(out, lanes, _mm512_cvtepi32_epi16(x));
}

/* rows (1..MR) rows of a from row m0 on against one panel: channels n0.. of n. */
PL_FAST_INLINE void block(int32_t rows, int32_t m0, int32_t kp, const int16_t *a, size_t lda,
                         const int16_t *panel, const pl_s16_stage *st, int32_t n0, int32_t n,
                         int16_t *out, int64_t *sums, size_t ldo)
{
    __m512i lo[MR], hi[MR];
    a += (size_t)m0 * lda;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < MR; r++)
        lo[r] = hi[r] = _mm512_setzero_si512();
    for (int32_t k0 = 0; k0 < kp; k0 += PL_S16_BLOCK) {
        int32_t k1 = kp - k0 < PL_S16_BLOCK ? kp : k0 + PL_S16_BLOCK;
        __m512i acc[MR];
        PL_FAST_UNROLL
        for (int32_t r = 0; r < MR; r++)
            acc[r] = _mm512_setzero_si512();
        for (int32_t k = k0; k < k1; k += 2) {
            __m512i w = _mm512_loadu_si512(panel + (size_t)k * NR);
            PL_FAST_UNROLL
            for (int32_t r = 0; r < rows; r++) {
                int32_t x;
                __builtin_memcpy(&x, a + (size_t)r * lda + (size_t)k, 4);
                acc[r] = pl_dpwssd512(acc[r], _mm512_set1_epi32(x), w);
            }
        }
        PL_FAST_UNROLL
        for (int32_t r = 0; r < rows; r++) {
            lo[r] = _mm512_add_epi64(lo[r],
                                     _mm512_cvtepi32_epi64(_mm512_castsi512_si256(acc[r])));
            hi[r] = _mm512_add_epi64(hi[r],
                                     _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(acc[r], 1)));
        }
    }
    int32_t count = n - n0 >= NR ? NR : n - n0;
    __mmask16 lanes = (__mmask16)(count >= 16 ? 0xFFFFu : (1u << count) - 1u);
    PL_FAST_UNROLL
    for (int32_t r = 0; r < rows; r++) {
        size_t row = (size_t)(m0 + r) * ldo + (size_t)n0;
        if (st != NULL) {
            finish(lo[r], hi[r], st, n0, lanes, out + row);
            continue;
        }
        _mm512_mask_storeu_epi64(sums + row, (__mmask8)lanes, lo[r]);
        _mm512_mask_storeu_epi64(sums + row + 8, (__mmask8)(lanes >> 8), hi[r]);
    }
}

#include "fast/x86/s16_wide_run.h"

const pl_gemm_s16 pl_gemm_s16_avx512 = {packed_bytes, pack, run};
