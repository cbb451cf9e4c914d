/* gather_string.h - GATHER of STRING params (TFLite's GatherStrings). */
#ifndef PL_KERNELS_GATHER_STRING_H
#define PL_KERNELS_GATHER_STRING_H

#include <stddef.h>

#include "picolite/pl_kernel.h"

/* Writes the n strings of 1-D params p chosen by idx (every index already checked against
** p's length) into out as TFLite's string buffer. Params that hold no valid string buffer
** and a result past out->bytes (its capacity, pl_type_bytes) fail naming the sizes. */
pl_status pl_gather_strings(pl_context *ctx, const pl_tensor *p, const pl_tensor *idx,
                            const pl_tensor *out, size_t n);

#endif
