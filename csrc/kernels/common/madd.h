/* madd.h - a float multiply-add rounded as the target's firmware rounds it. */
#ifndef PL_KERNELS_MADD_H
#define PL_KERNELS_MADD_H

#include <math.h>
#include <stdbool.h>

/* acc + a * b: one rounding (fmaf) where the firmware's compiler fuses TFLite's expression
** into a VFMA (ctx->fused_madd), else a multiply and an add, each rounded. */
static inline float pl_madd_f32(float acc, float a, float b, bool fused)
{
    return fused ? fmaf(a, b, acc) : acc + a * b;
}

#endif
