/* s8_sse41.c - the int8 matrix product with SSE4.1: bytes widened to int16 and PMADDWD (two
** int16 products summed into each int32 lane: exact), 8 output channels in two vectors.
** SSE has no per-lane shifts: the rescale takes its powers of two and shift counts from
** constants built once per panel. Built with -msse4.1; run only when the CPU has it. */
#include <smmintrin.h>
#include <string.h>

#include "fast/gemm.h"

enum { NR = 8, MR = 4 };

/* Panels of 8 channels; per group of 4 k, four vectors of int16 pairs: (w[k], w[k+1]) of
** channels 0..3, of channels 4..7, then (w[k+2], w[k+3]) of channels 0..3 and 4..7. */
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

/* The rescale of 4 channels: 2^left (the left shift as a multiply, mod 2^32), the rounding
** mask 2^right - 1 and each lane's right shift count. */
typedef struct quad {
    __m128i addend, mult, pow2, mask, right[4];
} quad;

typedef struct panel_stage {
    quad q[2];
    __m128i out_offset, act_min, act_max;
} panel_stage;

static void stage_of(const pl_s8_stage *st, int32_t n0, panel_stage *ps)
{
    for (int32_t h = 0; h < 2; h++) {
        quad *q = &ps->q[h];
        int32_t c = n0 + 4 * h, pow2[4], mask[4];
        for (int32_t j = 0; j < 4; j++) {
            int32_t left = st->left[c + j]; /* past 31 (hostile scales) every bit goes */
            pow2[j] = left < 32 ? (int32_t)(1u << left) : 0;
            mask[j] = (int32_t)((1u << st->right[c + j]) - 1u);
            q->right[j] = _mm_cvtsi32_si128(st->right[c + j]);
        }
        q->addend = _mm_loadu_si128((const __m128i *)(st->addend + c));
        q->mult = _mm_loadu_si128((const __m128i *)(st->mult + c));
        q->pow2 = _mm_loadu_si128((const __m128i *)pow2);
        q->mask = _mm_loadu_si128((const __m128i *)mask);
    }
    ps->out_offset = _mm_set1_epi32(st->out_offset);
    ps->act_min = _mm_set1_epi32(st->act_min);
    ps->act_max = _mm_set1_epi32(st->act_max);
}

/* TFLite's MultiplyByQuantizedMultiplier on 4 lanes (multipliers are never INT32_MIN): see
** s8_avx512.c. */
static inline __m128i rescale(__m128i x, const quad *q)
{
    const __m128i half = _mm_set1_epi64x(1LL << 30);
    x = _mm_mullo_epi32(_mm_add_epi32(x, q->addend), q->pow2);
    __m128i even = _mm_mul_epi32(x, q->mult);
    __m128i odd = _mm_mul_epi32(_mm_srli_epi64(x, 32), _mm_srli_epi64(q->mult, 32));
    even = _mm_srli_epi64(_mm_add_epi64(even, half), 31);
    odd = _mm_slli_epi64(_mm_srli_epi64(_mm_add_epi64(odd, half), 31), 32);
    __m128i high = _mm_blend_epi16(even, odd, 0xCC);
    __m128i threshold = _mm_sub_epi32(_mm_srai_epi32(q->mask, 1), _mm_srai_epi32(high, 31));
    __m128i q01 = _mm_blend_epi16(_mm_sra_epi32(high, q->right[0]),
                                  _mm_sra_epi32(high, q->right[1]), 0x0C);
    __m128i q23 = _mm_blend_epi16(_mm_sra_epi32(high, q->right[2]),
                                  _mm_sra_epi32(high, q->right[3]), 0xC0);
    __m128i shifted = _mm_blend_epi16(q01, q23, 0xF0);
    __m128i up = _mm_cmpgt_epi32(_mm_and_si128(high, q->mask), threshold);
    return _mm_sub_epi32(shifted, up);
}

