/* gather.h - GATHER and GATHER_ND: registrations. */
#ifndef PL_KERNELS_GATHER_H
#define PL_KERNELS_GATHER_H

#include "kernels/gather/gather_fast.h" /* the op data */
#include "picolite/pl_kernel.h"

const pl_registration *pl_gather_nd_registration(void);

#endif
