/* test_fast_softmax.c - SOFTMAX's host fast path (int8 input with int8 or int16 output,
** int16, float32) against the portable kernel on random rows, input scales, zero points and betas,
** byte for byte; float rows and betas include infinities, NaNs, subnormals and huge logits.
** Every instruction set this CPU runs is tested; CI runs this under ASan and UBSan. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/activation/softmax.h"
#include "kernels/registry.h"

enum { SOFTMAX = 25, MAX_N = 3000 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == SOFTMAX ? pl_softmax_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

static int8_t in8[MAX_N];
static int16_t in16[MAX_N];
static int16_t out16[2][MAX_N];
static float in32[MAX_N], out32[2][MAX_N];

typedef struct sm_case {
    int32_t outer, depth, kind; /* 0: int8 -> int8, 1: int8 -> int16, 2: float32, 3: int16 */
    float beta, scale;
    int64_t zp;
} sm_case;

static pl_status run_case(const sm_case *c, const pl_registration *reg, int slot)
{
    kh_setup();
    int32_t dims[2] = {c->outer, c->depth}, ins[1], outs[1];
    size_t n = (size_t)(c->outer * c->depth);
    float out_scale = c->kind == 0 ? 1.0f / 256 : 1.0f / 32768;
    int64_t out_zp = c->kind == 0 ? -128 : 0;
    if (c->kind == 2) {
        ins[0] = kt_tensor_f32(2, dims, in32, n);
        outs[0] = kt_tensor_f32(2, dims, out32[slot], n);
    } else if (c->kind == 3) {
        ins[0] = kh_tensor(PL_INT16, 2, dims, in16, n * 2, &c->scale, &c->zp, 1, 0);
        outs[0] = kh_tensor(PL_INT16, 2, dims, out16[slot], n * 2, &out_scale, &out_zp, 1, 0);
    } else {
        ins[0] = kh_tensor(PL_INT8, 2, dims, in8, n, &c->scale, &c->zp, 1, 0);
        outs[0] = kh_tensor(c->kind == 0 ? PL_INT8 : PL_INT16, 2, dims, out16[slot],
                            n * (c->kind == 0 ? 1 : 2), &out_scale, &out_zp, 1, 0);
    }
    kt_opts o;
    int32_t beta_bits;
    memcpy(&beta_bits, &c->beta, sizeof beta_bits);
    return kh_run(reg, ins, 1, outs, 1, kt_make_opts(&o, &beta_bits, 1));
}

/* Bit for bit, but that two NaNs match: where two NaNs meet (a NaN logit times a NaN beta)
** which payload wins is the compiler's choice of operand order, in the portable kernel too. */
static bool same_floats(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0 && !(isnan(a[i]) && isnan(b[i])))
            return false;
    return true;
}

static bool case_matches(pl_fast_resolver *r, const sm_case *c)
{
    if (run_case(c, pl_softmax_registration(), 0) != PL_OK ||
        run_case(c, r->resolver.find(r, SOFTMAX, NULL, 0, 1), 1) != PL_OK) {
        fprintf(stderr, "softmax refused: %s\n", kh.message);
        return false;
    }
    bool took_fast = r->host_bytes > r->capacity * sizeof(pl_fast_slot);
    fast_cases += took_fast;
    pl_fast_resolver_release(r);
    size_t n = (size_t)(c->outer * c->depth);
    bool same = c->kind == 2 ? same_floats(out32[0], out32[1], n)
                             : memcmp(out16[0], out16[1], n * (c->kind == 0 ? 1 : 2)) == 0;
    if (!same || !took_fast)
        fprintf(stderr, "softmax kind %d %dx%d beta %g scale %g zp %d: %s\n", c->kind,
                c->outer, c->depth, (double)c->beta, (double)c->scale, (int)c->zp,
                same ? "portable path" : "differs");
    return same && took_fast;
}

