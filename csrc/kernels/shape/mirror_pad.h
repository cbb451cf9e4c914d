/* mirror_pad.h - MIRROR_PAD: registration. */
#ifndef PL_KERNELS_MIRROR_PAD_H
#define PL_KERNELS_MIRROR_PAD_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_mirror_pad_registration(void);

#endif
