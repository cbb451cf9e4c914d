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

/* A prepared QUANTIZE whose input is an integer tensor (a requantization; the caller checks
** the input's type): its parameters, as its invoke uses them (true); false for another op. */
bool pl_quant_requant_of(const pl_node *node, pl_requant_params *rq);

/* A prepared DEQUANTIZE of an integer input or QUANTIZE of a float one: its scale and zero
** point when they are per tensor (true), as its invoke uses them. */
bool pl_quant_per_tensor(const pl_node *node, float *scale, int32_t *zp);

#endif
