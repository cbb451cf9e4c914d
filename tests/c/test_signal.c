/* test_signal.c - the Signal library's building blocks against their definitions: integer
** square roots and logs, the FFT plan, and the float real FFT against a direct DFT (the
** fixed-point paths are compared bit for bit with TFLM in tests/test_golden.py). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "signal/fft.h"
#include "signal/intmath.h"

#define PI 3.14159265358979323846

static void test_msb_counts_bits_and_zero_is_full_width(void)
{
    CHECK_EQ(pl_intmath_msb32(1), 1);
    CHECK_EQ(pl_intmath_msb32(0x80000000u), 32);
    CHECK_EQ(pl_intmath_msb32(0), 32);
    CHECK_EQ(pl_intmath_msb64((uint64_t)1 << 40), 41);
    CHECK_EQ(pl_intmath_msb64(0), 64);
}

/* The rounded root: floor(sqrt(x)) + 1 when x exceeds floor^2 + floor, saturated. */
static uint64_t rounded_root(uint64_t x, uint64_t max)
{
    long double root = sqrtl((long double)x);
    uint64_t r = root >= 4294967295.0L ? 0xFFFFFFFFu : (uint64_t)root;
    while (r * r > x) /* r < 2^32: no product wraps */
        r--;
    while (r < 0xFFFFFFFFu && (r + 1) * (r + 1) <= x)
        r++;
    if (x - r * r > r && r != max)
        r++;
    return r;
}

static void test_square_roots_round_to_nearest(void)
{
    static const uint64_t xs[] = {1, 2, 3, 4, 5, 6, 8, 9, 99, 1000000, 4294967295u,
                                  4294836225u, (uint64_t)1 << 32, 123456789012345ull,
                                  UINT64_MAX};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        if (xs[i] <= UINT32_MAX)
            CHECK_EQ(pl_intmath_sqrt32((uint32_t)xs[i]), rounded_root(xs[i], 0xFFFF));
        /* TFLM's Sqrt64 hands 32-bit values to Sqrt32, so they saturate at 0xFFFF too */
        uint64_t max = xs[i] <= UINT32_MAX ? 0xFFFF : 0xFFFFFFFFu;
        CHECK_EQ(pl_intmath_sqrt64(xs[i]), rounded_root(xs[i], max));
    }
    CHECK_EQ(pl_intmath_sqrt32(0), 0);
}

static void test_log_is_close_to_ln_times_scale(void)
{
    static const uint32_t xs[] = {2, 3, 10, 1000, 65536, 123456789, 4294967295u};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double want = log((double)xs[i]) * 64.0;
        double got = pl_intmath_log32(xs[i], 64);
        CHECK(fabs(got - want) <= 1.0);
    }
}

static void test_fft_plan_refuses_odd_short_and_prime_lengths(void)
{
    pl_fft plan;
    pl_error err;
    CHECK_EQ(pl_fft_plan(2, &plan, &err), PL_ERR_UNSUPPORTED);
    CHECK_EQ(pl_fft_plan(15, &plan, &err), PL_ERR_UNSUPPORTED);
    CHECK_EQ(pl_fft_plan(14, &plan, &err), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "factor 7");
    CHECK_EQ(pl_fft_plan(480, &plan, &err), PL_OK);
    CHECK_EQ(plan.ncfft, 240);
    CHECK_EQ(plan.factors[0], 4); /* kiss_fft: powers of 4 first, then 2, 3, 5 */
}

/* Float rfft of lengths with every radix against the DFT, then the inverse back (kiss's
** inverse is unscaled: it returns fft_length times the input). */
static void test_float_rfft_is_the_dft_and_irfft_inverts_it(void)
{
    static const int32_t lengths[] = {4, 12, 20, 30, 64, 96};
    float mem[400], x[96], spec[98], back[96];
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        int32_t n = lengths[li];
        pl_fft plan;
        pl_error err;
        CHECK_EQ(pl_fft_plan(n, &plan, &err), PL_OK);
        CHECK(pl_fft_mem_count(&plan) <= sizeof mem / sizeof mem[0]);
        for (int32_t i = 0; i < n; i++)
            x[i] = (float)sin(0.7 * i) + (float)(i % 3) * 0.25f;
        pl_fft_init_f32(&plan, false, mem);
        pl_fft_rfft_f32(&plan, mem, x, (size_t)n, false, spec);
        for (int32_t k = 0; k <= n / 2; k++) {
            double re = 0, im = 0;
            for (int32_t i = 0; i < n; i++) {
                re += x[i] * cos(2 * PI * k * i / n);
                im -= x[i] * sin(2 * PI * k * i / n);
            }
            CHECK(fabs(spec[2 * k] - re) < 1e-4 * n && fabs(spec[2 * k + 1] - im) < 1e-4 * n);
        }
        pl_fft_init_f32(&plan, true, mem);
        pl_fft_irfft_f32(&plan, mem, spec, false, back);
        for (int32_t i = 0; i < n; i++)
            CHECK(fabs(back[i] / n - x[i]) < 1e-4);
    }
}

/* Frames shorter than fft_length are zero-padded: the same spectrum as an explicit pad. */
static void test_short_frames_are_zero_padded(void)
{
    pl_fft plan;
    pl_error err;
    int16_t mem[64 * 3], a[64], b[64], spec_a[66], spec_b[66];
    CHECK_EQ(pl_fft_plan(64, &plan, &err), PL_OK);
    pl_fft_init_s16(&plan, false, mem);
    memset(b, 0, sizeof b);
    for (int i = 0; i < 40; i++)
        a[i] = b[i] = (int16_t)(i * 700 - 14000);
    pl_fft_rfft_s16(&plan, mem, a, 40, spec_a);
    pl_fft_rfft_s16(&plan, mem, b, 64, spec_b);
    CHECK(memcmp(spec_a, spec_b, sizeof spec_a) == 0);
}

int main(void)
{
    RUN(test_msb_counts_bits_and_zero_is_full_width);
    RUN(test_square_roots_round_to_nearest);
    RUN(test_log_is_close_to_ln_times_scale);
    RUN(test_fft_plan_refuses_odd_short_and_prime_lengths);
    RUN(test_float_rfft_is_the_dft_and_irfft_inverts_it);
    RUN(test_short_frames_are_zero_padded);
    return HARNESS_END();
}
