/* batch_space.h - BATCH_TO_SPACE_ND and SPACE_TO_BATCH_ND: registrations. */
#ifndef PL_KERNELS_BATCH_SPACE_H
#define PL_KERNELS_BATCH_SPACE_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_batch_to_space_nd_registration(void);
const pl_registration *pl_space_to_batch_nd_registration(void);

#endif
