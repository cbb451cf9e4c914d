/* test_fast_lstm.c - UNIDIRECTIONAL_SEQUENCE_LSTM's host fast path against the portable
** kernel on random sizes, batch- and time-major orders, CIFG, peepholes, projection (with and
** without bias), clips, activations, zero points and scales: int8 and 16x8 byte for byte,
** float32 bit for bit (NaN, infinities and -0 among the inputs). Every instruction set this
** CPU runs is tested; cases whose instruction set has no 16x8 product, or whose weights are
** not constant, must keep the portable kernel. Half the int8 cases run in TFLM's arithmetic
** (TFLM's own int8 LSTM), the others in LiteRT's. CI runs this under ASan and UBSan. */
#include <math.h>
#include <string.h>

#include "fast/gemm.h"
#include "fast/gemm16.h"
#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/recurrent/lstm.h"

enum {
    LSTM = 44,
    CASES = 450,
    MAX_DIM = 40,
    BIG_CELL = 200, /* a wide case: the input sums then take several chunks of steps */
    MAX_STEPS = 30,
    MAX_BATCH = 3,
    MAX_W = BIG_CELL * BIG_CELL,
    MAX_ROWS = MAX_STEPS * MAX_BATCH * BIG_CELL
};

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == LSTM ? pl_unidirectional_sequence_lstm_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

/* Weights and biases are stored as float, int8, int16, int32 or int64 by type. A bias starts
** 4 bytes past an 8-byte boundary, as a model's constant may (flatbuffers align to 4). */
static _Alignas(64) uint8_t wx[4][MAX_W * 4], wh[4][MAX_W * 4], peep[3][BIG_CELL * 4],
    bias_bytes[4][BIG_CELL * 8 + 8], proj_w[MAX_W * 4], proj_b[BIG_CELL * 8], in[MAX_ROWS * 4];
#define BIAS(g) (bias_bytes[g] + 4)
static _Alignas(64) uint8_t state[2][MAX_BATCH * BIG_CELL * 4],
    cell[2][MAX_BATCH * BIG_CELL * 4], out[2][MAX_ROWS * 4];

typedef struct lstm_case {
    pl_type type;
    int32_t batches, steps, n_input, n_cell, n_output, activation;
    bool time_major, cifg, peephole, projection, proj_bias, constant;
    float cell_clip, proj_clip;
    bool tflm8; /* int8 in TFLM's arithmetic (its own integer LSTM), else LiteRT's */
} lstm_case;

static void random_case(lstm_case *c)
{
    int32_t kind = between(0, 2);
    c->type = kind == 0 ? PL_FLOAT32 : kind == 1 ? PL_INT8 : PL_INT16;
    c->batches = between(1, MAX_BATCH);
    c->steps = between(1, MAX_STEPS);
    c->n_input = between(1, MAX_DIM);
    c->n_cell = between(0, 15) == 0 ? BIG_CELL : between(1, MAX_DIM);
    c->time_major = between(0, 1) == 1;
    c->tflm8 = c->type == PL_INT8 && between(0, 1) == 1;
    bool standard = c->type == PL_INT16 || c->tflm8; /* TFLM's LSTMs have no variants */
    c->cifg = !standard && between(0, 2) == 0;
    c->peephole = !standard && between(0, 2) == 0;
    c->projection = !standard && between(0, 2) == 0;
    c->proj_bias = c->projection && between(0, 1) == 1;
    c->n_output = c->projection ? between(1, MAX_DIM) : c->n_cell;
    c->activation = standard ? PL_ACT_TANH : between(0, PL_ACT_TANH);
    c->cell_clip = between(0, 1) == 1 ? (float)between(1, 40) / 10.0f : 0.0f;
    c->proj_clip = c->projection && between(0, 1) == 1 ? (float)between(1, 20) / 10.0f : 0.0f;
    c->constant = between(0, 9) != 0;
}

/* A float value, now and then a special one. */
static float value(void)
{
    static const float special[4] = {NAN, INFINITY, -INFINITY, -0.0f};
    return between(0, 199) == 0 ? special[between(0, 3)] : unit();
}

