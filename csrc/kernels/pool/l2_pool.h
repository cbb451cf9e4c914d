/* l2_pool.h - L2_POOL_2D: registration. */
#ifndef PL_KERNELS_L2_POOL_H
#define PL_KERNELS_L2_POOL_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_l2_pool_registration(void);

#endif
