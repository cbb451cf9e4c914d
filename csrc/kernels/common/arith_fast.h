/* arith_fast.h - the shared arithmetic the host fast paths may use (csrc/fast/): TFLite's
** fixed-point rescales (fixedpoint.h, rescale.h) and the portable float exp and tanh with
** their constants (fmath.h). A fast path computes exactly the portable kernel's bits, so it
** calls these or repeats them step for step; nothing else of kernels/common/ is its to use. */
#ifndef PL_KERNELS_ARITH_FAST_H
#define PL_KERNELS_ARITH_FAST_H

#include "kernels/common/fixedpoint.h"
#include "kernels/common/fmath.h"
#include "kernels/common/rescale.h"

#endif
