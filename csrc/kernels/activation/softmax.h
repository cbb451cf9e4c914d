/* softmax.h - SOFTMAX for float32, int8 -> int8/int16 and int16 -> int16 (TFLite reference).
**
** int8 input follows reference_ops::Softmax: gemmlowp fixed-point exp of the beta-scaled
** differences to the row maximum (Q5.26), a Q12.19 sum and its reciprocal. int16 follows
** reference_ops::SoftmaxInt16: an exp table over [-10, 0] and a 1/(1+x) table. */
#ifndef PL_KERNELS_SOFTMAX_H
#define PL_KERNELS_SOFTMAX_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/activation/softmax_fast.h" /* the op data */
#include "picolite/pl_kernel.h"

/* Each row of `depth` contiguous values is normalised; there are `outer` rows. */
void pl_softmax_f32(float beta, const float *in, float *out, size_t outer, size_t depth);
void pl_softmax_s8(const pl_softmax_params *p, const int8_t *in, int8_t *out, size_t outer,
                   size_t depth);
/* Legacy uint8 in and out (output scale 1/256, zero point 0). */
void pl_softmax_u8(const pl_softmax_params *p, const uint8_t *in, uint8_t *out, size_t outer,
                   size_t depth);
void pl_softmax_s8_s16(const pl_softmax_params *p, const int8_t *in, int16_t *out,
                       size_t outer, size_t depth);
void pl_softmax_s16(const pl_softmax_params *p, const int16_t *in, int16_t *out,
                    size_t outer, size_t depth);

#endif
