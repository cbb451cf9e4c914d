/* f32_avx512.c - the float32 matrix product with AVX-512F, 16 output channels per vector. Each lane
** sums its channel's products in k order with a separate multiply and add (this file is
** built with -ffp-contract=off): the reference kernel's own rounding, bit for bit.
** Built with -mavx512f -mavx512bw -mavx512vl -mavx512vnni; run only when the CPU has them. */
#include <immintrin.h>
#include <string.h>

#include "fast/gemm.h"
#include "fast/inline.h"

enum { NR = 16, MR = 8 };

/* Panels of 16 channels; per k, the 16 channels' w[k] (0 past n). */
static size_t packed_bytes(int32_t n, int32_t k)
{
    return (size_t)pl_fast_round_up(n, NR) * (size_t)k * sizeof(float);
}

static void pack(const float *w, int32_t n, int32_t k, void *packed)
{
    float *p = packed;
    for (int32_t n0 = 0; n0 < n; n0 += NR)
        for (int32_t i = 0; i < k; i++)
            for (int32_t j = 0; j < NR; j++, p++)
                *p = n0 + j < n ? w[(size_t)(n0 + j) * (size_t)k + (size_t)i] : 0.0f;
}

/* rows rows of a from row m0 on against `panels` panels from channel n0 on (rows * panels
** <= MR): + bias, clamp, store. A sum per row and panel, so that even one row keeps several
** adds in flight; each still sums its k in order. */
PL_FAST_INLINE void block(int32_t rows, int32_t panels, int32_t m0, int32_t k, const float *a,
                         size_t lda, const float *panel, const float *bias, float lo,
                         float hi, int32_t n0, int32_t n, float *out, size_t ldo)
{
    __m512 acc[MR];
    a += (size_t)m0 * lda;
    PL_FAST_UNROLL
    for (int32_t i = 0; i < MR; i++)
        acc[i] = _mm512_setzero_ps();
    for (int32_t i = 0; i < k; i++) {
        PL_FAST_UNROLL
        for (int32_t j = 0; j < panels; j++) {
            __m512 w = _mm512_loadu_ps(panel + ((size_t)j * (size_t)k + (size_t)i) * NR);
            PL_FAST_UNROLL
            for (int32_t r = 0; r < rows; r++)
                acc[r * panels + j] = _mm512_add_ps(
                    acc[r * panels + j],
                    _mm512_mul_ps(_mm512_set1_ps(a[(size_t)r * lda + (size_t)i]), w));
        }
    }
    PL_FAST_UNROLL
    for (int32_t j = 0; j < panels; j++) {
        int32_t c0 = n0 + j * NR;
        __mmask16 lanes = n - c0 >= NR ? 0xFFFF : (__mmask16)((1u << (n - c0)) - 1u);
        __m512 b = bias != NULL ? _mm512_maskz_loadu_ps(lanes, bias + c0) : _mm512_setzero_ps();
        PL_FAST_UNROLL
        for (int32_t r = 0; r < rows; r++) {
            /* the reference adds 0.0f without a bias; MAXPS/MINPS give their second operand
            ** when one is NaN, so NaN passes the clamp as in the reference */
            __m512 v = _mm512_add_ps(acc[r * panels + j], b);
            v = _mm512_min_ps(_mm512_set1_ps(hi), _mm512_max_ps(_mm512_set1_ps(lo), v));
            _mm512_mask_storeu_ps(out + (size_t)(m0 + r) * ldo + (size_t)c0, lanes, v);
        }
    }
}

/* rows (a constant) rows from m0 on against every panel, MR / rows panels at a time. */
PL_FAST_INLINE void rows_by_panels(int32_t rows, int32_t m0, int32_t n, int32_t k,
                                  const float *a, size_t lda, const float *packed,
                                  const float *bias, float lo, float hi, float *out,
                                  size_t ldo)
{
    const int32_t wide = MR / rows;
    int32_t n0 = 0;
    for (; n - n0 > (wide - 1) * NR; n0 += wide * NR)
        block(rows, wide, m0, k, a, lda, packed + (size_t)n0 * (size_t)k, bias, lo, hi, n0, n,
              out, ldo);
    for (; n0 < n; n0 += NR)
        block(rows, 1, m0, k, a, lda, packed + (size_t)n0 * (size_t)k, bias, lo, hi, n0, n,
              out, ldo);
}

static void run(int32_t m, int32_t n, int32_t k, const float *a, size_t lda,
                const void *packed, const float *bias, float act_min, float act_max,
                float *out, size_t ldo)
{
    int32_t m0 = 0;
    for (; m - m0 >= MR; m0 += MR)
        rows_by_panels(MR, m0, n, k, a, lda, packed, bias, act_min, act_max, out, ldo);
    /* the last rows (fewer than MR: a small M is a fully connected layer's batch or a late
    ** layer's few pixels) in groups of 4, 2 and 1, each against several panels at once */
    if (m - m0 >= 4) {
        rows_by_panels(4, m0, n, k, a, lda, packed, bias, act_min, act_max, out, ldo);
        m0 += 4;
    }
    if (m - m0 >= 2) {
        rows_by_panels(2, m0, n, k, a, lda, packed, bias, act_min, act_max, out, ldo);
        m0 += 2;
    }
    if (m > m0)
        rows_by_panels(1, m0, n, k, a, lda, packed, bias, act_min, act_max, out, ldo);
}

const pl_gemm_f32 pl_gemm_f32_avx512 = {packed_bytes, pack, run};
