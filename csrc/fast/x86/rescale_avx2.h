/* rescale_avx2.h - TFLite's int8 output stage on 8 int32 lanes with AVX2 (for the files
** built with -mavx2: gemm, depthwise, BATCH_MATMUL's and int8 SOFTMAX's rows). */
#ifndef PL_FAST_X86_RESCALE_AVX2_H
#define PL_FAST_X86_RESCALE_AVX2_H

#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A rescale's per-channel operands, split once for the lanes (rescale_avx512.h). */
typedef struct pl_rescale8 {
    __m256i mult, mult_odd, left, right, mask, half;
} pl_rescale8;

/* v's 8 int32 lanes narrowed to int8 (saturating) into out's first n bytes (n <= 8: a row's
** last few without writing past them). */
static inline void pl_store8_s8(int8_t *out, __m256i v, size_t n)
{
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    int64_t bytes = _mm_cvtsi128_si64(_mm_packs_epi16(w, w));
    if (n == 8) /* a constant size: one store */
        memcpy(out, &bytes, sizeof bytes);
    else
        memcpy(out, &bytes, n);
}

static inline pl_rescale8 pl_rescale8_of(__m256i mult, __m256i left, __m256i right)
{
    const __m256i one = _mm256_set1_epi32(1);
    __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
    return (pl_rescale8){mult, _mm256_srli_epi64(mult, 32), left, right, mask,
                         _mm256_srai_epi32(mask, 1)};
}

/* One multiplier and shift (TFLite's: left when positive, the right shift capped at 31, as
** pl_rescale_qm) for every lane. */
static inline pl_rescale8 pl_rescale8_per_tensor(int32_t multiplier, int32_t shift)
{
    return pl_rescale8_of(_mm256_set1_epi32(multiplier), _mm256_set1_epi32(shift > 0 ? shift : 0),
                          _mm256_set1_epi32(shift > 0 ? 0 : shift < -31 ? 31 : -shift));
}

/* TFLite's MultiplyByQuantizedMultiplier on 8 lanes (multipliers are never INT32_MIN): see
** rescale_avx512.h. */
static inline __m256i pl_rescale8_apply(__m256i x, const pl_rescale8 *r)
{
    const __m256i half = _mm256_set1_epi64x(1LL << 30);
    x = _mm256_sllv_epi32(x, r->left);
    __m256i even = _mm256_mul_epi32(x, r->mult);
    __m256i odd = _mm256_mul_epi32(_mm256_srli_epi64(x, 32), r->mult_odd);
    even = _mm256_srli_epi64(_mm256_add_epi64(even, half), 31);
    odd = _mm256_slli_epi64(_mm256_srli_epi64(_mm256_add_epi64(odd, half), 31), 32);
    __m256i high = _mm256_blend_epi32(even, odd, 0xAA);
    __m256i threshold = _mm256_sub_epi32(r->half, _mm256_srai_epi32(high, 31));
    __m256i q = _mm256_srav_epi32(high, r->right);
    __m256i up = _mm256_cmpgt_epi32(_mm256_and_si256(high, r->mask), threshold);
    return _mm256_sub_epi32(q, up);
}

/* The quick form of the rescale on 8 lanes (gemm.h's pl_s8_stage; the AVX-512 one is
** tilted): *q = round(x * scale + offset), its lanes flagged where it lies nearer a tie than
** limit. The conversion and the multiply-add round as the MXCSR says: even a directed mode
** stays inside the limit's 2^-11 margin (gemm.h). */
static inline int pl_quick8(__m256i x, __m256 scale, __m256 offset, __m256 limit, __m256i *q)
{
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 y = _mm256_fmadd_ps(_mm256_cvtepi32_ps(x), scale, offset);
    __m256 n = _mm256_round_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    *q = _mm256_cvttps_epi32(n);
    __m256 off = _mm256_andnot_ps(sign, _mm256_sub_ps(y, n));
    return _mm256_movemask_ps(_mm256_cmp_ps(off, limit, _CMP_GT_OQ));
}

static inline __m256i pl_rescale_avx2(__m256i x, __m256i mult, __m256i left, __m256i right)
{
    const pl_rescale8 r = pl_rescale8_of(mult, left, right);
    return pl_rescale8_apply(x, &r);
}

/* The whole stage from int32 sums: + addend (wrapping, as TFLite's int32 add), rescale,
** + the output offset, clamp. The arrays hold 8 lanes each. */
static inline __m256i pl_stage_avx2(__m256i acc, const int32_t *addend, const int32_t *mult,
                                    const int32_t *left, const int32_t *right,
                                    int32_t out_offset, int32_t act_min, int32_t act_max)
{
    acc = _mm256_add_epi32(acc, _mm256_loadu_si256((const __m256i *)addend));
    acc = pl_rescale_avx2(acc, _mm256_loadu_si256((const __m256i *)mult),
                          _mm256_loadu_si256((const __m256i *)left),
                          _mm256_loadu_si256((const __m256i *)right));
    acc = _mm256_add_epi32(acc, _mm256_set1_epi32(out_offset));
    acc = _mm256_max_epi32(acc, _mm256_set1_epi32(act_min));
    return _mm256_min_epi32(acc, _mm256_set1_epi32(act_max));
}

/* pl_stage_avx2 taking the quick form first (gemm.h) when quick: scale and limit hold 8
** lanes too; a lane with limit -1 always takes the exact form. */
static inline __m256i pl_stage_quick_avx2(bool quick, __m256i acc, const int32_t *addend,
                                          const int32_t *mult, const int32_t *left,
                                          const int32_t *right, const float *scale,
                                          const float *limit, int32_t out_offset,
                                          int32_t act_min, int32_t act_max)
{
    acc = _mm256_add_epi32(acc, _mm256_loadu_si256((const __m256i *)addend));
    __m256i q;
    if (!quick || pl_quick8(acc, _mm256_loadu_ps(scale), _mm256_set1_ps((float)out_offset),
                            _mm256_loadu_ps(limit), &q) != 0)
        q = _mm256_add_epi32(pl_rescale_avx2(acc, _mm256_loadu_si256((const __m256i *)mult),
                                             _mm256_loadu_si256((const __m256i *)left),
                                             _mm256_loadu_si256((const __m256i *)right)),
                             _mm256_set1_epi32(out_offset));
    q = _mm256_max_epi32(q, _mm256_set1_epi32(act_min));
    return _mm256_min_epi32(q, _mm256_set1_epi32(act_max));
}

#endif
