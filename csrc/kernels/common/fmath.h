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

/* The constants of both, for the host fast paths' vector copies (csrc/fast/), which repeat
** their double arithmetic step for step. ln 2 is split so that k * PL_FMATH_LN2_HI is exact
** for |k| < 2^11 (Cody-Waite reduction). */
#define PL_FMATH_LN2_HI 6.93147180369123816490e-01
#define PL_FMATH_LN2_LO 1.90821492927058770002e-10
#define PL_FMATH_INV_LN2 1.44269504088896338700e+00
#define PL_FMATH_TERMS 14
/* 1/n! for n = 1..PL_FMATH_TERMS: e^r - 1 = r (c[0] + r (c[1] + ... r c[13])). */
extern const double pl_fmath_inverse_factorial[PL_FMATH_TERMS];

#endif
