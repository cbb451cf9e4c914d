/* slice_fast.h - SLICE's contract with the host fast path (fast/slice.c): the op data
** prepare leaves for invoke.
**
** A fast path reads these after the portable prepare ran and never writes them; it runs
** the portable invoke for what it does not reproduce (begin and size read at invoke). */
#ifndef PL_KERNELS_SLICE_FAST_H
#define PL_KERNELS_SLICE_FAST_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* The op data prepare fills: the box copied out of the input (row-major, the input's rank). */
typedef struct pl_slice_op {
    int32_t begin[PL_MAX_DIMS];
    int32_t size[PL_MAX_DIMS];
    bool ready; /* begin/size were constants, resolved at prepare (else read at invoke) */
} pl_slice_op;

const pl_registration *pl_slice_registration(void);

#endif