/* n random values of type; range bounds the integers. */
static void fill(pl_type type, void *data, size_t n, int32_t range)
{
    for (size_t i = 0; i < n; i++) {
        switch (type) {
        case PL_FLOAT32: ((float *)data)[i] = value(); break;
        case PL_INT8: ((int8_t *)data)[i] = (int8_t)between(-128, 127); break;
        case PL_INT16: ((int16_t *)data)[i] = (int16_t)between(-range, range); break;
        case PL_INT32: ((int32_t *)data)[i] = between(-range, range); break;
        default: { /* at any address: see BIAS */
            int64_t v = between(-range, range);
            memcpy((uint8_t *)data + i * sizeof v, &v, sizeof v);
            break;
        }
        }
    }
}

/* A tensor of 1 or 2 dims with one scale (scale 0: none). */
static int32_t tensor(pl_type type, int32_t d0, int32_t d1, void *data, float scale, int64_t zp,
                      bool constant)
{
    int32_t dims[2] = {d0, d1};
    int32_t i = kh_tensor(type, d1 > 0 ? 2 : 1, dims, data, (size_t)d0 * (size_t)(d1 > 0 ? d1 : 1) *
                          pl_type_size(type), &scale, &zp, scale > 0.0f ? 1u : 0u, 0);
    kh.tensors[i].is_constant = constant;
    return i;
}

static float scale_in(int32_t lo, int32_t hi)
{
    return (float)between(lo, hi) / 1000.0f;
}

/* The node's tensors for slot's state and output buffers; returns the output's index. */
static int32_t make_tensors(const lstm_case *c, int slot, int32_t *ins, int32_t *inter)
{
    bool f = c->type == PL_FLOAT32, s16 = c->type == PL_INT16;
    pl_type w = f ? PL_FLOAT32 : PL_INT8, b = f ? PL_FLOAT32 : s16 ? PL_INT64 : PL_INT32;
    pl_type act = c->type, cs = f ? PL_FLOAT32 : PL_INT16;
    float in_scale = f ? 0.0f : scale_in(1, 50), state_scale = f ? 0.0f : scale_in(1, 50);
    int64_t in_zp = f ? 0 : s16 ? between(-200, 200) : between(-128, 127);
    int64_t state_zp = f ? 0 : s16 ? between(-200, 200) : between(-128, 127);
    float cell_scale = f ? 0.0f : ldexpf(1.0f, between(-15, -9));
    for (int i = 0; i < 24; i++)
        ins[i] = -1;
    int32_t rows = c->batches * c->steps;
    int32_t d0 = c->time_major ? c->steps : c->batches, d1 = c->time_major ? c->batches : c->steps;
    int32_t dims[3] = {d0, d1, c->n_input};
    ins[0] = kh_tensor(act, 3, dims, in, (size_t)rows * (size_t)c->n_input * pl_type_size(act),
                       &in_scale, &in_zp, f ? 0u : 1u, 0);
    for (int g = c->cifg ? 1 : 0; g < 4; g++) {
        ins[1 + g] = tensor(w, c->n_cell, c->n_input, wx[g], f ? 0.0f : scale_in(1, 20), 0,
                            c->constant);
        ins[5 + g] = tensor(w, c->n_cell, c->n_output, wh[g], f ? 0.0f : scale_in(1, 20), 0,
                            c->constant);
        ins[12 + g] = tensor(b, c->n_cell, 0, BIAS(g), f ? 0.0f : 1e-5f, 0, true);
    }
    for (int k = c->cifg ? 1 : 0; c->peephole && k < 3; k++)
        ins[9 + k] = tensor(f ? PL_FLOAT32 : PL_INT16, c->n_cell, 0, peep[k],
                            f ? 0.0f : scale_in(1, 20) / 100.0f, 0, true);
    if (c->projection) {
        ins[16] = tensor(w, c->n_output, c->n_cell, proj_w, f ? 0.0f : scale_in(1, 20), 0,
                         c->constant);
        if (c->proj_bias)
            ins[17] = tensor(b, c->n_output, 0, proj_b, f ? 0.0f : 1e-5f, 0, true);
    }
    ins[18] = tensor(act, c->batches, c->n_output, state[slot], state_scale, state_zp, false);
    ins[19] = tensor(cs, c->batches, c->n_cell, cell[slot], cell_scale, 0, false);
    kh.tensors[ins[18]].is_variable = kh.tensors[ins[19]].is_variable = true;
    int32_t odims[3] = {d0, d1, c->n_output};
    int32_t o = kh_tensor(act, 3, odims, out[slot],
                          (size_t)rows * (size_t)c->n_output * pl_type_size(act), &state_scale,
                          &state_zp, f ? 0u : 1u, 0);
    for (int k = 0; k < 4; k++)
        inter[k] = tensor(PL_INT16, 1, 0, NULL, 0.0f, 0, false);
    inter[4] = tensor(PL_INT8, 1, 0, NULL, f ? 0.0f : scale_in(5, 50), between(-20, 20),
                      false);
    return o;
}

