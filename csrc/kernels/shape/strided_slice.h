/* strided_slice.h - STRIDED_SLICE: registration and the strided copy. */
#ifndef PL_KERNELS_STRIDED_SLICE_H
#define PL_KERNELS_STRIDED_SLICE_H

#include <stddef.h>
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

/* Copies count[0] x ... x count[n-1] elements of esize bytes, row-major; element (j...)
** comes from input element sum((start[a] + j[a] * stride[a]) * in_step[a]). */
void pl_strided_slice_copy(int32_t ndims, const int32_t *start, const int32_t *stride,
                           const int32_t *count, const int64_t *in_step, size_t esize,
                           const void *in, void *out);

#endif
