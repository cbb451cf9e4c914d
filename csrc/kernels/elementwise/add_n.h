/* add_n.h - ADD_N: the elementwise sum of two or more same-shape tensors, float32 or int32
** (wrapping), summed in input order as LiteRT's reference AddN does. */
#ifndef PL_KERNELS_ADD_N_H
#define PL_KERNELS_ADD_N_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_add_n_registration(void);

#endif