/* init, prepare, invoke of reg with the intermediates the integer LSTM reads. */
static pl_status run(const pl_registration *reg, const int32_t *ins, int32_t o,
                     const int32_t *inter, const lstm_case *c)
{
    static uint8_t inter_buf[5 * 4];
    kt_opts opts;
    int32_t fields[4] = {c->activation, 0, 0, c->time_major};
    memcpy(&fields[1], &c->cell_clip, 4); /* fields 1 and 2 are floats */
    memcpy(&fields[2], &c->proj_clip, 4);
    const pl_table *t = kt_make_opts(&opts, fields, 4);
    pl_node node;
    memset(&node, 0, sizeof node);
    node.builtin_code = LSTM;
    node.registration = reg;
    node.inputs = kh_vec(0, ins, 24);
    node.outputs = kh_vec(1, &o, 1);
    for (uint32_t k = 0; k < 5; k++)
        for (uint32_t b = 0; b < 4; b++)
            inter_buf[4 * k + b] = (uint8_t)((uint32_t)inter[k] >> (8 * b));
    node.intermediates.p = inter_buf;
    node.intermediates.n = 5;
    node.options = *t;
    kh.phase = PL_PHASE_INIT;
    PL_TRY(pl_registration_init(reg, &kh_ctx, &node, &node.user_data));
    kh.phase = PL_PHASE_PREPARE;
    PL_TRY(reg->prepare(&kh_ctx, &node));
    kh.phase = PL_PHASE_INVOKE;
    return reg->invoke(&kh_ctx, &node);
}

/* Equal bytes; for float, equal bits or both NaN (a NaN's payload depends on the operand
** order of the instruction that made it, not on the arithmetic). */
static bool same_values(pl_type type, const void *a, const void *b, size_t n)
{
    if (type != PL_FLOAT32)
        return memcmp(a, b, n * pl_type_size(type)) == 0;
    const float *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&x[i], &y[i], sizeof(float)) != 0 && !(isnan(x[i]) && isnan(y[i])))
            return false;
    return true;
}

