/* quantize.h - QUANTIZE (float32 -> int8/uint8/int16, per-tensor or per-channel; integer
** requantize as TFLite's quantize.cc allows) and DEQUANTIZE (int8/uint8/int16/float16 ->
** float32). */
#ifndef PL_KERNELS_QUANTIZE_H
#define PL_KERNELS_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/quant/dequantize_fast.h" /* the element loops, the layout */
#include "picolite/pl_kernel.h"

/* float16 -> float32 (fp16-compressed weights), exact. */
void pl_dequantize_f16(const uint16_t *in, float *out, size_t n);

#endif
