/* prelu_avx2.c - float PRELU's row loop with AVX2 (see prelu.h), 8 lanes: the product, then
** x where x >= 0 (ordered: a NaN takes the product, as the portable kernel's comparison).
** Vectors with a NaN input run the scalar rule (which NaN a product of two NaNs returns
** depends on the operands' order, which the compiler may swap).
** Built with -mavx2 -mfma (and -ffp-contract=off); run only when the CPU has them. */
#include <immintrin.h>

#include "fast/prelu.h"

/* One row of m <= period elements against alpha[0..m). */
static void row(const float *in, const float *alpha, size_t m, float *out)
{
    const __m256 zero = _mm256_setzero_ps();
    size_t j = 0;
    for (; j + 8 <= m; j += 8) {
        __m256 x = _mm256_loadu_ps(in + j);
        if (_mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)) != 0) {
            for (size_t k = j; k < j + 8; k++)
                out[k] = in[k] >= 0.0f ? in[k] : in[k] * alpha[k];
            continue;
        }
        __m256 y = _mm256_mul_ps(x, _mm256_loadu_ps(alpha + j));
        __m256 keep = _mm256_cmp_ps(x, zero, _CMP_GE_OQ);
        _mm256_storeu_ps(out + j, _mm256_blendv_ps(y, x, keep));
    }
    for (; j < m; j++) {
        float x = in[j];
        out[j] = x >= 0.0f ? x : x * alpha[j];
    }
}

void pl_prelu_rows_avx2(const float *in, const float *alpha, size_t period, size_t n,
                        float *out)
{
    for (size_t i = 0; i < n; i += period)
        row(in + i, alpha, n - i < period ? n - i : period, out + i);
}
