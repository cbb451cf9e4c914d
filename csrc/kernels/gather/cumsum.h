/* cumsum.h - CUMSUM: registration. */
#ifndef PL_KERNELS_CUMSUM_H
#define PL_KERNELS_CUMSUM_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_cumsum_registration(void);

#endif
