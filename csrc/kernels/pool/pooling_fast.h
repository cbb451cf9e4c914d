/* pooling_fast.h - AVERAGE_POOL_2D and MAX_POOL_2D's contract with the host fast path
** (fast/pool.c): the op data prepare leaves for invoke.
**
** A fast path reads these after the portable prepare ran and never writes them; it runs
** the portable invoke for what it does not reproduce. */
#ifndef PL_KERNELS_POOLING_FAST_H
#define PL_KERNELS_POOLING_FAST_H

#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Precomputed in prepare; input and output are NHWC. */
typedef struct pl_pooling_params {
    int32_t stride_w, stride_h, filter_w, filter_h, pad_w, pad_h;
    int32_t act_min, act_max;
    float f_act_min, f_act_max;
} pl_pooling_params;

/* AVERAGE_POOL_2D and MAX_POOL_2D's op data (read by the host fast paths too). */
typedef struct pl_pooling_op {
    pl_pooling_params p;
    pl_type type;
} pl_pooling_op;

const pl_registration *pl_pooling_avg_registration(void);
const pl_registration *pl_pooling_max_registration(void);

#endif
