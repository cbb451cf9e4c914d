/* select.h - SELECT_V2: out = condition ? x : y, the three broadcasting to one shape
** (LiteRT select.cc). Any element type; values are copied, so quantized x and y keep their
** stored integers (the converter gives x, y and the output one quantization). */
#ifndef PL_KERNELS_SELECT_H
#define PL_KERNELS_SELECT_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_select_v2_registration(void);

#endif
