/* rescale_avx512.h - TFLite's int8 output stage on 16 int32 lanes with AVX-512 (for the
** files built with -mavx512f -mavx512bw ...: gemm and depthwise). */
#ifndef PL_FAST_X86_RESCALE_AVX512_H
#define PL_FAST_X86_RESCALE_AVX512_H

#include <immintrin.h>
#include <stdint.h>

/* A rescale's per-channel operands, split once for the lanes: the multiplier and its odd
** lanes' copy, the shifts, and the rounding mask of the right shift and its half. */
typedef struct pl_rescale16 {
    __m512i mult, mult_odd, left, right, mask, half;
} pl_rescale16;

static inline pl_rescale16 pl_rescale16_of(__m512i mult, __m512i left, __m512i right)
{
    const __m512i one = _mm512_set1_epi32(1);
    __m512i mask = _mm512_sub_epi32(_mm512_sllv_epi32(one, right), one);
    return (pl_rescale16){mult, _mm512_srli_epi64(mult, 32), left, right, mask,
                          _mm512_srai_epi32(mask, 1)};
}

/* One multiplier and shift (TFLite's: left when positive, the right shift capped at 31, as
** pl_rescale_qm) for every lane. */
static inline pl_rescale16 pl_rescale16_per_tensor(int32_t multiplier, int32_t shift)
{
    return pl_rescale16_of(_mm512_set1_epi32(multiplier), _mm512_set1_epi32(shift > 0 ? shift : 0),
                           _mm512_set1_epi32(shift > 0 ? 0 : shift < -31 ? 31 : -shift));
}

/* TFLite's MultiplyByQuantizedMultiplier on 16 lanes (multipliers are never INT32_MIN, so
** the doubling high multiply cannot saturate): floor((x * m + 2^30) / 2^31), then the
** rounding right shift, half away from zero. */
static inline __m512i pl_rescale16_apply(__m512i x, const pl_rescale16 *r)
{
    const __m512i half = _mm512_set1_epi64(1LL << 30), one = _mm512_set1_epi32(1);
    x = _mm512_sllv_epi32(x, r->left);
    __m512i even = _mm512_mul_epi32(x, r->mult);
    __m512i odd = _mm512_mul_epi32(_mm512_srli_epi64(x, 32), r->mult_odd);
    /* the low 32 bits of a logical and an arithmetic shift by 31 agree */
    even = _mm512_srli_epi64(_mm512_add_epi64(even, half), 31);
    odd = _mm512_slli_epi64(_mm512_srli_epi64(_mm512_add_epi64(odd, half), 31), 32);
    __m512i high = _mm512_mask_blend_epi32(0xAAAA, even, odd);
    __m512i threshold = _mm512_sub_epi32(r->half, _mm512_srai_epi32(high, 31));
    __m512i q = _mm512_srav_epi32(high, r->right);
    __mmask16 up = _mm512_cmpgt_epi32_mask(_mm512_and_si512(high, r->mask), threshold);
    return _mm512_mask_add_epi32(q, up, q, one);
}

/* The quick form of the rescale (gemm.h's pl_s8_stage, tilted by its tilt), for channels with a
** right shift of 1 or more and no left shift: TFLite's two roundings (half up after the high
** multiply, half away from zero after the right shift) give exactly the value x * mult / 2^(31
** + right) moved 2^-(right+1) away from zero, then rounded half away from zero (derived, then
** checked on 600,000 random cases in exact arithmetic). So y = x * scale + offset + sign(x)
** tilt, tilt = 2^-(right+1), rounded once, is the result wherever y lies farther from a tie
** than the float's own error: the window is 2^-11 whatever the shift (the untilted form's is
** 2^-(right+1) + 2^-11: a right shift of 7 sent 0.9% of lanes, 13% of vectors, to the exact
** form; this one 0.1%). The rounding and conversions are explicit (not the MXCSR's); the lanes
** whose value lies nearer a tie are flagged, and their *q must not be used. VREDUCEPS gives y
** less its nearest integer exactly, so y is rounded once (VCVTPS2DQ) rather than rounded,
** converted and subtracted. (Clamping y to the activation in float first, so that the values it
** cuts off are never flagged, held two more vectors live: a 3x3 ResNet layer ran 18% slower.) */
static inline __mmask16 pl_quick16_tilted(__m512i x, __m512 scale, __m512 tilt, __m512 offset,
                                          __m512i *q)
{
    enum { NEAREST = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC };
    /* tilt with x's sign bit: (x & sign) | tilt */
    const __m512 signed_tilt = _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
        x, _mm512_set1_epi32(INT32_MIN), _mm512_castps_si512(tilt), 0xEA));
    __m512 y = _mm512_fmadd_round_ps(_mm512_cvt_roundepi32_ps(x, NEAREST), scale,
                                     _mm512_add_ps(offset, signed_tilt), NEAREST);
    *q = _mm512_cvt_roundps_epi32(y, NEAREST);
    __m512 rest = _mm512_reduce_ps(y, NEAREST); /* no fraction bits kept */
    return _mm512_cmp_ps_mask(_mm512_abs_ps(rest), _mm512_set1_ps(0.5f - 0x1p-11f), _CMP_GT_OQ);
}

static inline __m512i pl_rescale_avx512(__m512i x, __m512i mult, __m512i left, __m512i right)
{
    const pl_rescale16 r = pl_rescale16_of(mult, left, right);
    return pl_rescale16_apply(x, &r);
}

#endif
