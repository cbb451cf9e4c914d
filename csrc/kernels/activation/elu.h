/* elu.h - ELU: x for x >= 0, exp(x) - 1 below (LiteRT activations.cc). float32, and int8
** through a 256-entry table of the float function (TFLite LUTPopulate). */
#ifndef PL_KERNELS_ELU_H
#define PL_KERNELS_ELU_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_elu_registration(void);

float pl_elu_f32(float x);

#endif
