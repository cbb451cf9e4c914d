/* test_fast_gather.c - GATHER's host fast path against the portable kernel on random params
** (rank 1 to 4, element types), axes (negative too), batch_dims and indices (INT16, INT32,
** INT64; now and then one out of range): the same status, byte for byte the same output.
** Every case with indices takes the fast path (the test fails otherwise); a bad index fails
** as the portable kernel fails. */
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/gather/gather.h"

enum { GATHER = 36, MAX_ELEMS = 8 * 8 * 8 * 8 * 8, MAX_BYTES = MAX_ELEMS * 8 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == GATHER ? pl_gather_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

typedef struct gather_case {
    pl_type type, index_type;
    int32_t ndims, dims[4], index_ndims, index_dims[3];
    int32_t options[2]; /* axis, batch_dims */
    int64_t index[64];
} gather_case;

static _Alignas(16) uint8_t params[MAX_BYTES], output[2][MAX_BYTES];

static void random_case(gather_case *c)
{
    static const pl_type types[] = {PL_INT8, PL_UINT8, PL_INT16, PL_FLOAT32, PL_INT32,
                                    PL_INT64, PL_BOOL};
    memset(c, 0, sizeof *c);
    c->type = types[between(0, 6)];
    c->index_type = (pl_type[]){PL_INT16, PL_INT32, PL_INT64}[between(0, 2)];
    c->ndims = between(1, 4);
    for (int32_t a = 0; a < c->ndims; a++)
        c->dims[a] = between(1, 6);
    int32_t axis = between(0, c->ndims - 1), bd = between(0, axis);
    c->index_ndims = between(bd > 0 ? bd : 0, 3);
    c->index_ndims = c->index_ndims < bd ? bd : c->index_ndims;
    int32_t count = 1;
    for (int32_t a = 0; a < c->index_ndims; a++) {
        c->index_dims[a] = a < bd ? c->dims[a] : between(1, 3);
        count *= c->index_dims[a];
    }
    if (count > 64 || c->index_ndims > 3) /* keep it small: no batch dims, one index */
        bd = 0, c->index_ndims = 1, c->index_dims[0] = 1, count = 1;
    c->options[0] = between(0, 1) ? axis : axis - c->ndims;
    c->options[1] = between(0, 1) ? bd : bd - c->index_ndims;
    c->options[1] = bd == 0 ? 0 : c->options[1];
    for (int32_t k = 0; k < count; k++)
        c->index[k] = between(0, c->dims[axis] - 1);
    if (between(0, 15) == 0)
        c->index[between(0, count - 1)] = between(0, 1) ? -1 : c->dims[axis];
    for (size_t i = 0; i < sizeof params; i++)
        params[i] = (uint8_t)rnd();
}

static pl_status run_case(const void *vc, const pl_registration *reg, int slot,
                          size_t *bytes)
{
    const gather_case *c = vc;
    static _Alignas(8) uint8_t index[64 * 8];
    kh_setup();
    size_t es = pl_type_size(c->type), n = 1, count = 1;
    for (int32_t a = 0; a < c->ndims; a++)
        n *= (size_t)c->dims[a];
    for (int32_t a = 0; a < c->index_ndims; a++)
        count *= (size_t)c->index_dims[a];
    size_t is = pl_type_size(c->index_type);
    for (size_t k = 0; k < count; k++) {
        int16_t v16 = (int16_t)c->index[k];
        int32_t v32 = (int32_t)c->index[k];
        memcpy(index + k * is, is == 2 ? (void *)&v16 : is == 4 ? (void *)&v32
                                                                 : (void *)&c->index[k], is);
    }
    memset(output[slot], slot ? 0x55 : 0xAA, sizeof output[slot]);
    const int32_t out_dims[1] = {MAX_ELEMS};
    int32_t t[3];
    t[0] = kh_tensor(c->type, c->ndims, c->dims, params, n * es, NULL, NULL, 0, 0);
    t[1] = kh_tensor(c->index_type, c->index_ndims, c->index_dims, index, count * is, NULL,
                     NULL, 0, 0);
    t[2] = kh_tensor(c->type, 1, out_dims, output[slot], MAX_ELEMS * es, NULL, NULL, 0, 0);
    kt_opts o;
    pl_status s = kh_run(reg, t, 2, t + 2, 1, kt_make_opts(&o, c->options, 2));
    *bytes = es;
    for (int32_t a = 0; a < kh.tensors[t[2]].ndims; a++)
        *bytes *= (size_t)kh.tensors[t[2]].dims[a];
    return s;
}

static bool case_matches(pl_fast_resolver *r, const gather_case *c)
{
    fast_pair p = fast_run_pair(r, pl_gather_registration(), GATHER,
                                run_case, c, output[0], output[1]);
    bool same = p.agree && p.equal;
    if (!same || !p.took_fast)
        fprintf(stderr, "gather %s: type %s rank %d status %d/%d bytes %zu/%zu fast %d\n",
                same ? "path" : "differs", pl_type_name(c->type), c->ndims, (int)p.want,
                (int)p.got, p.want_bytes, p.got_bytes, p.took_fast);
    return same && p.took_fast;
}

static bool one_case(pl_fast_resolver *r)
{
    gather_case c;
    random_case(&c);
    return case_matches(r, &c);
}

static void gather_fast_path_equals_portable(void)
{
    fast_equals_portable(&portable, "gather", 1500, 1500, one_case);
}

int main(void)
{
    RUN(gather_fast_path_equals_portable);
    return HARNESS_END();
}
