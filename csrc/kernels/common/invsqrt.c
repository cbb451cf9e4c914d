/* invsqrt.c - 1 / sqrt(x) as a quantized multiplier (see invsqrt.h). */
#include "invsqrt.h"

#include "kernels/common/fixedpoint.h"

/* gemmlowp SaturatingRoundingMultiplyByPOT with a positive exponent (Rescale to fewer
** integer bits). */
static int32_t sat_shl(int32_t x, int32_t exponent)
{
    int32_t threshold = (int32_t)((1u << (31 - exponent)) - 1u);
    if (x > threshold)
        return INT32_MAX;
    if (x < -threshold)
        return INT32_MIN;
    return (int32_t)((uint32_t)x << exponent);
}

static int32_t leading_zeros(uint32_t x)
{
    int32_t n = 0;
    while (n < 32 && !(x & (0x80000000u >> n)))
        n++;
    return n;
}

void pl_invsqrt_multiplier(int32_t x, int32_t reverse_shift, int32_t *multiplier,
                           int32_t *shift)
{
    if (x <= 1) {
        *multiplier = INT32_MAX;
        *shift = 0;
        return;
    }
    int32_t s = 11;
    while (x >= (1 << 29)) {
        x /= 4;
        s++;
    }
    int32_t pairs = (leading_zeros((uint32_t)x) - 1) / 2 - 1;
    s -= pairs;
    x <<= 2 * pairs;
    /* Newton-Raphson in Q3.28 from x = 1: x <- 1.5 x - (input / 2) x^3 */
    const int32_t half_input = pl_fx_rdbpot(x >> 1, 1);
    const int32_t half_three = (1 << 28) + (1 << 27);
    int32_t r = 1 << 28;
    for (int i = 0; i < 5; i++) {
        int32_t r3 = sat_shl(pl_fx_srdhm(pl_fx_srdhm(r, r), r), 6);
        r = sat_shl((int32_t)((uint32_t)pl_fx_srdhm(half_three, r) -
                              (uint32_t)pl_fx_srdhm(half_input, r3)), 3);
    }
    r = pl_fx_srdhm(r, 1518500250); /* times sqrt(2) / 2 in Q0.31 */
    if (s < 0) {
        r = (int32_t)((uint32_t)r << -s);
        s = 0;
    }
    *multiplier = r;
    *shift = s * reverse_shift;
}
