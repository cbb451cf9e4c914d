/* mean_avx2.c - MEAN's channel sums and REDUCE_MAX/MIN's folds (mean_body.h) for the AVX2 and AVX-512 sets. */
#define PL_MEAN_NAME pl_fast_mean_sums_avx2
#define PL_EXTREME_NAME pl_fast_extremes_avx2
#define PL_MEAN_LANES 64
#include "fast/mean_body.h"

#include "fast/x86/rescale_avx2.h"
#include "kernels/reduce/reduce_fast.h"

/* pl_reduce_rescale of int8 outputs, 8 sums at a time: the subtraction wraps as the portable
** one's, the rescale is TFLite's (rescale_avx2.h, the same bits as pl_rescale_qm, whose
** right shift stops at 31), the clamp the portable one's. The last few go through the
** portable element (pl_reduce_rescaled). */
void pl_fast_mean_rescale_s8_avx2(const pl_reduce_rescale_params *rp, const int32_t *sum,
                                  int8_t *out, size_t n)
{
    const pl_rescale8 r = pl_rescale8_per_tensor(rp->multiplier, rp->shift);
    const __m256i zp_n = _mm256_set1_epi32(rp->zp_n), out_zp = _mm256_set1_epi32(rp->out_zp);
    const __m256i lo = _mm256_set1_epi32(rp->lo), hi = _mm256_set1_epi32(rp->hi);
    const __m256i low_bytes = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
    size_t k = 0;
    for (; n - k >= 8; k += 8) {
        __m256i x = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(sum + k)), zp_n);
        __m256i v = _mm256_add_epi32(pl_rescale8_apply(x, &r), out_zp);
        v = _mm256_min_epi32(_mm256_max_epi32(v, lo), hi);
        /* within int8 now: the saturating packs keep each value; bytes 0-3 of each half */
        __m256i b = _mm256_packs_epi16(_mm256_packs_epi32(v, v), v);
        b = _mm256_permutevar8x32_epi32(b, low_bytes);
        _mm_storel_epi64((__m128i *)(out + k), _mm256_castsi256_si128(b));
    }
    for (; k < n; k++)
        out[k] = (int8_t)pl_reduce_rescaled(rp, sum[k]);
}
