/* fmath.h - float exp and tanh computed the same way on every platform.
**
** libm's expf/tanhf differ in the last bit between C libraries (glibc, newlib), so a float
** model's outputs would differ between the host and a device. These evaluate in double and
** round once to float: within half an ulp but for inputs within ~1e-16 of a rounding
** boundary, i.e. correctly rounded in practice, on any IEEE-754 platform. */
#ifndef PL_KERNELS_COMMON_FMATH_H
#define PL_KERNELS_COMMON_FMATH_H

/* e^x: +inf above 88.72, 0 (through the subnormals) below -103.97, NaN for NaN. */
float pl_fmath_expf(float x);

/* tanh(x): odd, exact near 0 (no cancellation), +-1 beyond |x| = 9.02. */
float pl_fmath_tanhf(float x);

#endif
