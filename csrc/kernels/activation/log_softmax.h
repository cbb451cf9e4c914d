/* log_softmax.h - LOG_SOFTMAX along the last dim (LiteRT's reference LogSoftmax):
** x - max - log(sum(exp(x - max))), float32. */
#ifndef PL_KERNELS_LOG_SOFTMAX_H
#define PL_KERNELS_LOG_SOFTMAX_H

#include <stddef.h>

#include "picolite/pl_kernel.h"

const pl_registration *pl_log_softmax_registration(void);

void pl_log_softmax_f32(const float *in, float *out, size_t depth);

#endif
