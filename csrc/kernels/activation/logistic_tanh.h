/* logistic_tanh.h - LOGISTIC and TANH for float32, int8 (TFLM's fixed-point arithmetic per
** element; in LiteRT's, a 256-entry table built from the float function, as TFLite's
** reference kernels do), uint8 (that table) and int16 (TFLite's interpolated sigmoid table,
** reference_integer_ops::Logistic/Tanh). */
#ifndef PL_KERNELS_LOGISTIC_TANH_H
#define PL_KERNELS_LOGISTIC_TANH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* The reference's float sigmoid (TFLite's and TFLM's alike): 1 above the upper cutoff, e^x
** below the lower one, 1 / (1 + e^-x) between (NaN included). */
#define PL_LOGISTIC_F32_UPPER 16.619047164916992188f
#define PL_LOGISTIC_F32_LOWER -9.0f
void pl_logistic_f32(const float *in, float *out, size_t n);
void pl_tanh_f32(const float *in, float *out, size_t n);

/* out[i] = lut[(uint8_t)in[i]]: the int8 path of both ops in LiteRT's arithmetic. */
void pl_logistic_s8(const int8_t lut[256], const int8_t *in, int8_t *out, size_t n);
/* out[i] = lut[in[i]]: the legacy uint8 path of both ops. */
void pl_logistic_u8(const uint8_t lut[256], const uint8_t *in, uint8_t *out, size_t n);

/* multiplier 0 means a power-of-two input scale with the given left shift; otherwise
** the input is multiplied and rounding-shifted right by left_shift (TFLite's Prepare). */
void pl_logistic_s16(int32_t multiplier, int32_t left_shift, const int16_t *in, int16_t *out,
                     size_t n);
void pl_tanh_s16(int32_t multiplier, int32_t left_shift, const int16_t *in, int16_t *out,
                 size_t n);

/* A prepared int8 or uint8 LOGISTIC (is_tanh false) or TANH node's results on the 256 input
** bytes, indexed by the byte, for its input type and the context's arithmetic: the node's
** table, or (int8 in TFLM's arithmetic, which keeps none in the arena) the per-element
** arithmetic run on every byte. What the host fast path looks up. */
void pl_logistic_tanh_table(const pl_node *node, pl_type type, pl_arith arith, bool is_tanh,
                            uint8_t table[256]);

#endif
