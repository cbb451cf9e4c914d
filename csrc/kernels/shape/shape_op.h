/* shape_op.h - SHAPE: registration. */
#ifndef PL_KERNELS_SHAPE_OP_H
#define PL_KERNELS_SHAPE_OP_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_shape_registration(void);

#endif
