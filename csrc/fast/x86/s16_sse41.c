/* s16_sse41.c - the 16x8 matrix product with SSE4.1: PMADDWD of broadcast int16 input pairs
** against int16-widened weight pairs (two products summed per int32 lane: at most 2^23, so
** exact), 8 output channels in two vectors, int32 over blocks of PL_S16_BLOCK k, then
** int64; TFLite's 16x8 output stage on the vectors (stage16_sse41.h; the 32-bit rescale's
** operands built once per panel). Built with -msse4.1; run only when the CPU has it. */
#include <smmintrin.h>
#include <string.h>

#include "fast/gemm16.h"
#include "fast/gemm_pack.h"
#include "fast/inline.h"
#include "fast/x86/rescale_sse41.h"
#include "fast/x86/stage16_sse41.h"

enum { NR = 8, MR = 4 };

/* Panels of 8 channels; per group of 4 k, four vectors of int16 pairs: (w[k], w[k+1]) of
** channels 0..3, of channels 4..7, then (w[k+2], w[k+3]) of channels 0..3 and 4..7 (AVX2's
** layout, each of its vectors taken as two). */
PL_GEMM_PACKING(NR, 4, 2, true)

/* One panel's stage: the arrays, and the 32-bit rescale's operands of its two groups of 4
** channels (the bias is added in int64 before the truncation, so their addend is 0). */
typedef struct panel_stage {
    const pl_s16_stage *st;
    pl_sse41_quad q[2];
} panel_stage;

static void stage_of(const pl_s16_stage *st, int32_t n0, panel_stage *ps)
{
    static const int32_t zero[4] = {0, 0, 0, 0};
    ps->st = st;
    for (int32_t h = 0; h < 2 && !st->acc64; h++) {
        int32_t c = n0 + 4 * h;
        pl_sse41_quad_of(zero, st->mult + c, st->left + c, st->right + c, &ps->q[h]);
    }
}

static inline __m128i load(const void *p)
{
    return _mm_loadu_si128((const __m128i *)p);
}

/* total (4 int64 in memory) = the 4 int32 lanes of acc, + total unless first. */
static inline void widen_add(int64_t *total, __m128i acc, bool first)
{
    __m128i lo = _mm_cvtepi32_epi64(acc), hi = _mm_cvtepi32_epi64(_mm_srli_si128(acc, 8));
    if (!first) {
        lo = _mm_add_epi64(lo, load(total));
        hi = _mm_add_epi64(hi, load(total + 2));
    }
    _mm_storeu_si128((__m128i *)total, lo);
    _mm_storeu_si128((__m128i *)(total + 2), hi);
}

/* A row's sums of channels n0..n0+7: the last block's int32 lo (channels 0-3) and hi
** (4-7), plus the earlier blocks' int64 total unless NULL; into sums, or through the stage
** into out. */
static inline void finish(__m128i lo, __m128i hi, const int64_t *total, const panel_stage *ps,
                          int32_t n0, int32_t count, int16_t *out, int64_t *sums)
{
    __m128i q[4] = {_mm_cvtepi32_epi64(lo), _mm_cvtepi32_epi64(_mm_srli_si128(lo, 8)),
                    _mm_cvtepi32_epi64(hi), _mm_cvtepi32_epi64(_mm_srli_si128(hi, 8))};
    for (int32_t j = 0; j < 4 && total != NULL; j++)
        q[j] = _mm_add_epi64(q[j], load(total + 2 * j));
    if (ps == NULL) {
        int64_t tmp[NR];
        for (int32_t j = 0; j < 4; j++)
            _mm_storeu_si128((__m128i *)(tmp + 2 * j), q[j]);
        memcpy(sums, tmp, sizeof(int64_t) * (size_t)count);
        return;
    }
    const pl_s16_stage *st = ps->st;
    __m128i v[2];
    for (int32_t h = 0; h < 2; h++) {
        int32_t c = n0 + 4 * h;
        __m128i a = q[2 * h], b = q[2 * h + 1];
        if (st->acc64) {
            v[h] = pl_stage64_sse41(a, b, st->bias + c, st->reduced + c, st->round + c,
                                    st->shift + c, st->narrow);
        } else {
            a = _mm_add_epi64(a, load(st->bias + c));
            b = _mm_add_epi64(b, load(st->bias + c + 2));
            v[h] = pl_rescale_sse41(pl_low32_sse41(a, b), &ps->q[h]);
        }
        v[h] = pl_clamp_sse41(v[h], st->out_offset, st->act_min, st->act_max);
    }
    int16_t tmp[NR];
    _mm_storeu_si128((__m128i *)tmp, _mm_packs_epi32(v[0], v[1]));
    memcpy(out, tmp, sizeof(int16_t) * (size_t)count);
}

/* rows (1..MR) rows of a from row m0 on against one panel: channels n0.. of n. The last
** block's int32 sums stay in registers; only deeper rows keep int64 totals in memory. */
PL_FAST_INLINE void block(int32_t rows, int32_t m0, int32_t kp, const int16_t *a, size_t lda,
                          const int16_t *panel, const panel_stage *ps, int32_t n0, int32_t n,
                          int16_t *out, int64_t *sums, size_t ldo)
{
    int64_t total[MR][NR];
    __m128i lo[MR], hi[MR];
    a += (size_t)m0 * lda;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < MR; r++)
        lo[r] = hi[r] = _mm_setzero_si128();
    for (int32_t k0 = 0; k0 < kp; k0 += PL_S16_BLOCK) {
        int32_t k1 = kp - k0 < PL_S16_BLOCK ? kp : k0 + PL_S16_BLOCK;
        if (k0 > 0) { /* the previous block's sums into the totals */
            PL_FAST_UNROLL
            for (int32_t r = 0; r < rows; r++) {
                widen_add(total[r], lo[r], k0 == PL_S16_BLOCK);
                widen_add(total[r] + 4, hi[r], k0 == PL_S16_BLOCK);
                lo[r] = hi[r] = _mm_setzero_si128();
            }
        }
        for (int32_t k = k0; k < k1; k += 4) {
            const __m128i *w = (const __m128i *)(panel + (size_t)k * NR);
            __m128i w01lo = load(w), w01hi = load(w + 1), w23lo = load(w + 2),
                    w23hi = load(w + 3);
            PL_FAST_UNROLL
            for (int32_t r = 0; r < rows; r++) {
                __m128i x = _mm_loadl_epi64((const __m128i *)(a + (size_t)r * lda + (size_t)k));
                __m128i p01 = _mm_shuffle_epi32(x, 0x00), p23 = _mm_shuffle_epi32(x, 0x55);
                lo[r] = _mm_add_epi32(lo[r], _mm_madd_epi16(p01, w01lo));
                hi[r] = _mm_add_epi32(hi[r], _mm_madd_epi16(p01, w01hi));
                lo[r] = _mm_add_epi32(lo[r], _mm_madd_epi16(p23, w23lo));
                hi[r] = _mm_add_epi32(hi[r], _mm_madd_epi16(p23, w23hi));
            }
        }
    }
    int32_t count = n - n0 >= NR ? NR : n - n0;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < rows; r++) {
        size_t row = (size_t)(m0 + r) * ldo + (size_t)n0;
        finish(lo[r], hi[r], kp > PL_S16_BLOCK ? total[r] : NULL, ps, n0, count,
               ps != NULL ? out + row : NULL, ps != NULL ? NULL : sums + row);
    }
}

typedef int16_t panel_t;
#define PL_GEMM_S16

#include "fast/gemm_panels_body.h"

const pl_gemm_s16 pl_gemm_s16_sse41 = {packed_bytes, pack, run};
