/* gather_fast.h - GATHER's contract with the host fast path (fast/gather.c): the op data
** prepare leaves for invoke.
**
** A fast path reads these after the portable prepare ran and never writes them. Indices are
** runtime data: it copies only when every one is in 0..axis_size - 1 and runs the portable
** invoke otherwise (which fails naming the first bad one). */
#ifndef PL_KERNELS_GATHER_FAST_H
#define PL_KERNELS_GATHER_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* The op data prepare fills: output rows of `inner` elements, for each batch, outer index
** and index (coords per batch), row (b * outer + r) * axis_size + index of the params. */
typedef struct pl_gather_op {
    PL_SLOT(size_t, batch); /* element counts of the loop levels */
    PL_SLOT(size_t, outer);
    PL_SLOT(size_t, inner);
    PL_SLOT(size_t, coords);
    int32_t axis_size;
} pl_gather_op;

const pl_registration *pl_gather_registration(void);

#endif
