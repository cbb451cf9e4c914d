/* dynamic_update_slice.h - DYNAMIC_UPDATE_SLICE: registration. */
#ifndef PL_KERNELS_DYNAMIC_UPDATE_SLICE_H
#define PL_KERNELS_DYNAMIC_UPDATE_SLICE_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_dynamic_update_slice_registration(void);

#endif
