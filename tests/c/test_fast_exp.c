/* test_fast_exp.c - the vector exp, tanh and logistic of csrc/fast/exp.h against the scalar
** pl_fmath_expf, pl_fmath_tanhf and pl_logistic_f32, and its SiLU against the portable MUL
** of x and pl_logistic_f32(x), bit for bit (NaN payloads included), in place too, on
** every instruction set this CPU runs: a strided sample of all float bit patterns and every
** float near the scalar code's branch points. `test_fast_exp all` checks all 2^32 patterns
** (minutes: not in ctest); `test_fast_exp all N` every N-th of them (under emulation). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fast/exp.h"
#include "harness.h"
#include "kernels/activation/logistic_tanh.h"
#include "kernels/common/fmath.h"
#include "kernels/elementwise/elementwise.h"

enum { BATCH = 4099, FNS = 4, STRIDE = 4093, WINDOW = 1 << 13 };

static const char *const fn_names[FNS] = {"exp", "tanh", "logistic", "silu"};
/* SiLU's clamps (none, RELU, RELU_N1_TO_1, RELU6) and operand order, by batch */
static const float silu_lo[4] = {-INFINITY, 0.0f, -1.0f, 0.0f},
                   silu_hi[4] = {INFINITY, INFINITY, 1.0f, 6.0f};
static uint64_t batches;
static float in[BATCH], want[FNS][BATCH], got[BATCH];
static uint64_t checked, mismatches[PL_ISA_COUNT][FNS];

static void scalar(size_t n, float lo, float hi, bool x_first)
{
    for (size_t i = 0; i < n; i++) {
        want[0][i] = pl_fmath_expf(in[i]);
        want[1][i] = pl_fmath_tanhf(in[i]);
    }
    pl_logistic_f32(in, want[2], n);
    pl_bcast flat = {.dims = {1, 1, 1, 1, 1, (int32_t)n}, .count = n};
    flat.stride1[PL_BCAST_MAX_DIMS - 1] = flat.stride2[PL_BCAST_MAX_DIMS - 1] = 1;
    pl_mul_f32(&flat, lo, hi, x_first ? in : want[2], x_first ? want[2] : in, want[3]);
}

/* Every function of every instruction set on in[0..n) (n varies: tails too). */
static void check_batch(size_t n)
{
    const float lo = silu_lo[batches % 4], hi = silu_hi[batches % 4];
    const bool x_first = batches / 4 % 2 == 0, in_place = batches % 3 == 0;
    batches++;
    scalar(n, lo, hi, x_first);
    checked += n;
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        const pl_exp_kernels *k = pl_exp_for((pl_isa)isa);
        if (k == NULL || !pl_fast_isa_available((pl_isa)isa))
            continue;
        void (*fns[FNS - 1])(const float *, float *, size_t) = {k->expf, k->tanhf,
                                                                  k->logistic};
        for (int f = 0; f < FNS; f++) {
            const float *from = in;
            if (in_place) /* the output over the input: the kernels keep what they recompute */
                memcpy(got, in, n * sizeof(float)), from = got;
            if (f < FNS - 1)
                fns[f](from, got, n);
            else
                k->silu(from, got, n, lo, hi, x_first);
            if (memcmp(got, want[f], n * sizeof(float)) == 0)
                continue;
            for (size_t i = 0; i < n; i++) {
                uint32_t a, b, x;
                memcpy(&a, &got[i], 4), memcpy(&b, &want[f][i], 4), memcpy(&x, &in[i], 4);
                if (a != b && mismatches[isa][f]++ < 5)
                    fprintf(stderr, "%s %s(%a = 0x%08x): 0x%08x, scalar 0x%08x\n",
                            pl_fast_isa_name((pl_isa)isa), fn_names[f], (double)in[i], x, a,
                            b);
            }
        }
    }
}

/* The floats whose bit patterns run from first (n of them, wrapping). */
static void check_bits(uint32_t first, uint64_t n, uint32_t step)
{
    size_t fill = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t bits = first + (uint32_t)(i * step);
        memcpy(&in[fill++], &bits, 4);
        if (fill == BATCH || i + 1 == n) {
            check_batch(fill);
            fill = 0;
        }
    }
}

