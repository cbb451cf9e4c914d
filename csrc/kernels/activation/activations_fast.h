/* activations_fast.h - RELU, RELU6, RELU_N1_TO_1, LEAKY_RELU and HARD_SWISH's contract
** with the host fast path (fast/lut8.c): the op data and the portable loops it tabulates.
**
** The op data is a union: a fast path reads the member of its node's registration only,
** after the portable prepare ran, and never writes it. */
#ifndef PL_KERNELS_ACTIVATIONS_FAST_H
#define PL_KERNELS_ACTIVATIONS_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Quantized ReLU-family parameters (TFLite ReluParams). */
typedef struct pl_relu_params {
    int32_t input_offset;
    int32_t output_offset;
    int32_t output_multiplier;
    int32_t output_shift;
    int32_t act_min;
    int32_t act_max;
} pl_relu_params;

/* TFLite LeakyReluParams; alpha is used by float only. */
typedef struct pl_leaky_relu_params {
    float alpha;
    int32_t input_offset;
    int32_t output_offset;
    int32_t multiplier_alpha; /* magnitude; negative_alpha says the sign */
    int32_t shift_alpha;
    int32_t multiplier_identity;
    int32_t shift_identity;
    bool negative_alpha;
} pl_leaky_relu_params;

/* TFLite HardSwishParams (16-bit fixed-point multipliers). */
typedef struct pl_hard_swish_params {
    int32_t input_zero_point;
    int32_t output_zero_point;
    int16_t reluish_multiplier;
    int32_t reluish_exponent;
    int16_t output_multiplier;
    int32_t output_exponent;
} pl_hard_swish_params;

/* The op data of these kernels: one op uses one member. */
typedef union pl_activation_op {
    pl_relu_params relu;
    pl_leaky_relu_params leaky;
    pl_hard_swish_params hs;
} pl_activation_op;

/* Float clamps: out = in < lo ? lo : in, then hi < out ? hi : out (RELU: lo 0, hi +inf;
** RELU6: 0, 6; RELU_N1_TO_1: -1, 1). The host fast path runs this loop over spans. */
void pl_relu_f32(const float *in, float *out, size_t n, float lo, float hi);

/* The int8 and uint8 loops the host fast path runs over the 256 input bytes to build a
** node's table (its bits are theirs). */
void pl_relu_s8(const pl_relu_params *p, const int8_t *in, int8_t *out, size_t n);
void pl_relu_u8(const pl_relu_params *p, const uint8_t *in, uint8_t *out, size_t n);
void pl_leaky_relu_s8(const pl_leaky_relu_params *p, const int8_t *in, int8_t *out, size_t n);
void pl_leaky_relu_u8(const pl_leaky_relu_params *p, const uint8_t *in, uint8_t *out,
                      size_t n);
void pl_hard_swish_s8(const pl_hard_swish_params *p, const int8_t *in, int8_t *out, size_t n);
void pl_hard_swish_u8(const pl_hard_swish_params *p, const uint8_t *in, uint8_t *out,
                      size_t n);

const pl_registration *pl_relu_registration(void);
const pl_registration *pl_relu6_registration(void);
const pl_registration *pl_relu_n1_to_1_registration(void);
const pl_registration *pl_leaky_relu_registration(void);
const pl_registration *pl_hard_swish_registration(void);

#endif
