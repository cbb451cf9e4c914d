/* quantize.h - QUANTIZE (float32 -> int8/uint8/int16, per-tensor or per-channel; integer
** requantize as TFLite's quantize.cc allows) and DEQUANTIZE (int8/uint8/int16/float16 ->
** float32). */
#ifndef PL_KERNELS_QUANTIZE_H
#define PL_KERNELS_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/quant/dequantize_fast.h" /* the element loops, the layout */
#include "picolite/pl_kernel.h"

/* reference_ops::Requantize: (q - in_zp) * multiplier + out_zp, clamped to the output type. */
typedef struct pl_requant_params {
    int32_t input_zero_point;
    int32_t output_zero_point;
    int32_t multiplier;
    int32_t shift;
} pl_requant_params;

/* Element types: int8, uint8, int16, int32 in; int8, uint8, int16, int32 out. */
void pl_quantize_requant(const pl_requant_params *p, pl_type in_type, const void *in,
                         pl_type out_type, void *out, size_t n);

/* float16 -> float32 (fp16-compressed weights), exact. */
void pl_dequantize_f16(const uint16_t *in, float *out, size_t n);

#endif
