/* transpose_fast.h - TRANSPOSE's contract with the host fast path (fast/transpose.c): the
** op data prepare leaves for invoke.
**
** A fast path reads these after the portable prepare ran and never writes them. The walk is
** the permutation the target's kernel carries out (CMSIS-NN's int8 one included), so a copy
** that follows it is the portable kernel's; ndims -1 means the kernel writes nothing. */
#ifndef PL_KERNELS_TRANSPOSE_FAST_H
#define PL_KERNELS_TRANSPOSE_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Ranks accepted (TFLite's reference transposes up to 6-D). */
#define PL_TRANSPOSE_MAX_DIMS 6

/* The op data prepare fills: the output walked in order, gathering from the input. */
typedef struct pl_transpose_op {
    int32_t ndims; /* -1: write nothing (CMSIS-NN's int8 transpose refuses the rank) */
    int32_t out_dims[PL_TRANSPOSE_MAX_DIMS];
    PL_SLOTS(size_t, in_step, PL_TRANSPOSE_MAX_DIMS); /* input elements per step of output axis i */
} pl_transpose_op;

const pl_registration *pl_transpose_registration(void);

#endif
