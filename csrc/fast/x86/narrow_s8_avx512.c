/* narrow_s8_avx512.c - conv_narrow.h's int8 rows with AVX-512 VNNI: 16 points per vector, a
** VPDPBUSD per four input channels of a tap (their bytes side by side in the planes) and
** output channel, the output stage by lanes with the channel's multiplier. Built with
** -mavx512f -mavx512bw -mavx512vnni ...; run only when the CPU has them. */
#include <immintrin.h>
#include <string.h>

#include "fast/conv_narrow.h"
#include "fast/inline.h"
#include "fast/x86/rescale_avx512.h"
#include "fast/x86/vnni_avx512.h"

enum { W = 16 };

typedef pl_narrow_s8_row narrow_row_t;

/* Points [x0, x0 + U W) of rows [j0, j0 + R) (those past ow computed and dropped), N
** channels: N U R sums. */
PL_FAST_INLINE void block(const pl_narrow_s8_row *r, int32_t N, int32_t U, int32_t R,
                          int32_t j0, int32_t x0, bool fused)
{
    (void)fused; /* integer sums */
    __m512i acc[8 * 4 * 4];
    const int32_t k = r->fh * r->fw * r->quads;
    PL_FAST_UNROLL
    for (int32_t i = 0; i < N * U * R; i++)
        acc[i] = _mm512_setzero_si512();
    const size_t row_step = (size_t)r->sh * (size_t)r->wp * 4;
    const int32_t *w = r->w;
    for (int32_t fy = 0; fy < r->fh; fy++) {
        const size_t y = (size_t)(r->y0 + j0 * r->sh + fy * r->dh);
        const uint8_t *top = r->planes + (y * (size_t)r->wp + (size_t)x0) * 4;
        for (int32_t fx = 0; fx < r->fw; fx++, w += r->quads) {
            const uint8_t *src = top + (size_t)(fx * r->dw) * 4;
            for (int32_t q = 0; q < r->quads; q++, src += r->plane_cells * 4) {
                __m512i x[4 * 4];
                PL_FAST_UNROLL
                for (int32_t j = 0; j < R; j++)
                    PL_FAST_UNROLL
                    for (int32_t u = 0; u < U; u++)
                        x[j * U + u] = _mm512_loadu_si512(src + (size_t)j * row_step +
                                                          (size_t)(u * W) * 4);
                PL_FAST_UNROLL
                for (int32_t o = 0; o < N; o++) {
                    const __m512i wv = _mm512_set1_epi32(w[(size_t)o * (size_t)k + (size_t)q]);
                    PL_FAST_UNROLL
                    for (int32_t i = 0; i < U * R; i++)
                        acc[o * U * R + i] = pl_dpbusd512(acc[o * U * R + i], x[i], wv);
                }
            }
        }
    }
    const int32_t count = r->ow - x0 < U * W ? r->ow - x0 : U * W;
    const __m512i offset = _mm512_set1_epi32(r->output_offset);
    const __m512i lo = _mm512_set1_epi32(r->act_min), hi = _mm512_set1_epi32(r->act_max);
    int8_t lanes[4][8][4 * W]; /* N > 1: row j's channel o, before they interleave */
    PL_FAST_UNROLL
    for (int32_t o = 0; o < N; o++) {
        /* the channel's output stage, once for the block's rows */
        const pl_rescale16 rs = pl_rescale16_per_tensor(r->multiplier[o], r->shift[o]);
        const __m512i corr = _mm512_set1_epi32(r->corr[o]);
        PL_FAST_UNROLL
        for (int32_t j = 0; j < R; j++) {
            int8_t *out = r->out + ((size_t)(j0 + j) * (size_t)r->ow + (size_t)x0) * (size_t)N;
            PL_FAST_UNROLL
            for (int32_t u = 0; u < U; u++) {
                __m512i v = _mm512_add_epi32(acc[o * U * R + j * U + u], corr); /* wraps */
                v = _mm512_add_epi32(pl_rescale16_apply(v, &rs), offset);
                v = _mm512_min_epi32(_mm512_max_epi32(v, lo), hi);
                const __m128i bytes = _mm512_cvtepi32_epi8(v); /* in range: exact */
                if (N > 1) {
                    _mm_storeu_si128((__m128i *)(lanes[j][o] + u * W), bytes);
                } else if (count > u * W) {
                    const int32_t left = count - u * W < W ? count - u * W : W;
                    _mm_mask_storeu_epi8(out + u * W, (__mmask16)((1u << left) - 1u), bytes);
                }
            }
        }
    }
    if (N > 1) /* the points' channels side by side, as the output stores them */
        for (int32_t j = 0; j < R; j++) {
            int8_t *out = r->out + ((size_t)(j0 + j) * (size_t)r->ow + (size_t)x0) * (size_t)N;
            for (int32_t x = 0; x < count; x++)
                for (int32_t o = 0; o < N; o++)
                    out[(size_t)x * (size_t)N + (size_t)o] = lanes[j][o][x];
        }
}

#include "fast/x86/narrow_tasks.h"

static void rows(const pl_narrow_s8_row *r)
{
    task_any(r, false);
}

/* The int8 product's panels hold 16 channels: up to 8 leave at least half of them idle. */
const pl_narrow_s8_kernels pl_narrow_s8_avx512 = {W, 8, rows};
