/* logical.h - LOGICAL_AND, LOGICAL_OR (bool, broadcasting) and LOGICAL_NOT (bool). */
#ifndef PL_KERNELS_LOGICAL_H
#define PL_KERNELS_LOGICAL_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_logical_and_registration(void);
const pl_registration *pl_logical_or_registration(void);
const pl_registration *pl_logical_not_registration(void);

#endif
