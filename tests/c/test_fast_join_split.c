/* test_fast_join_split.c - the fast path of CONCATENATION, PACK, SPLIT, SPLIT_V and UNPACK
** against the portable kernels on random ranks, axes (negative too), tensor counts, shapes
** (empty ones too) and element types, 8-bit tensors quantized like the others or not: the
** same status, byte for byte the same outputs. Runs of every length the fast path treats
** apart occur (one byte, 2-3, 4-7, 8-15, 16-255 and longer). Every non-empty output takes
** the fast path (the test fails otherwise); on 3 threads, the copies split in spans. */
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernels/shape/concatenation.h"
#include "kernels/shape/pack.h"
#include "kernels/shape/split.h"
#include "opts_table.h"

enum { CONCATENATION = 2, SPLIT = 49, PACK = 83, UNPACK = 88, SPLIT_V = 102 };
/* dims of 1..6 (0 at times), 0..3 along the axis, up to 12 tensors */
enum { MAX_UNITS = 12, UNIT_BYTES = 3 * 6 * 6 * 6 * 6 * 8 };

static const pl_registration *registration(int32_t code)
{
    switch (code) {
    case CONCATENATION: return pl_concatenation_registration();
    case PACK: return pl_pack_registration();
    case UNPACK: return pl_unpack_registration();
    case SPLIT: return pl_split_registration();
    case SPLIT_V: return pl_split_v_registration();
    default: return NULL;
    }
}

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return registration(code);
}

static const pl_resolver portable = {portable_find, NULL};

typedef struct js_case {
    int32_t op;
    pl_type type;
    int32_t ndims, axis, n;       /* the joined tensor's rank; the axis as the model gives it */
    int32_t dims[5];              /* the joined tensor's, the axis dim summed */
    int32_t along[MAX_UNITS];     /* each unit's axis dim (PACK, UNPACK: 1, and no such dim) */
    bool requantized;             /* unit 0 quantized unlike the joined tensor */
    bool scalar_axis;             /* SPLIT's axis a scalar, else of shape [1] */
    int32_t inferred;             /* SPLIT_V: the size given as -1, or -1 for none */
} js_case;

static _Alignas(16) uint8_t source[MAX_UNITS][UNIT_BYTES];
static _Alignas(16) uint8_t output[2][MAX_UNITS * UNIT_BYTES];

static bool stacks(int32_t op)
{
    return op == PACK || op == UNPACK;
}

/* Set: rank 5 of dims 4 to 6 of 4- and 8-byte types, 3 to 12 tensors, an axis past the first
** (most past one span of copies). */
static bool large_cases;

static void random_case(js_case *c)
{
    static const pl_type types[] = {PL_INT8, PL_UINT8, PL_INT16, PL_FLOAT32, PL_INT32,
                                    PL_INT64, PL_BOOL};
    static const int32_t ops[] = {CONCATENATION, PACK, UNPACK, SPLIT, SPLIT_V};
    memset(c, 0, sizeof *c);
    c->op = ops[between(0, 4)];
    c->type = large_cases ? types[between(3, 5)] : types[between(0, 6)]; /* large: wide */
    c->ndims = large_cases ? 5 : between(stacks(c->op) ? 2 : 1, 5);
    c->n = large_cases ? between(3, MAX_UNITS)
         : between(0, 3) == 0 ? between(5, MAX_UNITS) : between(1, 4);
    const int32_t at = between(large_cases ? 1 : 0, c->ndims - 1); /* large: outer > 1 */
    c->axis = between(0, 1) ? at : at - c->ndims;
    for (int32_t a = 0; a < c->ndims; a++)
        c->dims[a] = large_cases ? between(4, 6) : between(0, 40) == 0 ? 0 : between(1, 6);
    int32_t sum = 0, each = between(0, 12) == 0 ? 0 : between(1, 3);
    for (int32_t k = 0; k < c->n; k++) {
        if (stacks(c->op))
            c->along[k] = 1;
        else if (c->op == SPLIT)
            c->along[k] = each;
        else
            c->along[k] = between(0, 12) == 0 ? 0 : between(1, 3);
        sum += c->along[k];
    }
    c->dims[at] = sum;
    c->requantized = between(0, 30) == 0;
    c->scalar_axis = between(0, 1);
    c->inferred = c->n > 1 && between(0, 3) == 0 ? between(0, c->n - 1) : -1;
    /* random bytes once, then a thousand of them changed a case (a full refill of the 373 KB
    ** took most of the test's time) */
    static bool filled;
    for (int32_t k = 0; k < MAX_UNITS && !filled; k++)
        for (size_t i = 0; i < sizeof source[k]; i++)
            source[k][i] = (uint8_t)rnd();
    filled = true;
    for (int i = 0; i < 1000; i++)
        source[between(0, MAX_UNITS - 1)][between(0, UNIT_BYTES - 1)] = (uint8_t)rnd();
}

