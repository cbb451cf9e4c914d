/* test_fast_prelu.c - float PRELU's host fast path against the portable kernel on random
** shapes, bit for bit (NaN, infinities and signed zeros included in the input and in alpha).
** Alpha repeating along the input's last axes ([C], [1,1,1,C], [W,C], [H,W,C], a scalar, the
** input's shape; short ones repeated in the host block, a constant or not) takes the fast
** path; other broadcasts ([H,1,C]), a short alpha that is not a constant and int8 keep the
** portable kernel. Every instruction set this CPU runs is tested. */
#include <math.h>
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/activation/prelu.h"
#include "fast/prelu.h"
#include "kernels/registry.h"

enum { PRELU = 54, MAX_N = 40000 }; /* several of fast/prelu.c's 16384-element tasks */

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == PRELU ? pl_prelu_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

typedef enum form { LAST_1, LAST_4, LAST_2, LAST_3, SCALAR, SAME, OTHER, S8, FORMS } form;

typedef struct prelu_case {
    form form;
    bool constant; /* alpha a model constant */
    int32_t in_dims[4], a_nd, a_dims[4];
} prelu_case;

static float in32[MAX_N], alpha32[MAX_N], out32[2][MAX_N];
static int8_t in8[MAX_N], alpha8[MAX_N], out8[2][MAX_N];

static size_t count(int32_t nd, const int32_t *dims)
{
    size_t n = 1;
    for (int32_t k = 0; k < nd; k++)
        n *= (size_t)dims[k];
    return n;
}

