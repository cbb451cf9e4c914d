/* quant_avx2.c - quant.h's kernels with AVX2 (the AVX-512 set takes them too): 8 values per
** vector, the last few through the portable kernel. Built with -mavx2 and -mfma; run only
** when the CPU has them. */
#include <immintrin.h>
#include <string.h>

#include "fast/quant.h"
#include "fast/x86/rescale_avx2.h"
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

/* q's 8 lanes, each already in type t's range, narrowed into o. */
static inline void store8(pl_type t, __m256i q, uint8_t *o)
{
    /* in range: the saturating packs keep every value */
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    if (t == PL_INT16)
        _mm_storeu_si128((__m128i *)o, w);
    else
        _mm_storel_epi64((__m128i *)o, t == PL_INT8 ? _mm_packs_epi16(w, w)
                                                      : _mm_packus_epi16(w, w));
}

static int32_t lowest(pl_type t)
{
    return t == PL_INT8 ? INT8_MIN : t == PL_UINT8 ? 0 : INT16_MIN;
}

static int32_t highest(pl_type t)
{
    return t == PL_INT8 ? INT8_MAX : t == PL_UINT8 ? UINT8_MAX : INT16_MAX;
}

static void quantize(pl_type t, const float *in, float scale, int32_t zp, void *out, size_t n)
{
    const __m256 s = _mm256_set1_ps(scale);
    const __m256i z = _mm256_set1_epi32(zp);
    const __m256i vlo = _mm256_set1_epi32(lowest(t)), vhi = _mm256_set1_epi32(highest(t));
    const size_t es = t == PL_INT16 ? 2 : 1;
    size_t i = 0;
    for (; n - i >= L; i += L) {
        __m256i q = _mm256_add_epi32(quantize8(_mm256_loadu_ps(in + i), s), z); /* wraps */
        store8(t, _mm256_min_epi32(_mm256_max_epi32(q, vlo), vhi), (uint8_t *)out + i * es);
    }
    void *rest = (uint8_t *)out + i * es;
    if (t == PL_INT8)
        pl_quantize_f32_s8(&per_tensor, &scale, &zp, in + i, rest, n - i);
    else if (t == PL_UINT8)
        pl_quantize_f32_u8(&per_tensor, &scale, &zp, in + i, rest, n - i);
    else
        pl_quantize_f32_s16(&per_tensor, &scale, &zp, in + i, rest, n - i);
}

/* (in - zp) wrapping, TFLite's MultiplyByQuantizedMultiplier (rescale_avx2.h), then the
** output zero point and the clamp. The portable kernel adds the zero point in int64 and
** saturates before it clamps; clamping the product to [lo - zp, hi - zp] first gives the same
** value with no int32 overflow (quant.c keeps |zp| <= 2^16). */
static void requant(const pl_requant_params *p, pl_type ti, const void *in, pl_type to,
                    void *out, size_t n)
{
    const pl_rescale8 r = pl_rescale8_per_tensor(p->multiplier, p->shift);
    const int32_t zo = p->output_zero_point;
    const __m256i zi = _mm256_set1_epi32(p->input_zero_point), vzo = _mm256_set1_epi32(zo);
    const __m256i lo = _mm256_set1_epi32(lowest(to) - zo);
    const __m256i hi = _mm256_set1_epi32(highest(to) - zo);
    const size_t ei = ti == PL_INT16 ? 2 : 1, eo = to == PL_INT16 ? 2 : 1;
    size_t i = 0;
    for (; n - i >= L; i += L) {
        __m256i x = _mm256_sub_epi32(load8(ti, (const uint8_t *)in + i * ei), zi); /* wraps */
        __m256i v = _mm256_min_epi32(_mm256_max_epi32(pl_rescale8_apply(x, &r), lo), hi);
        store8(to, _mm256_add_epi32(v, vzo), (uint8_t *)out + i * eo);
    }
    pl_quantize_requant(p, ti, (const uint8_t *)in + i * ei, to, (uint8_t *)out + i * eo, n - i);
}

const pl_quant_kernels pl_quant_avx2 = {dequantize, quantize, requant};
