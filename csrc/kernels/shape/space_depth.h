/* space_depth.h - DEPTH_TO_SPACE and SPACE_TO_DEPTH: registrations. */
#ifndef PL_KERNELS_SPACE_DEPTH_H
#define PL_KERNELS_SPACE_DEPTH_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_depth_to_space_registration(void);
const pl_registration *pl_space_to_depth_registration(void);

#endif
