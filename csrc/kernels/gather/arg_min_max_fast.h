/* arg_min_max_fast.h - ARG_MAX's and ARG_MIN's contract with the host fast path
** (fast/arg_max.c): the op data prepare leaves for invoke, read and never written. */
#ifndef PL_KERNELS_ARG_MIN_MAX_FAST_H
#define PL_KERNELS_ARG_MIN_MAX_FAST_H

#include <stddef.h>

#include "picolite/pl_kernel.h"

/* The input as [outer][axis_size][inner]: output o * inner + i is the index along the axis
** of the extreme of elements (o * axis_size + j) * inner + i. */
typedef struct pl_arg_min_max_op {
    PL_SLOT(size_t, outer); /* slots: one layout on 32-bit targets */
    PL_SLOT(size_t, axis_size);
    PL_SLOT(size_t, inner);
} pl_arg_min_max_op;

const pl_registration *pl_arg_max_registration(void);
const pl_registration *pl_arg_min_registration(void);

#endif
