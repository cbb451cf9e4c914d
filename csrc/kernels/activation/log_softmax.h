/* log_softmax.h - LOG_SOFTMAX along the last dim (LiteRT's reference LogSoftmax): float32
** x - max - log(sum(exp(x - max))), and int8 in gemmlowp fixed point (exp of Q5.26
** differences summed in Q12.19, its log in Q5.26), output scale 16/256 and zero point 127
** as LiteRT requires; uint8 the same with zero point 255 (LiteRT's uint8 reference). */
#ifndef PL_KERNELS_LOG_SOFTMAX_H
#define PL_KERNELS_LOG_SOFTMAX_H

#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* TFLite SoftmaxParams for int8 log-softmax. */
typedef struct pl_log_softmax_params {
    int32_t input_multiplier, input_left_shift;
    int32_t reverse_multiplier, reverse_shift; /* reverse_shift <= 0 */
    int32_t diff_min;
} pl_log_softmax_params;

const pl_registration *pl_log_softmax_registration(void);

void pl_log_softmax_f32(const float *in, float *out, size_t depth);
/* One row (TFLite reference_integer_ops::LogSoftmax). */
void pl_log_softmax_s8(const pl_log_softmax_params *p, const int8_t *in, int8_t *out,
                       size_t depth);
void pl_log_softmax_u8(const pl_log_softmax_params *p, const uint8_t *in, uint8_t *out,
                       size_t depth);
/* TFLite log_x_for_x_greater_than_or_equal_to_1<5>(x in Q12.19): log(x) in Q5.26. */
int32_t pl_log_softmax_log_q12(int32_t x);

#endif
