/* logistic_tanh.h - LOGISTIC and TANH for float32, int8 (TFLM's fixed-point arithmetic per
** element; in LiteRT's, a 256-entry table built from the float function, as TFLite's
** reference kernels do), uint8 (that table) and int16 (TFLite's interpolated sigmoid table,
** reference_integer_ops::Logistic/Tanh). */
#ifndef PL_KERNELS_LOGISTIC_TANH_H
#define PL_KERNELS_LOGISTIC_TANH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/activation/logistic_tanh_fast.h"
#include "picolite/pl_kernel.h"

/* The float sigmoid's rule: logistic_tanh_fast.h. */
void pl_logistic_f32(const float *in, float *out, size_t n);
void pl_tanh_f32(const float *in, float *out, size_t n);

/* out[i] = lut[(uint8_t)in[i]]: the int8 path of both ops in LiteRT's arithmetic. */
void pl_logistic_s8(const int8_t lut[256], const int8_t *in, int8_t *out, size_t n);
/* out[i] = lut[in[i]]: the legacy uint8 path of both ops. */
void pl_logistic_u8(const uint8_t lut[256], const uint8_t *in, uint8_t *out, size_t n);

#endif
