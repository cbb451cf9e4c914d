/* test_fast_svdf.c - SVDF's integer fast path (the portable kernels' body built for each
** instruction set) against the portable kernel on random cases: batches, input sizes,
** filters (units x rank), memories, int16 states (LiteRT's and TFLM's arithmetic) and int8
** states with a zero point (TFLM's, and CMSIS-NN's with and without Helium), a random state
** already held, with and without a bias. The outputs and the updated states must be byte for
** byte the same, and every case must take the fast path; a float SVDF keeps the portable
** kernel. */
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/recurrent/svdf.h"

enum { SVDF = 27, MAX_IN = 100, MAX_UNITS = 40, MAX_RANK = 3, MAX_MEMORY = 20, MAX_BATCH = 3,
       MAX_FILTERS = MAX_UNITS * MAX_RANK, MAX_STATE = MAX_BATCH * MAX_FILTERS * MAX_MEMORY };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == SVDF ? pl_svdf_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

typedef struct svdf_case {
    int32_t batches, input, units, rank, memory;
    bool int16_state, bias;
    pl_arith arith;
    float s_in, s_wf, s_wt, s_state, s_out;
    int32_t zp_in, zp_state, zp_out;
} svdf_case;

static int8_t in8[MAX_BATCH * MAX_IN], wf[MAX_FILTERS * MAX_IN], wt8[MAX_FILTERS * MAX_MEMORY];
static int16_t wt16[MAX_FILTERS * MAX_MEMORY];
static int32_t bias[MAX_UNITS];
static _Alignas(16) uint8_t state0[MAX_STATE * 2], state[2][MAX_STATE * 2];
static int8_t out[2][MAX_BATCH * MAX_UNITS];

static void random_case(svdf_case *c)
{
    static const pl_arith int8_ariths[] = {PL_ARITH_TFLM, PL_ARITH_CMSIS_NN_DSP,
                                           PL_ARITH_CMSIS_NN_MVE, PL_ARITH_TFLM_WIDE};
    c->batches = between(1, MAX_BATCH);
    c->input = between(0, 3) == 0 ? between(1, 8) : between(1, MAX_IN);
    c->units = between(1, MAX_UNITS);
    c->rank = between(1, MAX_RANK);
    c->memory = between(1, MAX_MEMORY);
    c->int16_state = between(0, 1);
    c->bias = between(0, 3) != 0;
    c->arith = c->int16_state ? (between(0, 1) ? PL_ARITH_TFLM : PL_ARITH_LITERT)
                              : int8_ariths[between(0, 3)];
    c->s_in = 0.01f + 0.1f * unit();
    c->s_wf = 0.001f + 0.02f * unit();
    c->s_wt = 0.001f + 0.02f * unit();
    c->s_state = 0.005f + 0.05f * unit();
    c->s_out = 0.01f + 0.2f * unit();
    c->zp_in = between(-128, 127);
    c->zp_state = c->int16_state ? 0 : between(-128, 127);
    c->zp_out = between(-128, 127);
    size_t filters = (size_t)(c->units * c->rank);
    for (size_t i = 0; i < (size_t)(c->batches * c->input); i++)
        in8[i] = (int8_t)between(-128, 127);
    for (size_t i = 0; i < filters * (size_t)c->input; i++)
        wf[i] = (int8_t)between(-127, 127);
    for (size_t i = 0; i < filters * (size_t)c->memory; i++) {
        wt8[i] = (int8_t)between(-127, 127);
        wt16[i] = (int16_t)between(-32767, 32767);
    }
    for (int32_t u = 0; u < c->units; u++)
        bias[u] = between(-100000, 100000);
    for (size_t i = 0; i < sizeof state0; i++)
        state0[i] = (uint8_t)between(0, 255);
}

