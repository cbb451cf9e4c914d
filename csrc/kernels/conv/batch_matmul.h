/* batch_matmul.h - BATCH_MATMUL: LiteRT's reference BatchMatMul (float32, int8, int16) with
** adj_x/adj_y and broadcast batch dimensions (ranks 2 to 5). */
#ifndef PL_KERNELS_BATCH_MATMUL_H
#define PL_KERNELS_BATCH_MATMUL_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Precomputed in prepare. Batch dims are extended to 3; a broadcast (size-1) batch dim of
** an operand has stride 0. */
typedef struct pl_batch_matmul_params {
    int32_t batch[3];
    PL_SLOTS(size_t, lhs_stride, 3);
    PL_SLOTS(size_t, rhs_stride, 3);
    int32_t rows, cols, depth;
    bool adj_x, adj_y;
    int32_t lhs_offset, rhs_offset, output_offset; /* -zero points, output zero point */
    int32_t multiplier, shift;
    int32_t act_min, act_max;
} pl_batch_matmul_params;

void pl_batch_matmul_f32(const pl_batch_matmul_params *p, const float *lhs, const float *rhs,
                         float *out);
void pl_batch_matmul_s8(const pl_batch_matmul_params *p, const int8_t *lhs,
                        const int8_t *rhs, int8_t *out);
/* int16: 64-bit accumulator and the int64 rescale, as LiteRT's BatchMatMul<int16, int64>. */
void pl_batch_matmul_s16(const pl_batch_matmul_params *p, const int16_t *lhs,
                         const int16_t *rhs, int16_t *out);

/* BATCH_MATMUL's op data (read by the host fast paths too). */
typedef struct pl_batch_matmul_op {
    pl_batch_matmul_params p;
    pl_type type;
} pl_batch_matmul_op;

const pl_registration *pl_batch_matmul_registration(void);

#endif
