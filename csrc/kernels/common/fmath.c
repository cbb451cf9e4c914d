/* fmath.c - float exp and tanh, the same bits everywhere (see fmath.h). */
#include "kernels/common/fmath.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

const double pl_fmath_inverse_factorial[PL_FMATH_TERMS] = {
    1.0, 0.5, 0.16666666666666666, 0.041666666666666664, 0.008333333333333333,
    0.001388888888888889, 0.0001984126984126984, 2.48015873015873e-05,
    2.7557319223985893e-06, 2.755731922398589e-07, 2.505210838544172e-08,
    2.08767569878681e-09, 1.6059043836821613e-10, 1.1470745597729725e-11,
};

/* expm1(r) for |r| <= ln2/2 + tiny: Taylor to r^14/14!, whose remainder is below 2^-60,
** by Horner on the coefficients (multiplies only: a division per term cost ten times more). */
static double expm1_reduced(double r)
{
    double p = pl_fmath_inverse_factorial[PL_FMATH_TERMS - 1];
    for (int n = PL_FMATH_TERMS - 2; n >= 0; n--)
        p = p * r + pl_fmath_inverse_factorial[n];
    return p * r;
}

/* e^y = 2^k (1 + *m) with *m = expm1(r), r = y - k ln2, for |y| <= 300. */
static int reduce(double y, double *m)
{
    double k = floor(y * PL_FMATH_INV_LN2 + 0.5);
    *m = expm1_reduced((y - k * PL_FMATH_LN2_HI) - k * PL_FMATH_LN2_LO);
    return (int)k;
}

/* x * 2^k for |k| <= 1000: a multiply by an exact power of two, the bits of ldexp's result
** (the call cost as much as the whole polynomial). */
static double times_pow2(double x, int k)
{
    uint64_t bits = (uint64_t)(k + 1023) << 52;
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    return x * scale;
}

float pl_fmath_expf(float x)
{
    if (isnan(x))
        return x;
    if (x > 89.0f)
        return HUGE_VALF;
    if (x < -104.0f)
        return 0.0f;
    double m;
    int k = reduce((double)x, &m);
    return (float)times_pow2(1.0 + m, k);
}

float pl_fmath_tanhf(float x)
{
    double a = fabs((double)x);
    if (isnan(x) || a > 10.0) /* tanh(10) rounds to 1.0f */
        return isnan(x) ? x : (x > 0.0f ? 1.0f : -1.0f);
    /* tanh(a) = expm1(2a) / (expm1(2a) + 2), with expm1 free of cancellation near 0 */
    double m;
    int k = reduce(2.0 * a, &m);
    double em1 = k == 0 ? m : times_pow2(1.0 + m, k) - 1.0;
    double t = em1 / (em1 + 2.0);
    return (float)(x < 0.0f ? -t : t);
}