static void around(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, 4);
    check_bits(bits - WINDOW, 2 * WINDOW, 1);
}

static int total_mismatches(void)
{
    uint64_t total = 0;
    for (int isa = 1; isa < PL_ISA_COUNT; isa++)
        for (int f = 0; f < FNS; f++)
            total += mismatches[isa][f];
    return total > 0x7fffffff ? 0x7fffffff : (int)total;
}

static void vector_exp_tanh_logistic_equal_scalar_bits(void)
{
    /* the branch points: exp's range ends, tanh's saturation and k = 0, logistic's
    ** cutoffs; the zeros, the smallest subnormals, the infinities and the NaNs (both signs) */
    const float points[] = {89.0f, -104.0f, 10.0f, -10.0f, 0.1733f, -0.1733f, 100.0f,
                            -100.0f, 0.3466f, 88.72f, -103.97f, 1.0f, -1.0f,
                            PL_LOGISTIC_F32_UPPER, PL_LOGISTIC_F32_LOWER};
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++)
        around(points[i]);
    /* the quick exp's range ends, and the only two floats whose quick exp rounds otherwise
    ** than the scalar's (of all 2^32, found with its tie check removed): that check alone
    ** sends them to the full exp */
    around(-87.0f);
    around(88.0f);
    check_bits(0x4283070fu - WINDOW, 2 * WINDOW, 1); /* 65.51 */
    check_bits(0xbf81eadfu - WINDOW, 2 * WINDOW, 1); /* -1.0300 */
    check_bits(0x00000000u - WINDOW, 2 * WINDOW, 1);
    check_bits(0x80000000u - WINDOW, 2 * WINDOW, 1);
    check_bits(0x7f800000u - WINDOW, 2 * WINDOW, 1);
    check_bits(0xff800000u - WINDOW, 2 * WINDOW, 1);
    check_bits(0x7fc00000u - WINDOW, 2 * WINDOW, 1);
    check_bits(0xffc00000u - WINDOW, 2 * WINDOW, 1);
    check_bits(12345u, (1ull << 32) / STRIDE, STRIDE);
    printf("  %llu floats checked\n", (unsigned long long)checked);
    CHECK_EQ(total_mismatches(), 0);
}

static uint32_t pattern_step = 1;

/* All 2^32 bit patterns (every pattern_step-th), in batches, with progress. */
static void every_float_bit_pattern(void)
{
    const uint64_t step = pattern_step;
    for (uint64_t hi = 0; hi < 256; hi++) {
        uint64_t start = hi << 24, end = (hi + 1) << 24;
        uint64_t first = (start + step - 1) / step * step; /* the patterns 0, step, 2 step.. */
        if (first < end)
            check_bits((uint32_t)first, (end - first + step - 1) / step, pattern_step);
        if (hi % 16 == 15)
            fprintf(stderr, "  %llu/256, %d mismatches\n", (unsigned long long)hi + 1,
                    total_mismatches());
    }
    for (int isa = 1; isa < PL_ISA_COUNT; isa++)
        if (pl_exp_for((pl_isa)isa) != NULL && pl_fast_isa_available((pl_isa)isa))
            printf("  %s: exp %llu, tanh %llu, logistic %llu, silu %llu mismatches of %llu "
                   "floats\n", pl_fast_isa_name((pl_isa)isa),
                   (unsigned long long)mismatches[isa][0], (unsigned long long)mismatches[isa][1],
                   (unsigned long long)mismatches[isa][2], (unsigned long long)mismatches[isa][3],
                   (unsigned long long)checked);
    CHECK_EQ(total_mismatches(), 0);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "all") == 0) {
        pattern_step = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1;
        pattern_step = pattern_step == 0 ? 1 : pattern_step;
        RUN(every_float_bit_pattern);
    }
    else
        RUN(vector_exp_tanh_logistic_equal_scalar_bits);
    return HARNESS_END();
}
