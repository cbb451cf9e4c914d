/* fmath.c - float exp and tanh, the same bits everywhere (see fmath.h). */
#include "kernels/common/fmath.h"

#include <math.h>

/* ln 2 split so that k * LN2_HI is exact for |k| < 2^11 (Cody-Waite reduction). */
#define LN2_HI 6.93147180369123816490e-01
#define LN2_LO 1.90821492927058770002e-10
#define INV_LN2 1.44269504088896338700e+00

/* expm1(r) for |r| <= ln2/2 + tiny: Taylor to r^14/14!, whose remainder is below 2^-60. */
static double expm1_reduced(double r)
{
    double p = 0.0;
    for (int n = 14; n >= 1; n--)
        p = (p + 1.0) * r / n; /* Horner: r/1 (1 + r/2 (1 + r/3 (...))) */
    return p;
}

/* e^y = 2^k (1 + *m) with *m = expm1(r), r = y - k ln2, for |y| <= 300. */
static int reduce(double y, double *m)
{
    double k = floor(y * INV_LN2 + 0.5);
    *m = expm1_reduced((y - k * LN2_HI) - k * LN2_LO);
    return (int)k;
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
    return (float)ldexp(1.0 + m, k);
}

float pl_fmath_tanhf(float x)
{
    double a = fabs((double)x);
    if (isnan(x) || a > 10.0) /* tanh(10) rounds to 1.0f */
        return isnan(x) ? x : (x > 0.0f ? 1.0f : -1.0f);
    /* tanh(a) = expm1(2a) / (expm1(2a) + 2), with expm1 free of cancellation near 0 */
    double m;
    int k = reduce(2.0 * a, &m);
    double em1 = k == 0 ? m : ldexp(1.0 + m, k) - 1.0;
    double t = em1 / (em1 + 2.0);
    return (float)(x < 0.0f ? -t : t);
}
