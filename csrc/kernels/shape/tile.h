/* tile.h - TILE (LiteRT tile.cc): the input repeated multiples[i] times along each axis i,
** any fixed-size element type (values are copied, so quantized tensors keep their stored
** integers). The multiples (INT32/INT64, one per input axis) give the output shape at
** prepare when constant and are checked against the output at invoke otherwise. TFLM has
** no TILE. */
#ifndef PL_KERNELS_TILE_H
#define PL_KERNELS_TILE_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_tile_registration(void);

#endif