static bool case_matches(pl_fast_resolver *r, const lstm_case *c, bool *fast)
{
    bool f = c->type == PL_FLOAT32, s16 = c->type == PL_INT16;
    pl_type w = f ? PL_FLOAT32 : PL_INT8, b = f ? PL_FLOAT32 : s16 ? PL_INT64 : PL_INT32;
    size_t gate_x = (size_t)c->n_cell * (size_t)c->n_input;
    size_t gate_h = (size_t)c->n_cell * (size_t)c->n_output;
    for (int g = 0; g < 4; g++) {
        fill(w, wx[g], gate_x, 0);
        fill(w, wh[g], gate_h, 0);
        fill(b, BIAS(g), (size_t)c->n_cell, 1 << between(4, 20));
    }
    for (int k = 0; k < 3; k++)
        fill(f ? PL_FLOAT32 : PL_INT16, peep[k], (size_t)c->n_cell, 1 << 14);
    fill(w, proj_w, (size_t)c->n_output * (size_t)c->n_cell, 0);
    fill(b, proj_b, (size_t)c->n_output, 1 << 16);
    size_t rows = (size_t)c->batches * (size_t)c->steps;
    fill(c->type, in, rows * (size_t)c->n_input, 30000);
    size_t esize = pl_type_size(c->type), csize = f ? 4 : 2;
    fill(c->type, state[0], (size_t)c->batches * (size_t)c->n_output, 30000);
    fill(f ? PL_FLOAT32 : PL_INT16, cell[0], (size_t)c->batches * (size_t)c->n_cell, 20000);
    memcpy(state[1], state[0], (size_t)c->batches * (size_t)c->n_output * esize);
    memcpy(cell[1], cell[0], (size_t)c->batches * (size_t)c->n_cell * csize);
    uint64_t seed = rng_state; /* both slots get the same scales and zero points */
    kh_ctx.arith = c->type == PL_INT8 && !c->tflm8 ? PL_ARITH_LITERT : PL_ARITH_TFLM;
    for (int slot = 0; slot < 2; slot++) {
        rng_state = seed;
        kh_setup();
        int32_t ins[24], inter[5];
        int32_t o = make_tensors(c, slot, ins, inter);
        const pl_registration *reg = slot == 0 ? pl_unidirectional_sequence_lstm_registration()
                                               : r->resolver.find(r, LSTM, NULL, 0, 1);
        if (run(reg, ins, o, inter, c) != PL_OK) {
            fprintf(stderr, "lstm refused: %s\n", kh.message);
            return false;
        }
    }
    *fast = r->host_bytes > 0;
    pl_fast_resolver_release(r);
    kh_ctx.arith = PL_ARITH_TFLM;
    pl_type cs = f ? PL_FLOAT32 : PL_INT16;
    size_t n_state = (size_t)c->batches * (size_t)c->n_output;
    bool same = same_values(c->type, out[0], out[1], rows * (size_t)c->n_output) &&
                same_values(c->type, state[0], state[1], n_state) &&
                same_values(cs, cell[0], cell[1], (size_t)c->batches * (size_t)c->n_cell);
    if (!same)
        fprintf(stderr, "lstm differs: %s b%d t%d i%d c%d o%d tm%d cifg%d peep%d proj%d/%d "
                "clips %g %g act %d\n", pl_type_name(c->type), c->batches, c->steps,
                c->n_input, c->n_cell, c->n_output, c->time_major, c->cifg, c->peephole,
                c->projection, c->proj_bias, (double)c->cell_clip, (double)c->proj_clip,
                c->activation);
    return same;
}

static void lstm_fast_paths_equal_portable(void)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        bool s16 = pl_gemm_s16_for((pl_isa)isa) != NULL;
        pl_fast_resolver r;
        CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
        r.poison_scratch = true;
        int failures = 0, expected = 0, misrouted = 0;
        fast_cases = 0;
        for (int n = 0; n < CASES; n++) {
            lstm_case c;
            random_case(&c);
            bool fast = false;
            failures += !case_matches(&r, &c, &fast);
            bool want = c.constant && (c.type != PL_INT16 || s16);
            expected += want;
            fast_cases += fast;
            misrouted += fast != want;
        }
        pl_fast_resolver_release(&r);
        printf("  %s: lstm %d fast cases\n", pl_fast_isa_name((pl_isa)isa), fast_cases);
        CHECK_EQ(failures, 0);
        CHECK_EQ(misrouted, 0);
        CHECK(expected > CASES / 2);
    }
}

/* A fused target's float LSTM (ctx->fused_madd, as tflm's): its products through
** VFMADD/FMLA equal the portable kernel's fmaf where the instruction set has FMA; without
** it (SSE4.1) the portable kernel runs them. */
static void lstm_fused_fast_paths_equal_portable(void)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        const bool can = pl_gemm_f32_run(pl_gemm_f32_for((pl_isa)isa), true) != NULL;
        pl_fast_resolver r;
        CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
        r.poison_scratch = true;
        int failures = 0, expected = 0, misrouted = 0;
        fast_cases = 0;
        kh_ctx.fused_madd = true;
        for (int n = 0; n < CASES / 2; n++) {
            lstm_case c;
            do
                random_case(&c);
            while (c.type != PL_FLOAT32);
            bool fast = false;
            failures += !case_matches(&r, &c, &fast);
            expected += c.constant && can;
            fast_cases += fast;
            misrouted += fast != (c.constant && can);
        }
        kh_ctx.fused_madd = false;
        pl_fast_resolver_release(&r);
        printf("  %s, fused: lstm %d float fast cases\n", pl_fast_isa_name((pl_isa)isa),
               fast_cases);
        CHECK_EQ(failures, 0);
        CHECK_EQ(misrouted, 0);
        CHECK(!can || expected > CASES / 4);
    }
}

int main(void)
{
    RUN(lstm_fast_paths_equal_portable);
    RUN(lstm_fused_fast_paths_equal_portable);
    return HARNESS_END();
}
