/* resize_body.h - RESIZE_BILINEAR's output pixel, written once and built for each instruction
** set (resize.c plain, x86/resize_sse41.c, x86/resize_avx2.c, arm/resize_neon.c: the compiler
** vectorizes the channel loops for the set). Each element is the portable kernel's expression
** operation for operation: float and uint8 its four products of three, summed in its order,
** plus its rounding term, unfused; int8 and int16 the same integer sum (exact in int32 for
** int8, whose weights the plan checked, and in int64 for int16), rounded half away from zero
** and divided by 2^20, truncating. Where PL_RESIZE_FMA is defined (the set has FMA: fmaf is
** one instruction), a fused target's float runs the portable corners_fma: the second term
** whole, then the first, third and fourth each fused on their last product (fmaf rounds once
** wherever it runs). Define PL_RESIZE_PX_NAME (and PL_RESIZE_FMA), then include. */
#include <math.h>
#include <stdint.h>

#include "fast/fast.h"

#define PL_RESIZE_F(TYPE, STORE, ROUNDING)                                                 \
    for (int32_t c = 0; c < channels; c++) {                                           \
        float v = (float)((const TYPE *)r00)[c] * (1 - wy) * (1 - wx) +                    \
                  (float)((const TYPE *)r10)[c] * wy * (1 - wx) +                          \
                  (float)((const TYPE *)r01)[c] * (1 - wy) * wx +                          \
                  (float)((const TYPE *)r11)[c] * wy * wx + (ROUNDING);                    \
        ((STORE *)dst)[c] = (STORE)v;                                                      \
    }

#define PL_RESIZE_Q(TYPE, SUM_T)                                                           \
    for (int32_t c = 0; c < channels; c++) {                                           \
        SUM_T s = (SUM_T)((const TYPE *)r00)[c] * w[0] + (SUM_T)((const TYPE *)r10)[c] * w[1] + \
                  (SUM_T)((const TYPE *)r01)[c] * w[2] + (SUM_T)((const TYPE *)r11)[c] * w[3]; \
        ((TYPE *)dst)[c] = (TYPE)((s + (s > 0 ? (1 << 19) : -(1 << 19))) / (1 << 20));      \
    }

void PL_RESIZE_PX_NAME(void *restrict dst, const pl_fast_bilinear_corners *k, int32_t channels,
                       pl_type type, bool fused)
{
    const void *restrict r00 = k->r00, *restrict r10 = k->r10;
    const void *restrict r01 = k->r01, *restrict r11 = k->r11;
    const float wy = k->wy, wx = k->wx;
    const int32_t *w = k->w;
#ifdef PL_RESIZE_FMA
    if (fused) {
        const float *a = r00, *b = r10, *c0 = r01, *d = r11;
        for (int32_t c = 0; c < channels; c++) {
            float s = fmaf(a[c] * (1 - wy), 1 - wx, b[c] * wy * (1 - wx));
            s = fmaf(c0[c] * (1 - wy), wx, s);
            ((float *)dst)[c] = fmaf(d[c] * wy, wx, s) + 0.0f;
        }
        return;
    }
#else
    (void)fused; /* never asked: the plan declines a fused target's float without FMA */
#endif
    switch (type) {
    case PL_FLOAT32: PL_RESIZE_F(float, float, 0.0f) break;
    case PL_UINT8: PL_RESIZE_F(uint8_t, uint8_t, 0.5f) break;
    case PL_INT8: PL_RESIZE_Q(int8_t, int32_t) break;
    default: PL_RESIZE_Q(int16_t, int64_t) break;
    }
}

#undef PL_RESIZE_F
#undef PL_RESIZE_Q
