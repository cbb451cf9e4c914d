/* test_fast_mean.c - MEAN's, SUM's, REDUCE_MAX's and REDUCE_MIN's host fast path against the
** portable kernel on random
** ranks (1 to 5), shapes (axes of one too), axes (negative, repeated, adjacent or not),
** keep_dims, element types (float32, int8, int16, uint8), scales and zero points: the same
** status, byte for byte the same output. Every case whose reduced axes are adjacent (axes of
** one aside) takes the fast path (the test fails otherwise); the others keep the portable
** kernel. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "fast/fast.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_fast.h"

enum { MEAN = 40, SUM = 74, RMAX = 82, RMIN = 89, MAX_ELEMS = 9 * 9 * 9 * 9 * 9, MAX_BYTES = MAX_ELEMS * 4 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == MEAN ? pl_reduce_mean_registration()
         : code == SUM  ? pl_reduce_sum_registration()
         : code == RMAX ? pl_reduce_max_registration()
         : code == RMIN ? pl_reduce_min_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

typedef struct mean_case {
    int32_t code; /* MEAN, SUM, RMAX or RMIN */
    pl_type type;
    int32_t ndims, dims[5], naxes, axes[5];
    int32_t keep[1];
    float in_scale, out_scale;
    int32_t in_zp, out_zp;
} mean_case;

static _Alignas(16) uint8_t input[MAX_BYTES], output[2][MAX_BYTES];

static void random_case(mean_case *c)
{
    static const pl_type types[] = {PL_FLOAT32, PL_INT8, PL_INT16, PL_UINT8};
    memset(c, 0, sizeof *c);
    c->code = (int32_t[]){MEAN, MEAN, SUM, RMAX, RMIN}[between(0, 4)];
    c->type = types[between(0, 3)];
    c->ndims = between(1, 5);
    for (int32_t a = 0; a < c->ndims; a++)
        c->dims[a] = between(0, 3) == 0 ? 1 : between(1, c->ndims > 3 ? 9 : 40);
    c->naxes = between(1, 3);
    for (int32_t k = 0; k < c->naxes; k++) /* negative and repeated too */
        c->axes[k] = between(-c->ndims, c->ndims - 1);
    if (between(0, 1)) { /* a spatial mean: adjacent axes */
        int32_t first = between(0, c->ndims - 1);
        c->naxes = between(1, c->ndims - first);
        for (int32_t k = 0; k < c->naxes; k++)
            c->axes[k] = first + k;
    }
    c->keep[0] = between(0, 1);
    c->in_scale = 0.01f + (float)between(0, 1000) / 997.0f;
    c->out_scale = 0.01f + (float)between(0, 1000) / 991.0f;
    c->in_zp = c->type == PL_INT16 ? 0 : c->type == PL_UINT8 ? between(0, 255)
                                                              : between(-128, 127);
    c->out_zp = c->type == PL_INT16 ? 0 : c->type == PL_UINT8 ? between(0, 255)
                                                               : between(-128, 127);
    if (c->code == RMAX || c->code == RMIN) { /* one quantization: the raw values compare */
        c->out_scale = c->in_scale;
        c->out_zp = c->in_zp;
    }
    static const float specials[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, FLT_MAX,
                                     -FLT_MAX, 1e-40f};
    bool extreme = c->code == RMAX || c->code == RMIN;
    for (size_t i = 0; i < MAX_ELEMS; i++) {
        if (c->type == PL_FLOAT32) { /* folds: specials and zeros of both signs, often */
            float v = extreme && between(0, 3) == 0 ? specials[between(0, 8)]
                    : extreme && between(0, 1) ? (float)between(-3, 3) : unit() * 1000.0f;
            memcpy(input + 4 * i, &v, 4);
        } else {
            input[2 * i] = (uint8_t)rnd(), input[2 * i + 1] = (uint8_t)rnd();
        }
    }
}

/* Whether the reduced axes are adjacent once axes of one are left out. */
static bool adjacent(const mean_case *c)
{
    int part = 0;
    for (int32_t a = 0; a < c->ndims; a++) {
        bool red = false;
        for (int32_t k = 0; k < c->naxes; k++)
            red |= c->axes[k] == a || c->axes[k] + c->ndims == a;
        if (c->dims[a] == 1)
            continue;
        if (part == 0 && red)
            part = 1;
        else if (part == 1 && !red)
            part = 2;
        else if (part == 2 && red)
            return false;
    }
    return true;
}

