/* pack.h - PACK and UNPACK (any fixed-size element type). */
#ifndef PL_KERNELS_PACK_H
#define PL_KERNELS_PACK_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_pack_registration(void);
const pl_registration *pl_unpack_registration(void);

#endif
