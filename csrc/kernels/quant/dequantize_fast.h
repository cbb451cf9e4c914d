/* dequantize_fast.h - DEQUANTIZE's and QUANTIZE's contract with the host fast paths
** (fast/fold.c, fast/quant.c, x86/quant_avx2.c): the registrations, the per-tensor scale and
** zero point prepare kept, and the portable element loops (a vector loop's last elements).
** The fold runs the portable prepare and invoke as they are (its output redirected to host
** memory). */
#ifndef PL_KERNELS_DEQUANTIZE_FAST_H
#define PL_KERNELS_DEQUANTIZE_FAST_H

#include <stdbool.h>
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

/* Dequantize per tensor ((float)(double scale * (q - zp))) or per channel (float). */
void pl_dequantize_s8(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                      const int8_t *in, float *out, size_t n);
void pl_dequantize_u8(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                      const uint8_t *in, float *out, size_t n);
void pl_dequantize_s16(const pl_quant_layout *l, const float *scale, const int32_t *zp,
                       const int16_t *in, float *out, size_t n);

const pl_registration *pl_dequantize_registration(void);
const pl_registration *pl_quantize_registration(void);

/* A prepared DEQUANTIZE of an integer input or QUANTIZE of a float one: its scale and zero
** point when they are per tensor (true), as its invoke uses them. */
bool pl_quant_per_tensor(const pl_node *node, float *scale, int32_t *zp);

#endif