/* Row `row` of the output (out or raw, the other NULL), channels n0.. of n. */
static inline void finish(__m128i lo, __m128i hi, const panel_stage *ps, int32_t n0,
                          int32_t n, int8_t *out, int32_t *raw, size_t row)
{
    int32_t count = n - n0 >= NR ? NR : n - n0;
    if (ps == NULL) {
        int32_t tmp[NR];
        _mm_storeu_si128((__m128i *)tmp, lo);
        _mm_storeu_si128((__m128i *)(tmp + 4), hi);
        memcpy(raw + row + (size_t)n0, tmp, sizeof(int32_t) * (size_t)count);
        return;
    }
    lo = _mm_add_epi32(rescale(lo, &ps->q[0]), ps->out_offset);
    hi = _mm_add_epi32(rescale(hi, &ps->q[1]), ps->out_offset);
    lo = _mm_min_epi32(_mm_max_epi32(lo, ps->act_min), ps->act_max);
    hi = _mm_min_epi32(_mm_max_epi32(hi, ps->act_min), ps->act_max);
    __m128i words = _mm_packs_epi32(lo, hi);
    int8_t tmp[16];
    _mm_storeu_si128((__m128i *)tmp, _mm_packs_epi16(words, words));
    memcpy(out + row + (size_t)n0, tmp, (size_t)count);
}

/* rows (1..MR) rows of a from row m0 on against one panel. */
PL_FAST_INLINE void block(int32_t rows, int32_t m0, int32_t kp, const uint8_t *a, size_t lda,
                          const int16_t *panel, const panel_stage *ps, int32_t n0, int32_t n,
                          int8_t *out, int32_t *raw, size_t ldo)
{
    __m128i lo[MR], hi[MR];
    a += (size_t)m0 * lda;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < MR; r++)
        lo[r] = hi[r] = _mm_setzero_si128();
    for (int32_t k = 0; k < kp; k += 4) {
        const __m128i *w = (const __m128i *)(panel + (size_t)k * NR);
        __m128i w01lo = _mm_loadu_si128(w), w01hi = _mm_loadu_si128(w + 1);
        __m128i w23lo = _mm_loadu_si128(w + 2), w23hi = _mm_loadu_si128(w + 3);
        PL_FAST_UNROLL
        for (int32_t r = 0; r < rows; r++) {
            int32_t x;
            memcpy(&x, a + (size_t)r * lda + (size_t)k, 4);
            __m128i x16 = _mm_cvtepu8_epi16(_mm_cvtsi32_si128(x));
            __m128i p01 = _mm_shuffle_epi32(x16, 0x00), p23 = _mm_shuffle_epi32(x16, 0x55);
            lo[r] = _mm_add_epi32(lo[r], _mm_madd_epi16(p01, w01lo));
            hi[r] = _mm_add_epi32(hi[r], _mm_madd_epi16(p01, w01hi));
            lo[r] = _mm_add_epi32(lo[r], _mm_madd_epi16(p23, w23lo));
            hi[r] = _mm_add_epi32(hi[r], _mm_madd_epi16(p23, w23hi));
        }
    }
    PL_FAST_UNROLL
    for (int32_t r = 0; r < rows; r++)
        finish(lo[r], hi[r], ps, n0, n, out, raw, (size_t)(m0 + r) * ldo);
}

static void run(int32_t m, int32_t n, int32_t kp, const uint8_t *a, size_t lda,
                const void *packed, const pl_s8_stage *st, int8_t *out, int32_t *raw,
                size_t ldo)
{
    for (int32_t n0 = 0; n0 < n; n0 += NR) {
        const int16_t *panel = (const int16_t *)packed + (size_t)n0 * (size_t)kp;
        panel_stage ps;
        if (st != NULL)
            stage_of(st, n0, &ps);
        const panel_stage *use = st != NULL ? &ps : NULL;
        for (int32_t m0 = 0; m0 < m; m0 += MR) {
            if (m - m0 >= MR) /* a constant row count: the accumulators stay in registers */
                block(MR, m0, kp, a, lda, panel, use, n0, n, out, raw, ldo);
            else
                for (int32_t r = m0; r < m; r++)
                    block(1, r, kp, a, lda, panel, use, n0, n, out, raw, ldo);
        }
    }
}

const pl_gemm_s8 pl_gemm_s8_sse41 = {packed_bytes, pack, run};
