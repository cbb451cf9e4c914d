/* s8_avx512.c - the int8 matrix product with AVX-512 VNNI (VPDPBUSD: four unsigned-by-
** signed byte products summed into each int32 lane), 16 output channels per vector.
** Built with -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vnni -mfma; run only when the
** CPU has them. */
#include <immintrin.h>
#include <stdbool.h>

#include "fast/gemm.h"
#include "fast/gemm_pack.h"
#include "fast/x86/rescale_avx512.h"
#include "fast/x86/vnni_avx512.h"

enum { NR = 16, MR = 12, ROWS = 6 };

/* Panels of 16 channels; per group of 4 k, 16 x 4 bytes: channel j's w[k..k+3]. */
PL_GEMM_PACKING(NR, 4, 4, false)

/* The output stage of channels n0..n0+15, its per-channel operands loaded once; quick:
** every channel takes the tilted quick form first (rescale_avx512.h), and the exact form's
** operands are split only when a vector needs them; clamp: the activation's range is
** narrower than int8's (else the saturating narrowing is the clamp). */
typedef struct stage_t {
    __m512i act_min, act_max;
    __m512 scale, tilt, offset;
    bool quick, clamp;
} stage_t;

static inline pl_rescale16 rescale_of(const pl_s8_stage *st, int32_t n0)
{
    return pl_rescale16_of(_mm512_loadu_si512(st->mult + n0), _mm512_loadu_si512(st->left + n0),
                           _mm512_loadu_si512(st->right + n0));
}

static inline stage_t stage_of(const pl_s8_stage *st, int32_t n0)
{
    stage_t s;
    __builtin_memset(&s, 0, sizeof s);
    if (st == NULL) /* raw sums: no stage */
        return s;
    s.act_min = _mm512_set1_epi32(st->act_min);
    s.act_max = _mm512_set1_epi32(st->act_max);
    s.clamp = st->act_min > INT8_MIN || st->act_max < INT8_MAX;
    if (st->scale != NULL) {
        s.scale = _mm512_loadu_ps(st->scale + n0);
        s.offset = _mm512_set1_ps((float)st->out_offset);
        s.tilt = _mm512_loadu_ps(st->tilt + n0);
        s.quick = _mm512_cmp_ps_mask(s.tilt, _mm512_setzero_ps(), _CMP_LT_OQ) == 0;
    }
    return s;
}

/* The addend of channels n0.. (wrapping, as TFLite's int32 add), where the sums start. */
static inline __m512i vi_start(const pl_s8_stage *st, int32_t n0)
{
    return st != NULL ? _mm512_loadu_si512(st->addend + n0) : _mm512_setzero_si512();
}

/* The exact form of channels n0..'s stage, + the output offset: out of line, as a vector
** of a quick panel needs it rarely (gemm.h). A panel without the quick form (a right shift
** of 0, a left shift) takes it for every vector here too: inline, that panel's 1x1
** 16 -> 96 GEMM on 3136 rows ran 79 against 89 us, but the quick panels' 41.5 -> 48.6 us. */
__attribute__((noinline, cold)) static __m512i exact(__m512i acc, const pl_s8_stage *st,
                                                     int32_t n0)
{
    const pl_rescale16 r = rescale_of(st, n0);
    return _mm512_add_epi32(pl_rescale16_apply(acc, &r), _mm512_set1_epi32(st->out_offset));
}

/* Row `row` of the output (out, or raw when st is NULL), channels n0.. of n, from sums that
** hold the addend: rescale, + the output offset, clamp (VPMOVSDB saturates to int8, which
** is the clamp of int8's whole range). */
static inline void finish(__m512i acc, const stage_t *s, const pl_s8_stage *st, int32_t n0,
                          int32_t n, int8_t *out, int32_t *raw, size_t row)
{
    __mmask16 lanes = n - n0 >= NR ? 0xFFFF : (__mmask16)((1u << (n - n0)) - 1u);
    if (st == NULL) {
        _mm512_mask_storeu_epi32(raw + row + (size_t)n0, lanes, acc);
        return;
    }
    __m512i q;
    if (!s->quick || __builtin_expect(pl_quick16_tilted(acc, s->scale, s->tilt, s->offset, &q),
                                      0))
        q = exact(acc, st, n0);
    if (s->clamp)
        q = _mm512_min_epi32(_mm512_max_epi32(q, s->act_min), s->act_max);
    _mm_mask_storeu_epi8(out + row + (size_t)n0, lanes, _mm512_cvtsepi32_epi8(q));
}

/* finish for two panels of a row, channels n0.. and n0 + 16.. (n > n0 + 16): both quick
** forms' flags tested at once, and the 32 channels narrowed together: two saturating packs
** (int32 to int16 to int8, which is the saturation to int8) leave each 128-bit lane holding
** 4 channels of each vector, which one dword permute puts back in order. */
#define PL_S8_FINISH_PAIRS
static inline void finish_pair(__m512i acc0, __m512i acc1, const stage_t *s0, const stage_t *s1,
                               const pl_s8_stage *st, int32_t n0, int32_t n, int8_t *out,
                               int32_t *raw, size_t row)
{
    if (st == NULL || !s0->quick || !s1->quick) {
        finish(acc0, s0, st, n0, n, out, raw, row);
        finish(acc1, s1, st, n0 + NR, n, out, raw, row);
        return;
    }
    __m512i q0, q1;
    __mmask16 f0 = pl_quick16_tilted(acc0, s0->scale, s0->tilt, s0->offset, &q0);
    __mmask16 f1 = pl_quick16_tilted(acc1, s1->scale, s1->tilt, s1->offset, &q1);
    if (__builtin_expect(!_kortestz_mask16_u8(f0, f1), 0)) {
        if (f0)
            q0 = exact(acc0, st, n0);
        if (f1)
            q1 = exact(acc1, st, n0 + NR);
    }
    if (s0->clamp) {
        q0 = _mm512_min_epi32(_mm512_max_epi32(q0, s0->act_min), s0->act_max);
        q1 = _mm512_min_epi32(_mm512_max_epi32(q1, s1->act_min), s1->act_max);
    }
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0);
    __m512i packed = _mm512_packs_epi32(q0, q1);
    packed = _mm512_permutexvar_epi32(order, _mm512_packs_epi16(packed, packed));
    __mmask32 lanes = n - n0 >= 2 * NR ? 0xFFFFFFFFu : (__mmask32)((1u << (n - n0)) - 1u);
    _mm256_mask_storeu_epi8(out + row + (size_t)n0, lanes, _mm512_castsi512_si256(packed));
}

typedef int8_t panel_t;
typedef __m512i vi;
typedef __m512i xin; /* a row's x[k..k+3], broadcast */
typedef __m512i wts;

static inline xin x_of(const uint8_t *p)
{
    int32_t bytes;
    __builtin_memcpy(&bytes, p, 4);
    return _mm512_set1_epi32(bytes);
}

static inline wts w_of(const int8_t *p) { return _mm512_loadu_si512(p); }

static inline vi mac(vi acc, xin x, wts w) { return pl_dpbusd512(acc, x, w); }

static inline vi vi_add(vi a, vi b) { return _mm512_add_epi32(a, b); }

#include "fast/x86/s8_wide_body.h"

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

const pl_gemm_s8 pl_gemm_s8_avx512 = {packed_bytes, pack, run, fc_output, run_taps};
