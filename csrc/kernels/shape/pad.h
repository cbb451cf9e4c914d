/* pad.h - PAD and PADV2: registrations and the copy loop. */
#ifndef PL_KERNELS_PAD_H
#define PL_KERNELS_PAD_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/shape/pad_fast.h" /* the op data, the pad value */
#include "picolite/pl_kernel.h"

/* Fills out (out_dims) with the esize-byte value, then places in (in_dims) at offset
** `before` in every dim. */
void pl_pad_copy(int32_t ndims, const int32_t *in_dims, const int32_t *out_dims,
                 const int32_t *before, size_t esize, const void *value, const void *in,
                 void *out);

#endif
