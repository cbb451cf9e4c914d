/* gather.h - GATHER and GATHER_ND: registrations. */
#ifndef PL_KERNELS_GATHER_H
#define PL_KERNELS_GATHER_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_gather_registration(void);
const pl_registration *pl_gather_nd_registration(void);

#endif
