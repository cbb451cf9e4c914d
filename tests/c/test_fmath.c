/* test_fmath.c - the portable float exp and tanh against libm's double versions. */
#include "kernels/common/fmath.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"

static int32_t ulps(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    return ia > ib ? ia - ib : ib - ia; /* same sign in every comparison below */
}

/* Over the whole finite range, in steps: at most one ulp from the double result rounded
** once (that rounding itself may be off by one ulp at a tie), and mostly exact. */
static void expf_is_within_an_ulp(void)
{
    int exact = 0, total = 0;
    for (float x = -103.0f; x < 88.7f; x += 0.0137f) {
        float want = (float)exp((double)x);
        CHECK(ulps(pl_fmath_expf(x), want) <= 1);
        exact += pl_fmath_expf(x) == want;
        total++;
    }
    CHECK(exact >= total - total / 1000);
}

static void expf_edges(void)
{
    CHECK(pl_fmath_expf(0.0f) == 1.0f);
    CHECK(pl_fmath_expf(1.0f) == 2.71828182845904523536f);
    CHECK(isinf(pl_fmath_expf(89.0f)) && isinf(pl_fmath_expf(INFINITY)));
    CHECK(pl_fmath_expf(-105.0f) == 0.0f && pl_fmath_expf(-INFINITY) == 0.0f);
    CHECK(pl_fmath_expf(-100.0f) > 0.0f); /* subnormal, not flushed */
    CHECK(isnan(pl_fmath_expf(NAN)));
}

static void tanhf_is_within_an_ulp(void)
{
    for (float x = -12.0f; x < 12.0f; x += 0.00731f) {
        float got = pl_fmath_tanhf(x), want = (float)tanh((double)x);
        CHECK(ulps(got, want) <= 1);
        CHECK(pl_fmath_tanhf(-x) == -got);
    }
    for (float x = 1e-30f; x < 1e-2f; x *= 1.7f) /* no cancellation near 0 */
        CHECK(ulps(pl_fmath_tanhf(x), (float)tanh((double)x)) <= 1);
}

static void tanhf_edges(void)
{
    CHECK(pl_fmath_tanhf(0.0f) == 0.0f);
    CHECK(pl_fmath_tanhf(20.0f) == 1.0f && pl_fmath_tanhf(-INFINITY) == -1.0f);
    CHECK(isnan(pl_fmath_tanhf(NAN)));
}

int main(void)
{
    RUN(expf_is_within_an_ulp);
    RUN(expf_edges);
    RUN(tanhf_is_within_an_ulp);
    RUN(tanhf_edges);
    return HARNESS_END();
}
