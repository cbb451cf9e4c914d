/* strided_slice_fast.h - STRIDED_SLICE's contract with the host fast path
** (fast/strided_slice.c): the op data prepare leaves for invoke.
**
** A fast path reads these after the portable prepare ran and never writes them; it runs
** the portable invoke for what it does not reproduce. */
#ifndef PL_KERNELS_STRIDED_SLICE_FAST_H
#define PL_KERNELS_STRIDED_SLICE_FAST_H

#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Effective rank accepted (input rank + new axes); LiteRT runs these too. */
#define PL_STRIDED_SLICE_MAX_DIMS PL_MAX_DIMS

/* The op data prepare fills (the host fast path reads it): the strided copy's parameters. */
typedef struct pl_strided_slice_op {
    int32_t ndims;                               /* effective rank */
    int32_t start[PL_STRIDED_SLICE_MAX_DIMS];
    int32_t stride[PL_STRIDED_SLICE_MAX_DIMS];
    int32_t count[PL_STRIDED_SLICE_MAX_DIMS];    /* output extent of each effective axis */
    PL_ALIGN8 int64_t in_step[PL_STRIDED_SLICE_MAX_DIMS]; /* input elements per axis index */
} pl_strided_slice_op;

const pl_registration *pl_strided_slice_registration(void);

#endif
