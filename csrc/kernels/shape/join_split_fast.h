/* join_split_fast.h - the contract of CONCATENATION, PACK (joins), SPLIT, SPLIT_V and UNPACK
** (splits) with the host fast path (fast/join_split.c): the op data their prepares leave.
**
** A fast path reads it after the portable prepare ran and never writes it. */
#ifndef PL_KERNELS_JOIN_SPLIT_FAST_H
#define PL_KERNELS_JOIN_SPLIT_FAST_H

#include <stdint.h>

/* The op data each prepare fills: the axis in the joined tensor's rank, in [0, rank). */
typedef struct pl_join_split_op {
    int32_t axis;
} pl_join_split_op;

#endif
