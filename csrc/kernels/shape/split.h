/* split.h - SPLIT and SPLIT_V: registrations and the copy loop (UNPACK uses it too). */
#ifndef PL_KERNELS_SPLIT_H
#define PL_KERNELS_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Outputs per node accepted (bounds the stack of invoke). */
#define PL_SPLIT_MAX_OUTPUTS 64

const pl_registration *pl_split_registration(void);
const pl_registration *pl_split_v_registration(void);

/* For each of outer blocks of in, deals run[k] bytes to output k (at outs[k] + o * run[k]). */
void pl_split_copy(const void *in, size_t outer, uint32_t n, void *const *outs,
                   const size_t *run);

#endif
