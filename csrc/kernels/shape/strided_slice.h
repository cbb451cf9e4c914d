/* strided_slice.h - STRIDED_SLICE: registration and the strided copy. */
#ifndef PL_KERNELS_STRIDED_SLICE_H
#define PL_KERNELS_STRIDED_SLICE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/shape/strided_slice_fast.h" /* the op data */
#include "picolite/pl_kernel.h"

/* Copies count[0] x ... x count[n-1] elements of esize bytes, row-major; element (j...)
** comes from input element sum((start[a] + j[a] * stride[a]) * in_step[a]). */
void pl_strided_slice_copy(int32_t ndims, const int32_t *start, const int32_t *stride,
                           const int32_t *count, const int64_t *in_step, size_t esize,
                           const void *in, void *out);

#endif
