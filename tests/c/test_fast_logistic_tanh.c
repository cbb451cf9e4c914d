/* test_fast_logistic_tanh.c - LOGISTIC and TANH's host fast paths (float32: the vector exp;
** int8: the kernel's table read by the vector lookup) against the portable kernels through
** the fast resolver, bit for bit, on random shapes whose values include infinities, NaNs,
** subnormals and the saturation points. Every instruction set this CPU runs is tested. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/registry.h"

enum { LOGISTIC = 14, TANH = 28, MAX_N = 20000 }; /* several of fast/logistic_tanh.c's tasks */

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == LOGISTIC ? pl_logistic_registration()
         : code == TANH     ? pl_tanh_registration()
                            : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

static float in32[MAX_N], out32[2][MAX_N];
static int8_t in8[MAX_N], out8[2][MAX_N];

static float value(void)
{
    static const float special[] = {INFINITY, -INFINITY, NAN, -NAN, 0.0f, -0.0f, 1e-40f,
                                    -1e-45f, FLT_MIN, FLT_MAX, -FLT_MAX, 10.0f, -10.0f,
                                    100.0f, -100.0f, 150.0f};
    uint32_t r = rnd() % 64;
    if (r < sizeof special / sizeof special[0])
        return special[r];
    return unit() * (r < 40 ? 4.0f : 120.0f);
}

/* Runs op on a 2-d tensor of n values into slot; kind 0 float32, 1 int8. */
static pl_status run(const pl_registration *reg, int32_t rows, int32_t cols, int kind, int slot)
{
    kh_setup();
    int32_t dims[2] = {rows, cols};
    size_t n = (size_t)rows * (size_t)cols;
    int32_t in, out;
    if (kind == 0) {
        in = kt_tensor_f32(2, dims, in32, n);
        out = kt_tensor_f32(2, dims, out32[slot], n);
    } else {
        bool tanh = reg->builtin_code == TANH;
        in = kt_tensor_q(PL_INT8, 2, dims, in8, n, 0.05f, 3);
        out = kt_tensor_q(PL_INT8, 2, dims, out8[slot], n, tanh ? 1.0f / 128 : 1.0f / 256,
                          tanh ? 0 : -128);
    }
    return kh_run(reg, &in, 1, &out, 1, NULL);
}

/* Portable and fast agree byte for byte, and the fast one took its path. */
static bool case_matches(pl_fast_resolver *r, int32_t code, int32_t rows, int32_t cols, int kind)
{
    if (run(portable_find(NULL, code, NULL, 0, 1), rows, cols, kind, 0) != PL_OK ||
        run(r->resolver.find(r, code, NULL, 0, 1), rows, cols, kind, 1) != PL_OK) {
        fprintf(stderr, "op %d refused: %s\n", (int)code, kh.message);
        return false;
    }
    bool took_fast = r->host_bytes > r->capacity * sizeof(pl_fast_slot);
    fast_cases += took_fast;
    pl_fast_resolver_release(r);
    size_t n = (size_t)rows * (size_t)cols;
    bool same = kind == 0 ? memcmp(out32[0], out32[1], n * sizeof(float)) == 0
                          : memcmp(out8[0], out8[1], n) == 0;
    if (!same || !took_fast)
        fprintf(stderr, "op %d kind %d %dx%d: %s\n", (int)code, kind, (int)rows, (int)cols,
                same ? "wrong path" : "differs");
    return same && took_fast;
}

/* Cases drawn and the float ones among them (the others int8). */
static int drawn, floats;

/* A random LOGISTIC or TANH (in turn) of up to MAX_N values, float32 four times in five. */
static bool one_case(pl_fast_resolver *r)
{
    int32_t rows = between(1, 8), cols = between(1, MAX_N / 8);
    int kind = between(0, 4) == 0;
    for (int32_t i = 0; i < rows * cols; i++) {
        in32[i] = value();
        in8[i] = (int8_t)between(-128, 127);
    }
    floats += kind == 0;
    return case_matches(r, drawn++ % 2 ? TANH : LOGISTIC, rows, cols, kind);
}

static void logistic_tanh_fast_paths_equal_portable(void)
{
    drawn = floats = 0;
    fast_equals_portable(&portable, "logistic/tanh", 200, 200, one_case);
    CHECK(floats > drawn / 2);
}

/* Float elements in chunks over 3 threads, every job split. */
static void logistic_tanh_threads_equal_portable(void)
{
    fast_threads_equal_portable(&portable, "logistic/tanh", 200, 10, one_case);
}

int main(void)
{
    RUN(logistic_tanh_fast_paths_equal_portable);
    RUN(logistic_tanh_threads_equal_portable);
    return HARNESS_END();
}
