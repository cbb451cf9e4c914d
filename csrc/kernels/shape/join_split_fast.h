/* join_split_fast.h - the contract of CONCATENATION, PACK (joins), SPLIT, SPLIT_V and UNPACK
** (splits) with the host fast path (fast/join_split.c): their registrations, the bounds on
** their tensor counts and the op data their prepares leave.
**
** A fast path reads the op data after the portable prepare ran and never writes it. */
#ifndef PL_KERNELS_JOIN_SPLIT_FAST_H
#define PL_KERNELS_JOIN_SPLIT_FAST_H

#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Inputs per join, outputs per split accepted (TFLite has no limit; these bound the stack
** of invoke). */
#define PL_CONCATENATION_MAX_INPUTS 64
#define PL_SPLIT_MAX_OUTPUTS 64

/* The op data each prepare fills: the axis in the joined tensor's rank, in [0, rank). */
typedef struct pl_join_split_op {
    int32_t axis;
} pl_join_split_op;

const pl_registration *pl_concatenation_registration(void);
const pl_registration *pl_pack_registration(void);
const pl_registration *pl_unpack_registration(void);
const pl_registration *pl_split_registration(void);
const pl_registration *pl_split_v_registration(void);

#endif
