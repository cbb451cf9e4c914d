/* dequantize_fast.h - DEQUANTIZE's contract with the host fold (fast/fold.c): only the
** registration. The fold runs the portable prepare and invoke as they are (its output
** redirected to host memory) and reads no op data. */
#ifndef PL_KERNELS_DEQUANTIZE_FAST_H
#define PL_KERNELS_DEQUANTIZE_FAST_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_dequantize_registration(void);

#endif
