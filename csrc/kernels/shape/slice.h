/* slice.h - SLICE: registration and the box copy DYNAMIC_UPDATE_SLICE shares. */
#ifndef PL_KERNELS_SLICE_H
#define PL_KERNELS_SLICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/shape/slice_fast.h" /* the op data */
#include "picolite/pl_kernel.h"

/* Copies between the box of box_dims at offset begin inside a dense tensor of big_dims and a
** dense tensor of box_dims: into the box when to_big, out of it otherwise. The caller has
** checked begin[d] + box_dims[d] <= big_dims[d]. */
void pl_slice_box(int32_t ndims, const int32_t *big_dims, const int32_t *begin,
                  const int32_t *box_dims, size_t esize, void *big, void *box, bool to_big);

#endif
