/* invsqrt.h - TFLite's GetInvSqrtQuantizedMultiplierExp: 1 / sqrt(x) as a multiplier and
** shift, by gemmlowp fixed-point Newton-Raphson (RSQRT int8, L2_NORMALIZATION int8). */
#ifndef PL_KERNELS_INVSQRT_H
#define PL_KERNELS_INVSQRT_H

#include <stdint.h>

/* x >= 0; x <= 1 gives (INT32_MAX, 0), as TFLite treats 0 like 1. With reverse_shift -1
** (TFLite's kReverseShift) *shift is a left shift for pl_fx_mul_by_qm. */
void pl_invsqrt_multiplier(int32_t x, int32_t reverse_shift, int32_t *multiplier,
                           int32_t *shift);

#endif
