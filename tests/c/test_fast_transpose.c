/* test_fast_transpose.c - TRANSPOSE's host fast path against the portable kernel on random
** ranks (1 to 6), shapes (axes of one and empty ones too), permutations (INT32 and INT64),
** element types and targets (the CMSIS-NN ones carry out their own int8 permutation): the
** same status, byte for byte the same output. Every non-empty case the kernel writes takes
** the fast path, rows or 2-D tiles (the test fails otherwise). */
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernels/shape/transpose.h"

enum { TRANSPOSE = 39, MAX_ELEMS = 20 * 20 * 20 * 4, MAX_BYTES = MAX_ELEMS * 16 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == TRANSPOSE ? pl_transpose_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

typedef struct transpose_case {
    pl_type type, perm_type;
    pl_arith arith;
    int32_t ndims, dims[6], perm[6];
} transpose_case;

static _Alignas(16) uint8_t input[MAX_BYTES], output[2][MAX_BYTES];

static void random_case(transpose_case *c)
{
    static const pl_type types[] = {PL_INT8, PL_UINT8, PL_INT16, PL_FLOAT32, PL_INT32,
                                    PL_INT64, PL_BOOL, PL_COMPLEX128};
    static const pl_arith ariths[] = {PL_ARITH_LITERT, PL_ARITH_TFLM, PL_ARITH_CMSIS_NN_DSP,
                                      PL_ARITH_CMSIS_NN_MVE};
    memset(c, 0, sizeof *c);
    c->type = types[between(0, 7)];
    c->perm_type = between(0, 1) ? PL_INT32 : PL_INT64;
    c->arith = ariths[between(0, 3)];
    c->ndims = between(1, 6);
    size_t n = 1;
    for (int32_t a = 0; a < c->ndims; a++) {
        int32_t big = c->ndims <= 3 ? 20 : c->ndims == 4 ? 8 : 4;
        c->dims[a] = between(0, 19) == 0 ? 0 : between(0, 2) == 0 ? 1 : between(1, big);
        n *= (size_t)(c->dims[a] > 0 ? c->dims[a] : 1);
        c->perm[a] = a;
    }
    for (int32_t a = c->ndims - 1; a > 0; a--) { /* a random permutation */
        int32_t b = between(0, a), t = c->perm[a];
        c->perm[a] = c->perm[b], c->perm[b] = t;
    }
    if (n > MAX_ELEMS)
        c->dims[0] = 1;
    for (size_t i = 0; i < sizeof input; i++)
        input[i] = (uint8_t)rnd();
}

static pl_status run_case(const void *vc, const pl_registration *reg, int slot,
                          size_t *bytes)
{
    const transpose_case *c = vc;
    static _Alignas(8) uint8_t perm[6 * 8];
    kh_setup();
    kh_ctx.arith = c->arith;
    size_t es = pl_type_size(c->type), n = 1;
    int32_t out_dims[6];
    for (int32_t a = 0; a < c->ndims; a++) {
        n *= (size_t)c->dims[a];
        out_dims[a] = c->dims[c->perm[a]];
        int64_t v = c->perm[a];
        int32_t v32 = c->perm[a];
        if (c->perm_type == PL_INT32)
            memcpy(perm + 4 * a, &v32, 4);
        else
            memcpy(perm + 8 * a, &v, 8);
    }
    memset(output[slot], slot ? 0x55 : 0xAA, sizeof output[slot]);
    const int32_t perm_dims[1] = {c->ndims};
    int32_t t[3];
    t[0] = kh_tensor(c->type, c->ndims, c->dims, input, n * es, NULL, NULL, 0, 0);
    t[1] = kh_tensor(c->perm_type, 1, perm_dims, perm,
                     pl_type_size(c->perm_type) * (size_t)c->ndims, NULL, NULL, 0, 0);
    kh.tensors[t[1]].is_constant = true;
    t[2] = kh_tensor(c->type, c->ndims, out_dims, output[slot], n * es, NULL, NULL, 0, 0);
    pl_status s = kh_run(reg, t, 2, t + 2, 1, NULL);
    kh_ctx.arith = PL_ARITH_TFLM;
    *bytes = n * es;
    return s;
}

static bool case_matches(pl_fast_resolver *r, const transpose_case *c)
{
    fast_pair p = fast_run_pair(r, pl_transpose_registration(), TRANSPOSE,
                                run_case, c, output[0], output[1]);
    /* CMSIS-NN's int8 transpose refuses ranks above 4 and writes nothing */
    bool refused = c->type == PL_INT8 && pl_arith_cmsis_nn(c->arith) && c->ndims > 4;
    bool same = p.agree && (refused || p.equal);
    bool expect_fast = p.want == PL_OK && p.want_bytes > 0 && !refused;
    if (!same || p.took_fast != expect_fast)
        fprintf(stderr, "transpose %s: type %s rank %d status %d/%d bytes %zu/%zu fast %d\n",
                same ? "path" : "differs", pl_type_name(c->type), c->ndims, (int)p.want,
                (int)p.got, p.want_bytes, p.got_bytes, p.took_fast);
    return same && p.took_fast == expect_fast && p.want == PL_OK;
}

static bool one_case(pl_fast_resolver *r)
{
    transpose_case c;
    random_case(&c);
    return case_matches(r, &c);
}

static void transpose_fast_path_equals_portable(void)
{
    fast_equals_portable(&portable, "transpose", 1500, 1000, one_case);
}

int main(void)
{
    RUN(transpose_fast_path_equals_portable);
    return HARNESS_END();
}
