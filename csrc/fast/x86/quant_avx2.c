/* quant_avx2.c - quant.h's kernels with AVX2 (the AVX-512 set takes them too): 8 values per
** vector, the last few through the portable kernel. Built with -mavx2 and -mfma; run only
** when the CPU has them. */
#include <immintrin.h>
#include <string.h>

#include "fast/quant.h"
#include "kernels/quant/dequantize_fast.h"

enum { L = 8 };

static const pl_quant_layout per_tensor = {{1}, {1}};

/* 8 values of type t from p, widened to int32. */
static inline __m256i load8(pl_type t, const void *p)
{
    if (t == PL_INT16)
        return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p));
    __m128i b = _mm_loadl_epi64((const __m128i *)p);
    return t == PL_INT8 ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
}

/* (in - zp) is exact in int32 and in float (quant.c keeps |zp| <= 2^22), so the product is
** the portable kernel's one float rounding. */
static void dequantize(pl_type t, const void *in, float scale, int32_t zp, float *out,
                       size_t n)
{
    const __m256 s = _mm256_set1_ps(scale);
    const __m256i z = _mm256_set1_epi32(zp);
    const size_t es = t == PL_INT16 ? 2 : 1;
    size_t i = 0;
    for (; n - i >= L; i += L) {
        __m256i q = _mm256_sub_epi32(load8(t, (const uint8_t *)in + i * es), z);
        _mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_cvtepi32_ps(q), s));
    }
    const void *rest = (const uint8_t *)in + i * es;
    if (t == PL_INT8)
        pl_dequantize_s8(&per_tensor, &scale, &zp, rest, out + i, n - i);
    else if (t == PL_UINT8)
        pl_dequantize_u8(&per_tensor, &scale, &zp, rest, out + i, n - i);
    else
        pl_dequantize_s16(&per_tensor, &scale, &zp, rest, out + i, n - i);
}

/* pl_fx_roundf: below 2^23 in magnitude the truncation moved by one where the remainder
** reaches a half (x - t is exact), above it x itself (already integral, or inf or NaN, whose
** remainder is NaN and moves nothing). VCVTTPS2DQ gives INT32_MIN for NaN and for what int32
** does not hold, as the portable kernel's range test does. A truncated -0 (the portable kernel
** has +0) converts to the same 0. */
static inline __m256i quantize8(__m256 x, __m256 scale)
{
    __m256 y = _mm256_div_ps(x, scale);
    __m256 t = _mm256_round_ps(y, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m256 d = _mm256_sub_ps(y, t), one = _mm256_set1_ps(1.0f);
    t = _mm256_add_ps(t, _mm256_and_ps(_mm256_cmp_ps(d, _mm256_set1_ps(0.5f), _CMP_GE_OQ), one));
    t = _mm256_sub_ps(t, _mm256_and_ps(_mm256_cmp_ps(d, _mm256_set1_ps(-0.5f), _CMP_LE_OQ), one));
    return _mm256_cvttps_epi32(t);
}

static void quantize(pl_type t, const float *in, float scale, int32_t zp, void *out, size_t n)
{
    const __m256 s = _mm256_set1_ps(scale);
    const __m256i z = _mm256_set1_epi32(zp);
    const int32_t lo = t == PL_INT8 ? INT8_MIN : t == PL_UINT8 ? 0 : INT16_MIN;
    const int32_t hi = t == PL_INT8 ? INT8_MAX : t == PL_UINT8 ? UINT8_MAX : INT16_MAX;
    const __m256i vlo = _mm256_set1_epi32(lo), vhi = _mm256_set1_epi32(hi);
    const size_t es = t == PL_INT16 ? 2 : 1;
    size_t i = 0;
    for (; n - i >= L; i += L) {
        __m256i q = _mm256_add_epi32(quantize8(_mm256_loadu_ps(in + i), s), z); /* wraps */
        q = _mm256_min_epi32(_mm256_max_epi32(q, vlo), vhi);
        /* in range now: the saturating packs keep every value */
        __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
        uint8_t *o = (uint8_t *)out + i * es;
        if (t == PL_INT16)
            _mm_storeu_si128((__m128i *)o, w);
        else
            _mm_storel_epi64((__m128i *)o, t == PL_INT8 ? _mm_packs_epi16(w, w)
                                                          : _mm_packus_epi16(w, w));
    }
    void *rest = (uint8_t *)out + i * es;
    if (t == PL_INT8)
        pl_quantize_f32_s8(&per_tensor, &scale, &zp, in + i, rest, n - i);
    else if (t == PL_UINT8)
        pl_quantize_f32_u8(&per_tensor, &scale, &zp, in + i, rest, n - i);
    else
        pl_quantize_f32_s16(&per_tensor, &scale, &zp, in + i, rest, n - i);
}

const pl_quant_kernels pl_quant_avx2 = {dequantize, quantize};
