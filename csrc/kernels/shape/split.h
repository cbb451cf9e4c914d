/* split.h - SPLIT and SPLIT_V: registrations and the copy loop (UNPACK uses it too). */
#ifndef PL_KERNELS_SPLIT_H
#define PL_KERNELS_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/shape/join_split_fast.h" /* the registrations, PL_SPLIT_MAX_OUTPUTS */

/* For each of outer blocks of in, deals run[k] bytes to output k (at outs[k] + o * run[k]). */
void pl_split_copy(const void *in, size_t outer, uint32_t n, void *const *outs,
                   const size_t *run);

#endif
