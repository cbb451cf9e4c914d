/* concatenation.h - CONCATENATION: registration and the copy loop. */
#ifndef PL_KERNELS_CONCATENATION_H
#define PL_KERNELS_CONCATENATION_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/shape/join_split_fast.h" /* the registration, PL_CONCATENATION_MAX_INPUTS */

/* For each of outer blocks, appends run[k] bytes of input k (from data[k] + o * run[k]). */
void pl_concatenation_copy(const void *const *data, const size_t *run, uint32_t n,
                           size_t outer, void *out);

#endif
