/* test_fast_arg_max.c - ARG_MAX's and ARG_MIN's host fast path against the portable kernel on
** random ranks (1 to 4), shapes, axes (negative too), input types (float32, int8, uint8,
** int16, int32) and INT32/INT64 outputs: the same indices. Inputs are drawn from a few
** values so that ties are common (the first extreme wins), and float inputs hold NaNs, zeros
** of both signs and infinities (a NaN never wins, any number beats one). Every case takes
** the fast path (the test fails otherwise). */
#include <math.h>
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/gather/arg_min_max.h"

enum { ARG_MAX = 56, ARG_MIN = 79, MAX_ELEMS = 12 * 12 * 12 * 12 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == ARG_MAX ? pl_arg_max_registration()
         : code == ARG_MIN ? pl_arg_min_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

typedef struct arg_case {
    int32_t code, ndims, dims[4], axis;
    pl_type type, out_type;
} arg_case;

static _Alignas(16) uint8_t input[MAX_ELEMS * 4], output[2][MAX_ELEMS * 8];

static pl_status run_case(const void *vc, const pl_registration *reg, int slot, size_t *bytes)
{
    const arg_case *c = vc;
    static int32_t axis[1];
    kh_setup();
    size_t n = 1, m = 1;
    int32_t out_dims[4], k = 0, a = c->axis < 0 ? c->axis + c->ndims : c->axis;
    for (int32_t i = 0; i < c->ndims; i++) {
        n *= (size_t)c->dims[i];
        if (i != a)
            out_dims[k++] = c->dims[i], m *= (size_t)c->dims[i];
    }
    axis[0] = c->axis;
    const int32_t one[1] = {1};
    const float scale[1] = {0.5f};
    const int64_t zp[1] = {3};
    uint32_t q = c->type == PL_FLOAT32 || c->type == PL_INT32 ? 0 : 1;
    int32_t t[3];
    t[0] = kh_tensor(c->type, c->ndims, c->dims, input, n * pl_type_size(c->type), scale, zp,
                     q, 0);
    t[1] = kh_tensor(PL_INT32, 1, one, axis, 4, NULL, NULL, 0, 0);
    kh.tensors[t[1]].is_constant = true;
    memset(output[slot], slot ? 0x55 : 0xAA, sizeof output[slot]);
    t[2] = kh_tensor(c->out_type, k, out_dims, output[slot], m * pl_type_size(c->out_type),
                     NULL, NULL, 0, 0);
    *bytes = m * pl_type_size(c->out_type);
    kt_opts o;
    const int32_t fields[1] = {(int32_t)c->out_type};
    return kh_run(reg, t, 2, t + 2, 1, kt_make_opts(&o, fields, 1));
}

static void fill(const arg_case *c, size_t n)
{
    static const float specials[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f};
    for (size_t i = 0; i < n; i++) {
        int32_t v = between(-3, 3); /* few values: ties */
        switch (c->type) {
        case PL_FLOAT32: {
            float f = between(0, 4) == 0 ? specials[between(0, 5)] : (float)v * 0.5f;
            memcpy(input + 4 * i, &f, 4);
            break;
        }
        case PL_INT8: ((int8_t *)input)[i] = (int8_t)(between(0, 3) ? v : between(-128, 127)); break;
        case PL_UINT8: input[i] = (uint8_t)(between(0, 3) ? v + 3 : between(0, 255)); break;
        case PL_INT16: ((int16_t *)(void *)input)[i] = (int16_t)(v * 1000); break;
        default: ((int32_t *)(void *)input)[i] = between(0, 3) ? v : (int32_t)rnd(); break;
        }
    }
}

static bool one_case(pl_fast_resolver *r)
{
    static const pl_type types[] = {PL_FLOAT32, PL_INT8, PL_UINT8, PL_INT16, PL_INT32};
    arg_case c = {between(0, 1) ? ARG_MAX : ARG_MIN, between(1, 4), {1, 1, 1, 1}, 0,
                  types[between(0, 4)], between(0, 1) ? PL_INT32 : PL_INT64};
    size_t n = 1;
    for (int32_t i = 0; i < c.ndims; i++)
        n *= (size_t)(c.dims[i] = between(1, c.ndims > 2 ? 12 : 60));
    c.axis = between(-c.ndims, c.ndims - 1);
    fill(&c, n);
    fast_pair p = fast_run_pair(r, portable_find(NULL, c.code, NULL, 0, 1), c.code, run_case,
                                &c, output[0], output[1]);
    bool ok = p.agree && p.equal && p.took_fast && p.want == PL_OK;
    if (!ok)
        fprintf(stderr, "%s %s rank %d axis %d: %s (status %d/%d, fast %d)\n",
                c.code == ARG_MAX ? "arg_max" : "arg_min", pl_type_name(c.type), c.ndims,
                c.axis, p.agree && p.equal ? "wrong path" : "differs", (int)p.want, (int)p.got,
                p.took_fast);
    return ok;
}

static void arg_min_max_equal_portable(void)
{
    fast_equals_portable(&portable, "arg max", 600, 600, one_case);
}

int main(void)
{
    RUN(arg_min_max_equal_portable);
    return HARNESS_END();
}