/* A logit: mostly ordinary, sometimes one the exp treats apart. */
static float logit(void)
{
    static const float special[] = {INFINITY, -INFINITY, NAN, -NAN, 0.0f, -0.0f, 1e-40f,
                                    -1e-45f, FLT_MIN, 1e30f, -1e30f, FLT_MAX, -FLT_MAX,
                                    88.7f, -103.9f, 200.0f};
    uint32_t r = rnd() % 64;
    if (r < sizeof special / sizeof special[0])
        return special[r];
    return unit() * (r < 40 ? 10.0f : 150.0f);
}

static float float_beta(void)
{
    static const float special[] = {0.0f, -1.0f, 1e-30f, 1e30f, INFINITY, NAN, 1e-40f};
    uint32_t r = rnd() % 32;
    return r < sizeof special / sizeof special[0] ? special[r] : (float)between(1, 40) / 10.0f;
}

/* int16: input scales from 1e-5 to 1 (the largest wrap the scaled differences, as TFLite's
** int32 arithmetic does), zero point 0; values over the whole range or a narrow one. */
static void int16_case(sm_case *c)
{
    c->scale = powf(10.0f, -(float)between(0, 50) / 10.0f);
    c->zp = 0;
    int32_t spread = between(0, 1) ? 65535 : between(1, 2000), lo = between(-32768, 32767 - spread);
    for (int32_t i = 0; i < c->outer * c->depth; i++)
        in16[i] = (int16_t)between(lo, lo + spread);
}

/* 400 random cases on every instruction set, on `threads` threads (every job split when
** more than one: rows are split over them, and must have been). */
static void softmax_cases(int32_t threads)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        pl_fast_resolver r;
        CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
        r.poison_scratch = true;
        if (threads > 1)
            split_every_job(&r, threads);
        int failures = 0;
        fast_cases = 0;
        for (int k = 0; k < 400; k++) {
            sm_case c = {between(1, 20), between(1, 500), between(0, 3),
                         (float)between(1, 40) / 10.0f, 0.01f + (float)between(1, 300) / 1000.0f,
                         between(-128, 127)};
            if (between(0, 7) == 0) /* one or two classes: outputs at the clamp */
                c.depth = between(1, 2);
            if (c.outer * c.depth > MAX_N)
                c.depth = MAX_N / c.outer;
            bool specials = c.kind == 2 && between(0, 1);
            if (c.kind == 2)
                c.beta = float_beta();
            for (int32_t i = 0; i < c.outer * c.depth; i++) {
                in8[i] = (int8_t)between(-128, 127);
                in32[i] = specials ? logit() : unit() * 10.0f;
            }
            if (c.kind < 2 && between(0, 3) == 0) { /* values near the maximum: large sums, */
                c.outer = between(1, 4), c.depth = between(500, 700); /* exponents past 31 */
                int32_t top = between(-125, 127);
                for (int32_t i = 0; i < c.outer * c.depth; i++)
                    in8[i] = (int8_t)between(top - 3, top);
            }
            if (c.kind == 3)
                int16_case(&c);
            failures += !case_matches(&r, &c);
        }
        pl_fast_resolver_release(&r);
        if (threads == 1)
            printf("  %s: softmax %d fast cases\n", pl_fast_isa_name((pl_isa)isa), fast_cases);
        else
            printf("  %s, %d threads: softmax %d fast cases, %llu split jobs\n",
                   pl_fast_isa_name((pl_isa)isa), (int)threads, fast_cases,
                   (unsigned long long)r.parallel_jobs);
        CHECK_EQ(failures, 0);
        CHECK_EQ(fast_cases, 400);
        CHECK(threads == 1 || r.parallel_jobs > 0);
        CHECK_EQ(pl_fast_resolver_set_threads(&r, 1), PL_OK);
    }
}

static void softmax_fast_path_equals_portable(void)
{
    softmax_cases(1);
}

/* Rows over 3 threads, every job split: the same bytes. */
static void softmax_threads_equal_portable(void)
{
    softmax_cases(3);
}

int main(void)
{
    RUN(softmax_fast_path_equals_portable);
    RUN(softmax_threads_equal_portable);
    return HARNESS_END();
}
