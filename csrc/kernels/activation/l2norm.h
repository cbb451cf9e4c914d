/* l2norm.h - L2_NORMALIZATION along the last dim (LiteRT l2norm.cc): float32
** (x / max(sqrt(sum x^2), 1e-6)), int8 (output scale 1/128, zero point 0, as LiteRT
** requires) and uint8 (zero point 128), whose 1 / norm is TFLite's fixed-point inverse
** square root. */
#ifndef PL_KERNELS_L2NORM_H
#define PL_KERNELS_L2NORM_H

#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

const pl_registration *pl_l2_normalization_registration(void);

/* One row of depth values (TFLite reference_integer_ops::L2Normalization). */
void pl_l2norm_s8(int32_t input_zp, const int8_t *in, int8_t *out, size_t depth);
/* One uint8 row (TFLite reference_ops::L2Normalization for uint8). */
void pl_l2norm_u8(int32_t input_zp, const uint8_t *in, uint8_t *out, size_t depth);

#endif
