/* div.h - DIV: registration and the float loop. */
#ifndef PL_KERNELS_DIV_H
#define PL_KERNELS_DIV_H

#include "kernels/common/broadcast.h"
#include "picolite/pl_kernel.h"

const pl_registration *pl_div_registration(void);

/* out = clamp(a / b, lo, hi) over the broadcast walk bc. */
void pl_div_f32(const pl_bcast *bc, float lo, float hi, const float *a, const float *b,
                float *out);

#endif
