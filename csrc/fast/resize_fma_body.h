/* resize_fma_body.h - RESIZE_BILINEAR's float pixel on a fused target (ctx->fused_madd), for a
** file built where fmaf is one instruction (x86/resize_avx2.c: -mfma; arm/resize_neon.c).
** The portable kernel's corners_fma, operation for operation: the second term whole, then
** the first, third and fourth each fused on their last product (fmaf rounds once wherever
** it runs), plus its rounding term. Define PL_RESIZE_FMA_NAME, then include. */
#include <math.h>
#include <stdint.h>

#include "fast/fast.h"

void PL_RESIZE_FMA_NAME(float *dst, const float *r00, const float *r10, const float *r01,
                        const float *r11, float wy, float wx, int32_t channels)
{
    for (int32_t c = 0; c < channels; c++) {
        float s = fmaf(r00[c] * (1 - wy), 1 - wx, r10[c] * wy * (1 - wx));
        s = fmaf(r01[c] * (1 - wy), wx, s);
        dst[c] = fmaf(r11[c] * wy, wx, s) + 0.0f;
    }
}
