/* requant_avx2.c - int32 sums to int8 by TFLite's per-tensor rescale, eight lanes at a time
** (fast.h's pl_fast_requant_rows_avx2: BATCH_MATMUL's output). Built with -mavx2 -mfma;
** run only when the CPU has them (AVX-512 CPUs too). */
#include <immintrin.h>
#include <string.h>

#include "fast/fast.h"
#include "fast/x86/rescale_avx2.h"

void pl_fast_requant_rows_avx2(const pl_fast_requant *q, const int32_t *raw, const int32_t *col,
                               const int32_t *row, int32_t rows, int32_t cols, int8_t *out)
{
    const pl_rescale8 r = pl_rescale8_per_tensor(q->multiplier, q->shift);
    const __m256i offset = _mm256_set1_epi32(q->offset), lo = _mm256_set1_epi32(q->act_min),
                  hi = _mm256_set1_epi32(q->act_max);
    for (int32_t m = 0; m < rows; m++, raw += cols, out += cols) {
        const __m256i add = _mm256_set1_epi32(row[m]);
        for (int32_t n = 0; n < cols; n += 8) {
            const int32_t k = cols - n < 8 ? cols - n : 8;
            __m256i t;
            if (k == 8) {
                t = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(raw + n)),
                                     _mm256_loadu_si256((const __m256i *)(col + n)));
            } else { /* the row's last few, through zeroed copies */
                int32_t s[8] = {0}, c[8] = {0};
                memcpy(s, raw + n, sizeof(int32_t) * (size_t)k);
                memcpy(c, col + n, sizeof(int32_t) * (size_t)k);
                t = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)s),
                                     _mm256_loadu_si256((const __m256i *)c));
            }
            /* the int32 additions wrap, as the portable kernel's uint32 sum */
            __m256i v = _mm256_add_epi32(pl_rescale8_apply(_mm256_add_epi32(t, add), &r), offset);
            pl_store8_s8(out + n, _mm256_min_epi32(_mm256_max_epi32(v, lo), hi), (size_t)k);
        }
    }
}
