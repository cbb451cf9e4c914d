/* select.h - SELECT_V2: out = condition ? x : y, the three broadcasting to one shape
** (LiteRT select.cc). SELECT (version one, tf.compat.v1.where): no broadcasting; x and y
** have one shape, the condition has it too, or is a scalar choosing all of x or y, or is a
** vector choosing x's or y's slices along the first dimension (RankOneSelect). Any element
** type; values are copied, so quantized x and y keep their stored integers (the converter
** gives x, y and the output one quantization). */
#ifndef PL_KERNELS_SELECT_H
#define PL_KERNELS_SELECT_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_select_registration(void);
const pl_registration *pl_select_v2_registration(void);

#endif
