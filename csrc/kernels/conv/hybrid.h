/* hybrid.h - what the hybrid (dynamic-range) kernels share: float inputs quantized to int8 on
** the fly, as LiteRT's tensor_utils do it, and the int8 weights' scales. */
#ifndef PL_KERNELS_HYBRID_H
#define PL_KERNELS_HYBRID_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/conv/hybrid_fast.h"
#include "kernels/conv/conv_params.h"
#include "picolite/pl_kernel.h"

/* tensor_utils::SymmetricQuantizeFloats: scale = max|x| / 127, values rounded and clamped
** to [-127, 127]; an all-zero input gets scale 1. Each value's rule: x * inv rounded half
** away from zero, a NaN to -127 (pl_hybrid_symmetric_params' inv). */
void pl_hybrid_quantize_symmetric(const float *x, int32_t n, int8_t *q, float *scale);

/* tensor_utils::AsymmetricQuantizeFloats as LiteRT 2.3 computes it: [min(0, lo), max(0, hi)]
** onto [-128, 127], the zero point taken from the end with the smaller error, then nudged;
** each value is zero point + round(x * inv), inv = 1 / scale, the rounded value clamped to
** [-512, 512] first (a NaN to -512), the sum to [-128, 127]. */
void pl_hybrid_quantize_asymmetric(const float *x, int32_t n, int8_t *q, float *scale,
                                   int32_t *zero_point);

/* The int8 weights' scales, copied to persistent memory (the prepare view is temporary):
** one, or one per channel along dimension qdim; zero points must be 0. */
pl_status pl_hybrid_filter_scales(pl_context *ctx, const pl_convq_names *names,
                                  const pl_tensor *f, int32_t channels, int32_t qdim,
                                  const float **scales);

#endif