static float from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static uint32_t bits_of(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* A NaN of either sign with a random payload, quiet or signaling (never the infinity). */
static float any_nan(void)
{
    uint32_t payload = rnd() & 0x7FFFFFu;
    payload = payload == 0 ? 1 : payload;
    return from_bits((rnd() & 0x80000000u) | 0x7F800000u | payload);
}

static float special(void)
{
    switch (between(0, 7)) {
    case 0: return NAN;
    case 1: return -NAN;
    case 2: return INFINITY;
    case 3: return -INFINITY;
    case 4: return -0.0f;
    case 5: return 0.0f;
    default: return any_nan();
    }
}

/* The rule, bit for bit: x when x >= 0; a NaN x quieted; else x * alpha, whose only NaN
** operand can be alpha (returned quieted), or the default NaN of -inf * 0. */
static uint32_t rule(float x, float alpha)
{
    if (x >= 0.0f)
        return bits_of(x);
    if (isnan(x))
        return bits_of(x) | 0x400000u;
    if (isnan(alpha))
        return bits_of(alpha) | 0x400000u;
    return bits_of(x * alpha);
}

static void random_case(prelu_case *c)
{
    int32_t *d = c->in_dims;
    c->form = (form)between(0, FORMS - 1);
    c->constant = between(0, 2) != 0;
    d[0] = between(1, 2), d[1] = between(1, 12), d[2] = between(1, 12), d[3] = between(1, 40);
    if (between(0, 5) == 0)
        d[3] = between(60, 130); /* rows past one vector and the repeat length */
    if (between(0, 7) == 0) /* large: split over threads (fast/prelu.c's spans) */
        d[0] = 1, d[1] = between(16, 30), d[2] = between(16, 30), d[3] = between(40, 44);
    while (count(4, d) > MAX_N)
        d[1] = d[1] > 1 ? d[1] / 2 : 1, d[2] = d[2] > 1 ? d[2] / 2 : 1;
    int32_t *a = c->a_dims;
    switch (c->form) {
    case LAST_1: c->a_nd = 1, a[0] = d[3]; break;
    case LAST_4: c->a_nd = 4, a[0] = a[1] = a[2] = 1, a[3] = d[3]; break;
    case LAST_2: c->a_nd = 2, a[0] = d[2], a[1] = d[3]; break;
    case LAST_3: c->a_nd = 3, a[0] = d[1], a[1] = d[2], a[2] = d[3]; break;
    case SCALAR: c->a_nd = 1, a[0] = 1; break;
    case OTHER: /* [H,1,C] with H, W > 1: a broadcast in the middle */
        d[1] = d[1] < 2 ? 2 : d[1], d[2] = d[2] < 2 ? 2 : d[2];
        while (count(4, d) > MAX_N) /* H, W raised past the shrink above */
            d[3]--;
        c->a_nd = 3, a[0] = d[1], a[1] = 1, a[2] = d[3];
        break;
    default: c->a_nd = 4, memcpy(a, d, sizeof c->a_dims); break; /* SAME, S8 */
    }
    size_t n = count(4, d), na = count(c->a_nd, a);
    int32_t nan_odds = between(0, 3) == 0 ? 2 : 16; /* some cases dense in NaN against NaN */
    for (size_t i = 0; i < n; i++) {
        in32[i] = between(1, nan_odds) == 1 ? special() : unit() * 8.0f;
        in8[i] = (int8_t)between(-128, 127);
    }
    for (size_t i = 0; i < na; i++) {
        alpha32[i] = between(1, 2 * nan_odds) == 1 ? special() : unit();
        alpha8[i] = (int8_t)between(-128, 127);
    }
}

static bool expect_fast(const prelu_case *c)
{
    size_t period = count(c->a_nd, c->a_dims), n = count(4, c->in_dims);
    bool repeated = period < 64 && period < n;
    return c->form != OTHER && c->form != S8 && (c->constant || !repeated);
}

static pl_status run_case(const prelu_case *c, const pl_registration *reg, int slot)
{
    kh_setup();
    bool s8 = c->form == S8;
    size_t es = s8 ? 1 : sizeof(float), n = count(4, c->in_dims);
    size_t na = count(c->a_nd, c->a_dims);
    const float scales[3] = {0.05f, 0.01f, 0.04f};
    const int64_t zps[3] = {3, -7, 1};
    int32_t t[3];
    t[0] = s8 ? kh_tensor(PL_INT8, 4, c->in_dims, in8, n, &scales[0], &zps[0], 1, 0)
              : kh_tensor(PL_FLOAT32, 4, c->in_dims, in32, n * es, NULL, NULL, 0, 0);
    t[1] = s8 ? kh_tensor(PL_INT8, c->a_nd, c->a_dims, alpha8, na, &scales[1], &zps[1], 1, 0)
              : kh_tensor(PL_FLOAT32, c->a_nd, c->a_dims, alpha32, na * es, NULL, NULL, 0, 0);
    kh.tensors[t[1]].is_constant = c->constant;
    t[2] = s8 ? kh_tensor(PL_INT8, 4, c->in_dims, out8[slot], n, &scales[2], &zps[2], 1, 0)
              : kh_tensor(PL_FLOAT32, 4, c->in_dims, out32[slot], n * es, NULL, NULL, 0, 0);
    return kh_run(reg, t, 2, t + 2, 1, NULL);
}

static bool case_matches(pl_fast_resolver *r, const prelu_case *c)
{
    const pl_registration *fast = r->resolver.find(r, PRELU, NULL, 0, 1);
    if (run_case(c, pl_prelu_registration(), 0) != PL_OK || run_case(c, fast, 1) != PL_OK) {
        fprintf(stderr, "prelu refused: %s\n", kh.message);
        return false;
    }
    bool took_fast = r->host_bytes > r->capacity * sizeof(pl_fast_slot);
    fast_cases += took_fast;
    pl_fast_resolver_release(r);
    size_t n = count(4, c->in_dims);
    bool same = c->form == S8 ? memcmp(out8[0], out8[1], n) == 0
                              : memcmp(out32[0], out32[1], n * sizeof(float)) == 0;
    if (c->form != S8 && c->form != OTHER) /* alpha repeats: the portable kernel's rule */
        for (size_t i = 0, na = count(c->a_nd, c->a_dims); i < n && same; i++)
            same = bits_of(out32[0][i]) == rule(in32[i], alpha32[i % na]);
    if (!same || took_fast != expect_fast(c))
        fprintf(stderr, "prelu %s: form %d in %dx%dx%dx%d alpha rank %d constant %d fast %d\n",
                same ? "path" : "differs", c->form, c->in_dims[0], c->in_dims[1],
                c->in_dims[2], c->in_dims[3], c->a_nd, c->constant, took_fast);
    return same && took_fast == expect_fast(c);
}

static bool one_case(pl_fast_resolver *r)
{
    prelu_case c;
    random_case(&c);
    return case_matches(r, &c);
}

static void prelu_fast_path_equals_portable(void)
{
    fast_equals_portable(&portable, "prelu", 800, 451, one_case);
    fast_threads_equal_portable(&portable, "prelu", 400, 10, one_case);
}

/* The row loops alone on awkward lengths: every one of them follows the rule. */
static void prelu_row_loops_follow_the_rule(void)
{
    for (int isa = 0; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        pl_prelu_rows_fn rows = pl_prelu_rows_for((pl_isa)isa);
        for (int k = 0; k < 200; k++) {
            size_t period = (size_t)between(1, 40), n = (size_t)between(0, 300);
            for (size_t i = 0; i < n; i++)
                in32[i] = between(0, 3) == 0 ? special() : unit();
            for (size_t i = 0; i < period; i++)
                alpha32[i] = between(0, 3) == 0 ? special() : unit();
            rows(in32, alpha32, period, n, out32[0]);
            for (size_t i = 0; i < n; i++)
                CHECK_EQ(bits_of(out32[0][i]), rule(in32[i], alpha32[i % period]));
        }
    }
}

int main(void)
{
    RUN(prelu_fast_path_equals_portable);
    RUN(prelu_row_loops_follow_the_rule);
    return HARNESS_END();
}
