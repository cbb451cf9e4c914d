/* transpose.h - TRANSPOSE: registration and the gather loop. */
#ifndef PL_KERNELS_TRANSPOSE_H
#define PL_KERNELS_TRANSPOSE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/shape/transpose_fast.h" /* the op data */
#include "picolite/pl_kernel.h"

/* Writes out (out_dims, row-major) from in, where one step along output axis a moves
** in_step[a] input elements. */
void pl_transpose_copy(int32_t ndims, const int32_t *out_dims, const size_t *in_step,
                       size_t esize, const void *in, void *out);

#endif
