/* reverse.h - REVERSE_V2: registration. */
#ifndef PL_KERNELS_REVERSE_H
#define PL_KERNELS_REVERSE_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_reverse_v2_registration(void);

#endif
