/* reshape.h - RESHAPE, SQUEEZE, EXPAND_DIMS (any fixed-size element type). */
#ifndef PL_KERNELS_RESHAPE_H
#define PL_KERNELS_RESHAPE_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_reshape_registration(void);
const pl_registration *pl_squeeze_registration(void);
const pl_registration *pl_expand_dims_registration(void);

#endif
