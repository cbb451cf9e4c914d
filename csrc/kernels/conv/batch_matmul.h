/* batch_matmul.h - BATCH_MATMUL: LiteRT's reference BatchMatMul (float32, int8, int16) with
** adj_x/adj_y and broadcast batch dimensions (ranks 2 to 5). */
#ifndef PL_KERNELS_BATCH_MATMUL_H
#define PL_KERNELS_BATCH_MATMUL_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/conv/batch_matmul_fast.h" /* the op data */
#include "picolite/pl_kernel.h"

void pl_batch_matmul_f32(const pl_batch_matmul_params *p, const float *lhs, const float *rhs,
                         float *out);
void pl_batch_matmul_s8(const pl_batch_matmul_params *p, const int8_t *lhs,
                        const int8_t *rhs, int8_t *out);
/* int16: 64-bit accumulator and the int64 rescale, as LiteRT's BatchMatMul<int16, int64>. */
void pl_batch_matmul_s16(const pl_batch_matmul_params *p, const int16_t *lhs,
                         const int16_t *rhs, int16_t *out);

#endif