static pl_status run_case(const void *vc, const pl_registration *reg, int slot,
                          size_t *bytes)
{
    const mean_case *c = vc;
    static int32_t axes[5];
    kh_setup();
    size_t es = pl_type_size(c->type), n = 1, m = 1;
    int32_t out_dims[5], kept = 0;
    for (int32_t a = 0; a < c->ndims; a++) {
        bool red = false;
        for (int32_t k = 0; k < c->naxes; k++)
            red |= c->axes[k] == a || c->axes[k] + c->ndims == a;
        n *= (size_t)c->dims[a];
        m *= red ? 1 : (size_t)c->dims[a];
        if (c->keep[0] || !red)
            out_dims[kept++] = red ? 1 : c->dims[a];
    }
    memcpy(axes, c->axes, sizeof axes);
    memset(output[slot], slot ? 0x55 : 0xAA, sizeof output[slot]);
    const float is[1] = {c->in_scale}, os[1] = {c->out_scale};
    const int64_t iz[1] = {c->in_zp}, oz[1] = {c->out_zp};
    uint32_t q = c->type == PL_FLOAT32 ? 0 : 1;
    const int32_t axis_dims[1] = {c->naxes};
    int32_t t[3];
    t[0] = kh_tensor(c->type, c->ndims, c->dims, input, n * es, is, iz, q, 0);
    t[1] = kh_tensor(PL_INT32, 1, axis_dims, axes, 4 * (size_t)c->naxes, NULL, NULL, 0, 0);
    kh.tensors[t[1]].is_constant = true;
    t[2] = kh_tensor(c->type, kept, out_dims, output[slot], m * es, os, oz, q, 0);
    kt_opts o;
    pl_status s = kh_run(reg, t, 2, t + 2, 1, kt_make_opts(&o, c->keep, 1));
    *bytes = m * es;
    return s;
}

static bool case_matches(pl_fast_resolver *r, const mean_case *c)
{
    fast_pair p = fast_run_pair(r, portable_find(NULL, c->code, NULL, 0, 1), c->code,
                                run_case, c, output[0], output[1]);
    bool same = p.agree && p.equal;
    bool expect_fast = p.want == PL_OK && adjacent(c);
    if (!same || p.took_fast != expect_fast || p.want != PL_OK)
        fprintf(stderr, "%s %s: type %s rank %d axes %d status %d/%d bytes %zu/%zu fast %d\n",
                c->code == SUM ? "sum" : c->code == MEAN ? "mean" : "max/min", same ? "path" : "differs", pl_type_name(c->type), c->ndims, c->naxes,
                (int)p.want, (int)p.got, p.want_bytes, p.got_bytes, p.took_fast);
    return same && p.took_fast == expect_fast && p.want == PL_OK;
}

static bool one_case(pl_fast_resolver *r)
{
    mean_case c;
    random_case(&c);
    return case_matches(r, &c);
}

static void mean_fast_path_equals_portable(void)
{
    fast_equals_portable(&portable, "mean", 1500, 900, one_case);
}

/* The random cases on 3 threads: integer spatial means (one plane, several channels) split
** their rows into parts over the threads; the same bytes, and some jobs split. */
static void mean_threads_equal_portable(void)
{
    fast_threads_equal_portable(&portable, "mean", 1500, 20, one_case);
}

/* The vectorized int8 rescale (AVX2 and AVX-512 MEAN) against the portable one on random
** operands past what the random models reach: sums over all of int32, counts to 2^24 (a
** right shift past 31, clamped), left shifts, every zero point; lengths 0 to 40 (the
** scalar tail). A zero-point term dropped fails it. */
static void mean_rescale_s8_equals_portable(void)
{
#if defined(__x86_64__)
    if (!pl_fast_isa_available(PL_ISA_AVX2))
        return;
    enum { N = 40 };
    int failures = 0, clamped = 0;
    for (int c = 0; c < 20000; c++) {
        pl_reduce_op d;
        memset(&d, 0, sizeof d);
        d.type = PL_INT8;
        d.is_sum = between(0, 3) == 0;
        d.p.reduced = between(0, 1) ? between(1, 64) : 1 << between(6, 24);
        d.multiplier = (int32_t)(0x40000000u + (rnd() & 0x3FFFFFFFu));
        d.shift = between(-40, 12); /* past -31: a tiny scale ratio */
        d.in_zp = between(-128, 127);
        d.out_zp = between(-128, 127);
        size_t n = (size_t)between(0, N);
        d.p.out_count = n;
        int32_t sum[N];
        int8_t want[N], got[N];
        for (size_t k = 0; k < n; k++)
            sum[k] = (int32_t)(between(0, 3) == 0 /* near zp * count, wrapped as int32 */
                                   ? rnd()
                                   : (uint32_t)((int64_t)d.in_zp * d.p.reduced) +
                                         (uint32_t)between(-3000, 3000));
        pl_reduce_rescale(&d, sum, want);
        pl_reduce_rescale_params rp;
        pl_reduce_rescale_params_of(&d, &rp);
        pl_fast_mean_rescale_s8_avx2(&rp, sum, got, n);
        failures += memcmp(want, got, n) != 0;
        for (size_t k = 0; k < n; k++)
            clamped += want[k] == INT8_MIN || want[k] == INT8_MAX;
    }
    printf("  int8 rescale: 20000 random cases, %d outputs clamped\n", clamped);
    CHECK_EQ(failures, 0);
    CHECK(clamped > 1000);
#endif
}

int main(void)
{
    RUN(mean_rescale_s8_equals_portable);
    RUN(mean_fast_path_equals_portable);
    RUN(mean_threads_equal_portable);
    return HARNESS_END();
}
