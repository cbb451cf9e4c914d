/* prelu_fast.h - PRELU's contract with the host fast path (fast/prelu.c, x86/prelu_avx2.c):
** the float rule of one element, which the vector loops reproduce (NaN included). The
** fast path reads no op data. */
#ifndef PL_KERNELS_PRELU_FAST_H
#define PL_KERNELS_PRELU_FAST_H

#include <stdint.h>
#include <string.h>

#include "picolite/pl_kernel.h"

/* The quiet-NaN bit of a float32. */
#define PL_PRELU_QUIET_BIT 0x00400000u

/* x >= 0 ? x : x * alpha, whose NaN is fixed here rather than by the build: a NaN x comes
** back quieted, as the product's first operand is returned from two NaNs on x86 and Arm;
** a compiler may swap a product's operands (at one optimisation level, not at another), so
** that case is not left to the multiply. A NaN alpha times a number returns alpha quieted
** on every CPU. */
static inline float pl_prelu_f32_one(float x, float alpha)
{
    if (x >= 0.0f)
        return x;
    if (x == x)
        return x * alpha;
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits |= PL_PRELU_QUIET_BIT;
    memcpy(&x, &bits, sizeof x);
    return x;
}

const pl_registration *pl_prelu_registration(void);

#endif
