/* test_fast_slice.c - SLICE's host fast path against the portable kernel on random ranks,
** shapes, element types, begins and sizes (-1 too, whole axes and single indices, INT32 and
** INT64 operands): the same status, byte for byte the same output. Every non-empty slice of
** constant begin and size takes the fast path (the test fails otherwise); begin and size
** read at invoke, and an empty slice, keep the portable kernel. */
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernels/shape/slice.h"

enum { SLICE = 65, MAX_ELEMS = 6 * 6 * 6 * 6 * 6, MAX_BYTES = MAX_ELEMS * 8 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == SLICE ? pl_slice_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

typedef struct slice_case {
    pl_type type, index_type;
    bool constant;
    int32_t ndims, dims[5];
    int64_t begin[5], size[5];
} slice_case;

static _Alignas(16) uint8_t input[MAX_BYTES], output[2][MAX_BYTES];

static void random_case(slice_case *c)
{
    static const pl_type types[] = {PL_INT8, PL_UINT8, PL_INT16, PL_FLOAT32, PL_INT32,
                                    PL_INT64, PL_BOOL};
    memset(c, 0, sizeof *c);
    c->type = types[between(0, 6)];
    c->index_type = between(0, 1) ? PL_INT32 : PL_INT64;
    c->constant = between(0, 7) != 0;
    c->ndims = between(1, 5);
    for (int32_t a = 0; a < c->ndims; a++) {
        int32_t n = c->dims[a] = between(1, 6);
        switch (between(0, 3)) {
        case 0: /* the whole axis: the run goes on through it */
            c->begin[a] = 0, c->size[a] = between(0, 1) ? n : -1;
            break;
        case 1: /* one index */
            c->begin[a] = between(0, n - 1), c->size[a] = 1;
            break;
        default: /* any box, empty ones too */
            c->begin[a] = between(0, n);
            c->size[a] = between(0, 4) == 0 ? -1 : between(0, n - (int32_t)c->begin[a]);
        }
    }
    for (size_t i = 0; i < sizeof input; i++)
        input[i] = (uint8_t)rnd();
}

static int32_t operand(const slice_case *c, const int64_t *v, void *buf)
{
    const int32_t dims[1] = {c->ndims};
    for (int32_t a = 0; a < c->ndims; a++) {
        int32_t v32 = (int32_t)v[a];
        if (c->index_type == PL_INT32)
            memcpy((uint8_t *)buf + 4 * a, &v32, 4);
        else
            memcpy((uint8_t *)buf + 8 * a, &v[a], 8);
    }
    int32_t t = kh_tensor(c->index_type, 1, dims, buf,
                          pl_type_size(c->index_type) * (size_t)c->ndims, NULL, NULL, 0, 0);
    kh.tensors[t].is_constant = c->constant;
    return t;
}

static pl_status run_case(const void *vc, const pl_registration *reg, int slot,
                          size_t *bytes)
{
    const slice_case *c = vc;
    static _Alignas(8) uint8_t begin[40], size[40];
    kh_setup();
    size_t es = pl_type_size(c->type), n = 1, m = 1;
    int32_t out_dims[5];
    for (int32_t a = 0; a < c->ndims; a++) {
        n *= (size_t)c->dims[a];
        out_dims[a] = c->size[a] < 0 ? c->dims[a] - (int32_t)c->begin[a] : (int32_t)c->size[a];
        m *= (size_t)out_dims[a];
    }
    memset(output[slot], slot ? 0x55 : 0xAA, sizeof output[slot]);
    int32_t t[4];
    t[0] = kh_tensor(c->type, c->ndims, c->dims, input, n * es, NULL, NULL, 0, 0);
    t[1] = operand(c, c->begin, begin);
    t[2] = operand(c, c->size, size);
    t[3] = kh_tensor(c->type, c->ndims, out_dims, output[slot], m * es, NULL, NULL, 0, 0);
    pl_status s = kh_run(reg, t, 3, t + 3, 1, NULL);
    *bytes = m * es;
    return s;
}

static bool case_matches(pl_fast_resolver *r, const slice_case *c)
{
    fast_pair p = fast_run_pair(r, pl_slice_registration(), SLICE,
                                run_case, c, output[0], output[1]);
    bool same = p.agree && p.equal;
    bool expect_fast = p.want == PL_OK && p.want_bytes > 0 && c->constant;
    if (!same || p.took_fast != expect_fast)
        fprintf(stderr, "slice %s: type %s rank %d status %d/%d bytes %zu/%zu fast %d\n",
                same ? "path" : "differs", pl_type_name(c->type), c->ndims, (int)p.want,
                (int)p.got, p.want_bytes, p.got_bytes, p.took_fast);
    return same && p.took_fast == expect_fast;
}

static bool one_case(pl_fast_resolver *r)
{
    slice_case c;
    random_case(&c);
    return case_matches(r, &c);
}

static void slice_fast_path_equals_portable(void)
{
    fast_equals_portable(&portable, "slice", 1500, 500, one_case);
}

int main(void)
{
    RUN(slice_fast_path_equals_portable);
    return HARNESS_END();
}