static pl_status run_case(const svdf_case *c, const pl_registration *reg, int slot)
{
    kh_setup();
    kh_ctx.arith = c->arith;
    const int32_t filters = c->units * c->rank;
    const pl_type st = c->int16_state ? PL_INT16 : PL_INT8;
    const size_t es = c->int16_state ? 2 : 1;
    const size_t state_bytes = (size_t)(c->batches * filters * c->memory) * es;
    memcpy(state[slot], state0, state_bytes);
    const int32_t d_in[2] = {c->batches, c->input}, d_wf[2] = {filters, c->input};
    const int32_t d_wt[2] = {filters, c->memory}, d_bias[1] = {c->units};
    const int32_t d_state[2] = {c->batches, filters * c->memory};
    const int32_t d_out[2] = {c->batches, c->units};
    const float s_bias = c->s_in * c->s_wf;
    const int64_t z0 = 0, zi = c->zp_in, zs = c->zp_state, zo = c->zp_out;
    int32_t t[6];
    t[0] = kh_tensor(PL_INT8, 2, d_in, in8, (size_t)(c->batches * c->input), &c->s_in, &zi, 1,
                     0);
    t[1] = kh_tensor(PL_INT8, 2, d_wf, wf, (size_t)(filters * c->input), &c->s_wf, &z0, 1, 0);
    t[2] = kh_tensor(st, 2, d_wt, c->int16_state ? (void *)wt16 : (void *)wt8,
                     (size_t)(filters * c->memory) * es, &c->s_wt, &z0, 1, 0);
    t[3] = c->bias ? kh_tensor(PL_INT32, 1, d_bias, bias, sizeof(int32_t) * (size_t)c->units,
                               &s_bias, &z0, 1, 0)
                   : -1;
    t[4] = kh_tensor(st, 2, d_state, state[slot], state_bytes, &c->s_state, &zs, 1, 0);
    kh.tensors[t[4]].is_variable = true;
    t[5] = kh_tensor(PL_INT8, 2, d_out, out[slot], (size_t)(c->batches * c->units), &c->s_out,
                     &zo, 1, 0);
    kt_opts o;
    const int32_t fields[2] = {c->rank, PL_ACT_RELU}; /* an integer SVDF requires the ReLU */
    pl_status s = kh_run(reg, t, 5, t + 5, 1, kt_make_opts(&o, fields, 2));
    kh_ctx.arith = PL_ARITH_TFLM;
    return s;
}

static bool one_case(pl_fast_resolver *r)
{
    svdf_case c;
    random_case(&c);
    pl_status want = run_case(&c, pl_svdf_registration(), 0);
    pl_status got = run_case(&c, r->resolver.find(r, SVDF, NULL, 0, 1), 1);
    bool took_fast = r->host_bytes > r->capacity * sizeof(pl_fast_slot);
    fast_cases += took_fast;
    pl_fast_resolver_release(r);
    size_t es = c.int16_state ? 2 : 1;
    bool same = want == PL_OK && got == PL_OK &&
                memcmp(out[0], out[1], (size_t)(c.batches * c.units)) == 0 &&
                memcmp(state[0], state[1],
                       (size_t)(c.batches * c.units * c.rank * c.memory) * es) == 0;
    if (!same || !took_fast)
        fprintf(stderr, "svdf %s: batches %d input %d units %d rank %d memory %d state %s "
                "arith %d status %d/%d fast %d\n", same ? "path" : "differs", c.batches,
                c.input, c.units, c.rank, c.memory, c.int16_state ? "int16" : "int8",
                (int)c.arith, (int)want, (int)got, took_fast);
    return same && took_fast;
}

static void svdf_fast_path_equals_portable(void)
{
    fast_equals_portable(&portable, "svdf", 400, 400, one_case);
}

/* A float SVDF keeps the portable kernel (its sums are ordered): no block. */
static void svdf_float_keeps_the_portable_kernel(void)
{
    pl_fast_resolver r;
    CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, pl_fast_best_isa()), PL_OK);
    r.poison_scratch = true;
    float x[2] = {1, 2}, w[4] = {1, 2, 3, 4}, tw[4] = {1, 1, 1, 1}, s[4] = {0}, y[2] = {0};
    kh_setup();
    const int32_t d2[2] = {1, 2}, d22[2] = {2, 2}, d4[2] = {1, 4};
    int32_t t[6] = {kh_tensor(PL_FLOAT32, 2, d2, x, sizeof x, NULL, NULL, 0, 0),
                    kh_tensor(PL_FLOAT32, 2, d22, w, sizeof w, NULL, NULL, 0, 0),
                    kh_tensor(PL_FLOAT32, 2, d22, tw, sizeof tw, NULL, NULL, 0, 0), -1,
                    kh_tensor(PL_FLOAT32, 2, d4, s, sizeof s, NULL, NULL, 0, 0),
                    kh_tensor(PL_FLOAT32, 2, d2, y, sizeof y, NULL, NULL, 0, 0)};
    kh.tensors[t[4]].is_variable = true;
    kt_opts o;
    const int32_t fields[2] = {1, PL_ACT_NONE};
    CHECK_EQ(kh_run(r.resolver.find(&r, SVDF, NULL, 0, 1), t, 5, t + 5, 1,
                    kt_make_opts(&o, fields, 2)),
             PL_OK);
    CHECK(r.host_bytes <= r.capacity * sizeof(pl_fast_slot));
    pl_fast_resolver_release(&r);
}

int main(void)
{
    RUN(svdf_fast_path_equals_portable);
    RUN(svdf_float_keeps_the_portable_kernel);
    return HARNESS_END();
}