static int32_t add_tensor(const js_case *c, int32_t ndims, const int32_t *dims, void *data,
                          bool requantize)
{
    size_t count = pl_type_size(c->type);
    for (int32_t a = 0; a < ndims; a++)
        count *= (size_t)dims[a];
    float scale = requantize ? 0.5f : 0.25f;
    int64_t zp = c->type == PL_INT8 || c->type == PL_UINT8 ? 3 : 0;
    uint32_t q = c->type == PL_INT8 || c->type == PL_UINT8 || c->type == PL_INT16 ? 1u : 0u;
    return kh_tensor(c->type, ndims, dims, data, count, &scale, &zp, q, 0);
}

/* Unit k's tensor over data: the joined shape with along[k] at the axis, or without the
** axis for PACK and UNPACK. */
static int32_t add_unit(const js_case *c, int32_t k, void *data, size_t *bytes)
{
    const int32_t at = c->axis < 0 ? c->axis + c->ndims : c->axis;
    int32_t dims[5], rank = 0;
    size_t count = pl_type_size(c->type);
    for (int32_t a = 0; a < c->ndims; a++) {
        if (a == at && stacks(c->op))
            continue;
        dims[rank++] = a == at ? c->along[k] : c->dims[a];
        count *= (size_t)dims[rank - 1];
    }
    *bytes = count;
    return add_tensor(c, rank, dims, data, k == 0 && c->requantized);
}

static int32_t constant_i32(const int32_t *v, int32_t n, int32_t ndims)
{
    const int32_t dims[1] = {n};
    int32_t t = kh_tensor(PL_INT32, ndims, dims, (void *)v, 4 * (size_t)n, NULL, NULL, 0, 0);
    kh.tensors[t].is_constant = true;
    return t;
}

static pl_status run_case(const void *vc, const pl_registration *reg, int slot,
                          size_t *bytes)
{
    const js_case *c = vc;
    const bool join = c->op == CONCATENATION || c->op == PACK;
    static int32_t axis_value, sizes[MAX_UNITS];
    kh_setup();
    memset(output[slot], slot ? 0x55 : 0xAA, sizeof output[slot]);
    int32_t in[MAX_UNITS + 2], out[MAX_UNITS], nin = 0, nout = 0;
    size_t at = 0, unit_bytes;
    *bytes = 0;
    if (c->op == SPLIT) {
        axis_value = c->axis;
        in[nin++] = constant_i32(&axis_value, 1, c->scalar_axis ? 0 : 1);
    }
    if (!join)
        in[nin++] = add_tensor(c, c->ndims, c->dims, source[0], false);
    for (int32_t k = 0; k < c->n; k++) {
        if (join) {
            in[nin++] = add_unit(c, k, source[k], &unit_bytes);
        } else {
            out[nout++] = add_unit(c, k, output[slot] + at, &unit_bytes);
            at += unit_bytes;
        }
    }
    if (join) {
        out[nout++] = add_tensor(c, c->ndims, c->dims, output[slot], false);
        at = kh.tensors[out[0]].bytes;
    }
    if (c->op == SPLIT_V) {
        memcpy(sizes, c->along, sizeof sizes);
        if (c->inferred >= 0)
            sizes[c->inferred] = -1;
        in[nin++] = constant_i32(sizes, c->n, 1);
        axis_value = c->axis;
        in[nin++] = constant_i32(&axis_value, 1, 0);
    }
    int32_t vals[2] = {c->n, c->axis}; /* PACK, UNPACK: count, axis; SPLIT(_V): count */
    if (c->op == CONCATENATION)
        vals[0] = c->axis, vals[1] = 0; /* axis, no activation */
    opt_buf ob;
    pl_table options = make_opts(&ob, 2, vals);
    pl_status s = kh_run(reg, in, (uint32_t)nin, out, (uint32_t)nout, &options);
    *bytes = at;
    return s;
}

static const char *op_name(int32_t op)
{
    return registration(op)->name;
}

static bool one_case(pl_fast_resolver *r)
{
    js_case c;
    random_case(&c);
    fast_pair p = fast_run_pair(r, registration(c.op), c.op, run_case, &c, output[0],
                                output[1]);
    bool same = p.agree && p.equal;
    bool expect_fast = p.want == PL_OK && p.want_bytes > 0;
    if (!same || p.took_fast != expect_fast)
        fprintf(stderr, "%s %s: type %s rank %d axis %d tensors %d status %d/%d bytes %zu/%zu "
                "fast %d\n", op_name(c.op), same ? "path" : "differs", pl_type_name(c.type),
                c.ndims, c.axis, c.n, (int)p.want, (int)p.got, p.want_bytes, p.got_bytes,
                p.took_fast);
    return same && p.took_fast == expect_fast;
}

static void join_split_fast_path_equals_portable(void)
{
    fast_equals_portable(&portable, "join/split", 4000, 2500, one_case);
}

/* Split over threads in spans of outer indices: every byte as one thread copies it. */
static void join_split_threads_equal_portable(void)
{
    large_cases = true;
    fast_threads_equal_portable(&portable, "join/split", 150, 60, one_case);
    large_cases = false;
}

int main(void)
{
    RUN(join_split_fast_path_equals_portable);
    RUN(join_split_threads_equal_portable);
    return HARNESS_END();
}
