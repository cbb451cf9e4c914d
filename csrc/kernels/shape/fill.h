/* fill.h - FILL: registration. */
#ifndef PL_KERNELS_FILL_H
#define PL_KERNELS_FILL_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_fill_registration(void);

#endif
