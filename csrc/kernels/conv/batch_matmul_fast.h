/* batch_matmul_fast.h - BATCH_MATMUL's contract with the host fast path
** (fast/batch_matmul.c): the op data prepare leaves for invoke.
**
** A fast path reads these after the portable prepare ran and never writes them; it runs
** the portable invoke for what it does not reproduce. */
#ifndef PL_KERNELS_BATCH_MATMUL_FAST_H
#define PL_KERNELS_BATCH_MATMUL_FAST_H

#include <stdbool.h>
#include <stddef.h>
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
    bool fused; /* float: the target fuses each multiply-add (ctx->fused_madd) */
    int32_t lhs_offset, rhs_offset, output_offset; /* -zero points, output zero point */
    int32_t multiplier, shift;
    int32_t act_min, act_max;
} pl_batch_matmul_params;

/* BATCH_MATMUL's op data (read by the host fast paths too). */
typedef struct pl_batch_matmul_op {
    pl_batch_matmul_params p;
    pl_type type;
} pl_batch_matmul_op;

const pl_registration *pl_batch_matmul_registration(void);

#endif
