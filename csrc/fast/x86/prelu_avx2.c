/* prelu_avx2.c - float PRELU's row loop with AVX2 (see prelu.h), 8 lanes: the product, then
** x quieted where x is a NaN (pl_prelu_f32_one's rule: the product's NaN is not left to the
** operands' order), then x where x >= 0 (ordered: false for a NaN).
** Built with -mavx2 -mfma (and -ffp-contract=off); run only when the CPU has them. */
#include <immintrin.h>

#include "fast/prelu.h"
#include "kernels/activation/prelu_fast.h"

/* One row of m <= period elements against alpha[0..m). */
static void row(const float *in, const float *alpha, size_t m, float *out)
{
    const __m256 zero = _mm256_setzero_ps();
    const __m256 quiet = _mm256_castsi256_ps(_mm256_set1_epi32((int)PL_PRELU_QUIET_BIT));
    size_t j = 0;
    for (; j + 8 <= m; j += 8) {
        __m256 x = _mm256_loadu_ps(in + j);
        __m256 y = _mm256_mul_ps(x, _mm256_loadu_ps(alpha + j));
        y = _mm256_blendv_ps(y, _mm256_or_ps(x, quiet), _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
        __m256 keep = _mm256_cmp_ps(x, zero, _CMP_GE_OQ);
        _mm256_storeu_ps(out + j, _mm256_blendv_ps(y, x, keep));
    }
    for (; j < m; j++)
        out[j] = pl_prelu_f32_one(in[j], alpha[j]);
}

void pl_prelu_rows_avx2(const float *in, const float *alpha, size_t period, size_t n,
                        float *out)
{
    for (size_t i = 0; i < n; i += period)
        row(in + i, alpha, n - i < period ? n - i : period, out + i);
}
