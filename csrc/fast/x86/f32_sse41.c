/* f32_sse41.c - the float32 matrix product with SSE4.1, 8 output channels in two vectors.
** Each lane sums its channel's products in k order with a separate multiply and add (this
** file is built with -ffp-contract=off): the reference kernel's own rounding, bit for bit.
** Built with -msse4.1; run only when the CPU has it. */
#include <smmintrin.h>
#include <string.h>

#include "fast/gemm.h"

enum { NR = 8, MR = 4 };

#include "fast/f32_pack.h"

/* The reference's min(max(x, lo), hi): MAXPS/MINPS give their second operand when one is
** NaN, so NaN passes the clamp as in the reference. */
static inline __m128 clamp(__m128 v, __m128 lo, __m128 hi)
{
    return _mm_min_ps(hi, _mm_max_ps(lo, v));
}

/* rows (1..MR) rows of a from row m0 on against one panel: + bias, clamp, store. Never
** fused: SSE4.1 has no FMA (no run_fused: a fused target's nodes take the portable kernel). */
PL_FAST_INLINE void block(int32_t rows, int32_t m0, int32_t k, const float *a, size_t lda,
                          const float *panel, const float *bias, float lo, float hi, int32_t n0,
                          int32_t n, float *out, size_t ldo, bool fused)
{
    (void)fused;
    __m128 acc0[MR], acc1[MR];
    a += (size_t)m0 * lda;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < MR; r++)
        acc0[r] = acc1[r] = _mm_setzero_ps();
    for (int32_t i = 0; i < k; i++) {
        __m128 w0 = _mm_loadu_ps(panel + (size_t)i * NR);
        __m128 w1 = _mm_loadu_ps(panel + (size_t)i * NR + 4);
        PL_FAST_UNROLL
        for (int32_t r = 0; r < rows; r++) {
            __m128 x = _mm_set1_ps(a[(size_t)r * lda + (size_t)i]);
            acc0[r] = _mm_add_ps(acc0[r], _mm_mul_ps(x, w0));
            acc1[r] = _mm_add_ps(acc1[r], _mm_mul_ps(x, w1));
        }
    }
    int32_t count = n - n0 >= NR ? NR : n - n0;
    float b[NR] = {0}; /* the reference adds 0.0f without a bias */
    if (bias != NULL)
        memcpy(b, bias + n0, sizeof(float) * (size_t)count);
    __m128 b0 = _mm_loadu_ps(b), b1 = _mm_loadu_ps(b + 4);
    __m128 lov = _mm_set1_ps(lo), hiv = _mm_set1_ps(hi);
    PL_FAST_UNROLL
    for (int32_t r = 0; r < rows; r++) {
        float tmp[NR];
        _mm_storeu_ps(tmp, clamp(_mm_add_ps(acc0[r], b0), lov, hiv));
        _mm_storeu_ps(tmp + 4, clamp(_mm_add_ps(acc1[r], b1), lov, hiv));
        memcpy(out + (size_t)(m0 + r) * ldo + (size_t)n0, tmp, sizeof(float) * (size_t)count);
    }
}

#include "fast/f32_narrow_run.h"

const pl_gemm_f32 pl_gemm_f32_sse41 = {packed_bytes, pack, pack_by_depth,
                                       run, NULL, NULL, NULL};
