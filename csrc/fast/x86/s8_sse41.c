/* s8_sse41.c - the int8 matrix product with SSE4.1: bytes widened to int16 and PMADDWD (two
** int16 products summed into each int32 lane: exact), 8 output channels in two vectors.
** The rescale's operands are built once per panel (rescale_sse41.h). Built with -msse4.1;
** run only when the CPU has it. */
#include <smmintrin.h>
#include <string.h>

#include "fast/gemm.h"
#include "fast/gemm_pack.h"
#include "fast/x86/rescale_sse41.h"

enum { NR = 8, MR = 4 };

/* Panels of 8 channels; per group of 4 k, four vectors of int16 pairs: (w[k], w[k+1]) of
** channels 0..3, of channels 4..7, then (w[k+2], w[k+3]) of channels 0..3 and 4..7. */
PL_GEMM_PACKING(NR, 4, 2, true)

/* One panel's stage: two groups of 4 channels. */
typedef struct panel_stage {
    pl_sse41_quad q[2];
    int32_t out_offset, act_min, act_max;
} panel_stage;

static void stage_of(const pl_s8_stage *st, int32_t n0, panel_stage *ps)
{
    for (int32_t h = 0; h < 2; h++) {
        int32_t c = n0 + 4 * h;
        pl_sse41_quad_of(st->addend + c, st->mult + c, st->left + c, st->right + c, &ps->q[h]);
    }
    ps->out_offset = st->out_offset;
    ps->act_min = st->act_min;
    ps->act_max = st->act_max;
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
    lo = pl_clamp_sse41(pl_rescale_sse41(lo, &ps->q[0]), ps->out_offset, ps->act_min,
                        ps->act_max);
    hi = pl_clamp_sse41(pl_rescale_sse41(hi, &ps->q[1]), ps->out_offset, ps->act_min,
                        ps->act_max);
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

typedef int16_t panel_t;

#include "fast/gemm_panels_body.h"

/* 2 units per step in double lanes, the last one alone. */
static void fc_output(const pl_fc_output *o, const int32_t *sums, int32_t n, int8_t *out)
{
    const __m128d half = _mm_set1_pd(0.5), one = _mm_set1_pd(1.0);
    const __m128d off = _mm_set1_pd((double)o->p->output_offset);
    const __m128d lo = _mm_set1_pd((double)o->p->act_min), hi = _mm_set1_pd((double)o->p->act_max);
    int32_t u = 0;
    for (; n - u >= 2; u += 2) {
        __m128i acc = _mm_add_epi32(_mm_loadl_epi64((const __m128i *)(sums + u)),
                                    _mm_loadl_epi64((const __m128i *)(o->fold + u)));
        if (o->bias != NULL)
            acc = _mm_add_epi32(acc, _mm_loadl_epi64((const __m128i *)(o->bias + u)));
        __m128d x = _mm_mul_pd(_mm_cvtepi32_pd(acc), _mm_loadu_pd(o->scale + u));
        /* half away from zero: truncated, then one step where the rest reaches a half */
        __m128d t = _mm_round_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        __m128d rest = _mm_sub_pd(x, t);
        __m128d up = _mm_and_pd(_mm_cmpge_pd(rest, half), one);
        __m128d down = _mm_and_pd(_mm_cmple_pd(rest, _mm_sub_pd(_mm_setzero_pd(), half)), one);
        t = _mm_sub_pd(_mm_add_pd(t, up), down);
        t = _mm_min_pd(_mm_max_pd(_mm_add_pd(t, off), lo), hi);
        __m128i q = _mm_cvttpd_epi32(t);
        out[u] = (int8_t)_mm_cvtsi128_si32(q);
        out[u + 1] = (int8_t)_mm_extract_epi32(q, 1);
    }
    for (; u < n; u++)
        out[u] = pl_fc_output_one(o, sums[u], u);
}

const pl_gemm_s8 pl_gemm_s8_sse41 = {packed_bytes, pack, run, fc_output, NULL};
