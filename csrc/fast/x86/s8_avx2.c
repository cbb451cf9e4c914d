/* s8_avx2.c - the int8 matrix product with AVX2: bytes widened to int16 and VPMADDWD (two
** int16 products summed into each int32 lane: exact, unlike VPMADDUBSW, which saturates),
** 8 output channels per vector. Built with -mavx2 -mfma; run only when the CPU has them. */
#include <immintrin.h>
#include <stdbool.h>
#include <string.h>

#include "fast/gemm.h"
#include "fast/gemm_pack.h"
#include "fast/x86/rescale_avx2.h"

enum { NR = 8, MR = 6, ROWS = 6 };

/* Panels of 8 channels; per group of 4 k, two vectors of int16 pairs: (w[k], w[k+1]) of
** channels 0..7, then (w[k+2], w[k+3]). */
PL_GEMM_PACKING(NR, 4, 2, true)

/* The output stage of channels n0..n0+7, its per-channel operands loaded and split once;
** quick: every channel takes the quick form first (gemm.h); clamp: the activation's range
** is narrower than int8's (else the saturating packs are the clamp). */
typedef struct stage_t {
    __m256i out_offset, act_min, act_max;
    pl_rescale8 r;
    __m256 scale, limit, offset;
    bool quick, clamp;
} stage_t;

static inline stage_t stage_of(const pl_s8_stage *st, int32_t n0)
{
    stage_t s;
    memset(&s, 0, sizeof s);
    if (st == NULL) /* raw sums: no stage */
        return s;
    s.clamp = st->act_min > INT8_MIN || st->act_max < INT8_MAX;
    s.r = pl_rescale8_of(_mm256_loadu_si256((const __m256i *)(st->mult + n0)),
                         _mm256_loadu_si256((const __m256i *)(st->left + n0)),
                         _mm256_loadu_si256((const __m256i *)(st->right + n0)));
    s.out_offset = _mm256_set1_epi32(st->out_offset);
    s.act_min = _mm256_set1_epi32(st->act_min);
    s.act_max = _mm256_set1_epi32(st->act_max);
    if (st->scale != NULL) {
        s.scale = _mm256_loadu_ps(st->scale + n0);
        s.limit = _mm256_loadu_ps(st->limit + n0);
        s.offset = _mm256_set1_ps((float)st->out_offset);
        s.quick = _mm256_movemask_ps(_mm256_cmp_ps(s.limit, _mm256_setzero_ps(), _CMP_LT_OQ)) == 0;
    }
    return s;
}

/* The addend of channels n0.. (wrapping, as TFLite's int32 add), where the sums start. */
static inline __m256i vi_start(const pl_s8_stage *st, int32_t n0)
{
    return st != NULL ? _mm256_loadu_si256((const __m256i *)(st->addend + n0))
                      : _mm256_setzero_si256();
}

/* Row `row` of the output (out, or raw when st is NULL), channels n0.. of n, from sums that
** hold the addend: rescale, + the output offset, clamp. */
static inline void finish(__m256i acc, const stage_t *s, const pl_s8_stage *st, int32_t n0,
                          int32_t n, int8_t *out, int32_t *raw, size_t row)
{
    int32_t count = n - n0 >= NR ? NR : n - n0;
    if (st == NULL) {
        int32_t tmp[NR];
        _mm256_storeu_si256((__m256i *)tmp, acc);
        memcpy(raw + row + (size_t)n0, tmp, sizeof(int32_t) * (size_t)count);
        return;
    }
    __m256i q;
    if (!s->quick || __builtin_expect(pl_quick8(acc, s->scale, s->offset, s->limit, &q) != 0, 0))
        q = _mm256_add_epi32(pl_rescale8_apply(acc, &s->r), s->out_offset);
    if (s->clamp)
        q = _mm256_min_epi32(_mm256_max_epi32(q, s->act_min), s->act_max);
    __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    __m128i bytes = _mm_packs_epi16(words, words);
    int8_t tmp[16];
    _mm_storeu_si128((__m128i *)tmp, bytes);
    memcpy(out + row + (size_t)n0, tmp, (size_t)count);
}

typedef int16_t panel_t;
typedef __m256i vi;

/* A row's x[k..k+3] as int16 pairs, each broadcast: (x[k], x[k+1]), then (x[k+2], x[k+3]). */
typedef struct xin {
    __m256i p01, p23;
} xin;

typedef struct wts {
    __m256i w01, w23;
} wts;

static inline xin x_of(const uint8_t *p)
{
    int32_t x;
    memcpy(&x, p, 4);
    __m256i x16 = _mm256_cvtepu8_epi16(_mm_set1_epi32(x));
    return (xin){_mm256_shuffle_epi32(x16, 0x00), _mm256_shuffle_epi32(x16, 0x55)};
}

static inline wts w_of(const int16_t *p)
{
    const __m256i *w = (const __m256i *)p;
    return (wts){_mm256_loadu_si256(w), _mm256_loadu_si256(w + 1)};
}

static inline vi mac(vi acc, xin x, wts w)
{
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x.p01, w.w01));
    return _mm256_add_epi32(acc, _mm256_madd_epi16(x.p23, w.w23));
}

static inline vi vi_add(vi a, vi b) { return _mm256_add_epi32(a, b); }

#include "fast/x86/s8_wide_body.h"

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

const pl_gemm_s8 pl_gemm_s8_avx2 = {packed_bytes, pack, run, fc_output, run_taps};
