/* test_fast_strided_slice.c - STRIDED_SLICE's host fast path against the portable kernel on
** random ranks, shapes, element sizes, begins, ends, strides (negative too) and begin, end
** and shrink masks: the same status, byte for byte the same output. Every non-empty slice
** takes the fast path (the test fails otherwise); an empty one keeps the portable kernel.
** Every instruction set this CPU runs is tested (the copy is the same C on each). */
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/shape/strided_slice.h"

enum { STRIDED_SLICE = 45, MAX_ELEMS = 7 * 7 * 7 * 7 * 5, MAX_BYTES = MAX_ELEMS * 8 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == STRIDED_SLICE ? pl_strided_slice_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

typedef struct slice_case {
    pl_type type;
    int32_t ndims, dims[5];
    int32_t begin[5], end[5], strides[5];
    int32_t masks[5]; /* begin, end, ellipsis (0), new axis (0), shrink */
} slice_case;

static uint8_t input[MAX_BYTES], output[2][MAX_BYTES];

static void random_case(slice_case *c)
{
    memset(c, 0, sizeof *c);
    c->type = (pl_type[]){PL_INT8, PL_INT16, PL_FLOAT32, PL_INT64}[between(0, 3)];
    c->ndims = between(1, 5);
    for (int32_t a = 0; a < c->ndims; a++) {
        int32_t n = c->dims[a] = between(1, a == 4 ? 5 : 7);
        switch (between(0, 4)) {
        case 0: /* the whole axis: a run goes on through it */
            c->begin[a] = 0, c->end[a] = n, c->strides[a] = 1;
            break;
        case 1: /* one index kept as an axis, or shrunk away */
            c->begin[a] = between(-n, n - 1), c->end[a] = c->begin[a] + 1;
            c->end[a] = c->end[a] == 0 ? n : c->end[a], c->strides[a] = 1;
            if (between(0, 1))
                c->masks[4] |= 1 << a;
            break;
        default: /* anything, out of range and negative strides included */
            c->begin[a] = between(-n - 2, n + 2), c->end[a] = between(-n - 2, n + 2);
            c->strides[a] = between(0, 1) ? between(1, 3) : -between(1, 3);
            c->masks[0] |= between(0, 3) == 0 ? 1 << a : 0;
            c->masks[1] |= between(0, 3) == 0 ? 1 << a : 0;
        }
    }
    for (size_t i = 0; i < sizeof input; i++)
        input[i] = (uint8_t)rnd();
}

static pl_status run_case(const void *vc, const pl_registration *reg, int slot,
                          size_t *bytes)
{
    const slice_case *c = vc;
    kh_setup();
    size_t es = pl_type_size(c->type), n = 1;
    for (int32_t a = 0; a < c->ndims; a++)
        n *= (size_t)c->dims[a];
    const int32_t spec_dims[1] = {c->ndims}, out_dims[1] = {MAX_ELEMS};
    memset(output[slot], slot ? 0x55 : 0xAA, sizeof output[slot]);
    int32_t t[5];
    t[0] = kh_tensor(c->type, c->ndims, c->dims, input, n * es, NULL, NULL, 0, 0);
    t[1] = kh_tensor(PL_INT32, 1, spec_dims, (void *)c->begin, 4 * (size_t)c->ndims, NULL,
                     NULL, 0, 0);
    t[2] = kh_tensor(PL_INT32, 1, spec_dims, (void *)c->end, 4 * (size_t)c->ndims, NULL, NULL,
                     0, 0);
    t[3] = kh_tensor(PL_INT32, 1, spec_dims, (void *)c->strides, 4 * (size_t)c->ndims, NULL,
                     NULL, 0, 0);
    for (int k = 1; k <= 3; k++)
        kh.tensors[t[k]].is_constant = true;
    t[4] = kh_tensor(c->type, 1, out_dims, output[slot], MAX_ELEMS * es, NULL, NULL, 0, 0);
    kt_opts o;
    pl_status s = kh_run(reg, t, 4, t + 4, 1, kt_make_opts(&o, c->masks, 5));
    const pl_tensor *out = &kh.tensors[t[4]];
    *bytes = es;
    for (int32_t a = 0; a < out->ndims; a++)
        *bytes *= (size_t)out->dims[a];
    return s;
}

static bool case_matches(pl_fast_resolver *r, const slice_case *c)
{
    fast_pair p = fast_run_pair(r, pl_strided_slice_registration(), STRIDED_SLICE,
                                run_case, c, output[0], output[1]);
    bool same = p.agree && p.equal;
    bool expect_fast = p.want == PL_OK && p.want_bytes > 0;
    if (!same || p.took_fast != expect_fast)
        fprintf(stderr, "strided slice %s: type %s rank %d status %d/%d bytes %zu/%zu "
                "fast %d\n", same ? "path" : "differs", pl_type_name(c->type), c->ndims,
                (int)p.want, (int)p.got, p.want_bytes, p.got_bytes, p.took_fast);
    return same && p.took_fast == expect_fast;
}

static bool one_case(pl_fast_resolver *r)
{
    slice_case c;
    random_case(&c);
    return case_matches(r, &c);
}

static void strided_slice_fast_path_equals_portable(void)
{
    fast_equals_portable(&portable, "strided slice", 1500, 501, one_case);
}

/* What a resized model's prepare does: the portable prepare folds the node (ctx->fold runs
** its invoke) before the fast plan is made, and the op data may sit where another node's did
** (here: the last case's, the harness reuses its arena). That invoke must not find the other
** case's block: the fast registration drops it first. */
static uint8_t folded[MAX_BYTES];

static pl_status fold_now(pl_context *ctx, pl_node *node, bool shape_only)
{
    (void)shape_only;
    pl_status s = node->registration->invoke(ctx, node);
    memcpy(folded, output[1], sizeof folded);
    return s;
}

static void a_fold_before_the_plan_never_finds_another_block(void)
{
    pl_fast_resolver r;
    CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, pl_fast_best_isa()), PL_OK);
    r.poison_scratch = true;
    const pl_registration *fast = r.resolver.find(&r, STRIDED_SLICE, NULL, 0, 1);
    int checked = 0, failures = 0;
    for (int k = 0; k < 300; k++) {
        slice_case a, b;
        size_t bytes_a, want_bytes, got_bytes;
        random_case(&a);
        random_case(&b);
        pl_status want = run_case(&b, pl_strided_slice_registration(), 0, &want_bytes);
        if (run_case(&a, fast, 1, &bytes_a) != PL_OK || want != PL_OK || want_bytes == 0)
            continue; /* a's block is the one to leave behind; b's fold must write */
        kh_ctx.fold = fold_now;
        pl_status got = run_case(&b, fast, 1, &got_bytes);
        kh_ctx.fold = kh_fold;
        checked++;
        failures += got != PL_OK || memcmp(folded, output[0], want_bytes) != 0;
    }
    pl_fast_resolver_release(&r);
    printf("  %d folds after another case's plan\n", checked);
    CHECK(checked > 50);
    CHECK_EQ(failures, 0);
}

int main(void)
{
    RUN(strided_slice_fast_path_equals_portable);
    RUN(a_fold_before_the_plan_never_finds_another_block);
    return HARNESS_END();
}
