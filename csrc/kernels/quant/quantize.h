/* quantize.h - QUANTIZE (float32 -> int8/uint8/int16, per-tensor or per-channel; integer
** requantize as TFLite's quantize.cc allows) and DEQUANTIZE (int8/uint8/int16/float16 ->
** float32). */
#ifndef PL_KERNELS_QUANTIZE_H
#define PL_KERNELS_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Per-channel layout: channel of element i is (i / inner) % channels. Per-tensor: 1, 1. */
typedef struct pl_quant_layout {
    PL_SLOT(size_t, channels);
    PL_SLOT(size_t, inner);
} pl_quant_layout;

/* reference_ops::AffineQuantize / PerChannelQuantize: round(x / scale) + zero_point,
** clamped to the output type's range. */
void pl_quantize_f32_s8(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                        const float *in, int8_t *out, size_t n);
void pl_quantize_f32_u8(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                        const float *in, uint8_t *out, size_t n);
void pl_quantize_f32_s16(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                         const float *in, int16_t *out, size_t n);

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

/* Dequantize per tensor ((float)(double scale * (q - zp))) or per channel (float). */
void pl_dequantize_s8(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                      const int8_t *in, float *out, size_t n);
void pl_dequantize_u8(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                      const uint8_t *in, float *out, size_t n);
void pl_dequantize_s16(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                       const int16_t *in, float *out, size_t n);

/* float16 -> float32 (fp16-compressed weights), exact. */
void pl_dequantize_f16(const uint16_t *in, float *out, size_t n);

#endif
