/* test_fast_by_x.c - an ADD, SUB or MUL of a tensor x and a lookup of x (LOGISTIC, TANH or
** RELU of x: SiLU as EfficientNet writes it), in a real interpreter: int8, the fast resolver
** looks each output byte up by x alone (elementwise.c's by_x, from the note lut8.c leaves);
** float (LOGISTIC, TANH), the elementwise node computes the lookup's function itself (the
** note logistic_tanh.c leaves; float RELU leaves none), a float MUL of LOGISTIC in one pass
** (exp.h's silu); either way the lookup writes nothing when that node is its only reader.
** On random shapes, quantizations, fused activations and operand orders, the outputs are
** the portable build's bit for bit and its arena figures the same; the lookup's output too
** where it is read (a model output, or every tensor preserved, or a second node reading
** it). A lookup of another tensor, a broadcast and a model of two subgraphs keep the
** elementwise arithmetic. The unread lookups write 0xFF bytes instead (poison_unread), so a
** reader of the arena's copy would differ. Every instruction set this CPU runs, on 1 and 3
** threads (every job split). */
#include <math.h>
#include <string.h>

#include "fast/exp.h"
#include "fast_harness.h"
#include "harness.h"
#include "model_builder.h"
#include "picolite/picolite.h"

enum { MAX_COUNT = 6000 };
/* x, the lookup's output, the node's output, another input, a second reader's output */
enum { T_X, T_S, T_Y, T_Z, T_W };
enum { OP_ADD = 0, OP_LOGISTIC = 14, OP_MUL = 18, OP_RELU = 19, OP_TANH = 28, OP_SUB = 41 };

static _Alignas(16) uint8_t arena[1 << 18];
static uint8_t x[4 * MAX_COUNT], z[4 * MAX_COUNT], out[2][4 * MAX_COUNT],
    looked[2][4 * MAX_COUNT];
static int by_x_cases, unread_cases, silu_cases;

typedef struct by_x_case {
    int32_t h, w, c;
    int32_t lookup, op;
    bool s_first;      /* the node reads (s, x), not (x, s) */
    bool s_output;     /* the lookup's output is a model output too */
    bool s_twice;      /* a second node reads it: the node's op of it and the node's output */
    bool preserve;     /* every tensor preserved */
    bool other;        /* the lookup reads another tensor z, not x */
    bool broadcast;    /* x of one channel against s: not flat */
    int32_t subgraphs;
    bool f32;          /* float tensors, no quantization */
    int32_t act;       /* the node's fused activation: none, RELU, RELU_N1_TO_1, RELU6 */
    float sx, sy;
    int32_t zx, zy;
} by_x_case;

static void random_case(by_x_case *c)
{
    static const int32_t lookups[] = {OP_LOGISTIC, OP_TANH, OP_RELU};
    static const int32_t ops[] = {OP_MUL, OP_ADD, OP_SUB};
    c->h = between(1, 12), c->w = between(1, 12), c->c = between(1, 40);
    c->lookup = lookups[between(0, 2)];
    c->op = ops[between(0, 3) == 0 ? between(1, 2) : 0];
    c->s_first = between(0, 1);
    c->s_output = between(0, 3) == 0;
    c->s_twice = between(0, 3) == 0;
    c->preserve = between(0, 3) == 0;
    c->other = between(0, 7) == 0;
    c->broadcast = !c->other && between(0, 7) == 0;
    c->subgraphs = between(0, 7) == 0 ? 2 : 1;
    c->f32 = between(0, 2) == 0;
    c->act = between(0, 1) == 0 ? 0 : between(1, 3);
    c->sx = 0.002f * (float)between(1, 100);
    c->sy = 0.001f * (float)between(1, 100);
    c->zx = between(-30, 30), c->zy = between(-30, 30);
    for (int32_t i = 0; i < 4 * MAX_COUNT; i++)
        x[i] = (uint8_t)rnd(), z[i] = (uint8_t)rnd();
    if (c->f32) { /* mostly ordinary values, some past the lookups' cutoffs, NaN, inf */
        static const float special[] = {NAN, INFINITY, -INFINITY, 100.0f, -100.0f, 0.0f};
        float *fx = (float *)(void *)x, *fz = (float *)(void *)z;
        for (int32_t i = 0; i < MAX_COUNT; i++) {
            fx[i] = between(0, 50) == 0 ? special[between(0, 5)] : unit() * 12.0f;
            fz[i] = unit() * 12.0f;
        }
    }
}

static int32_t x_channels(const by_x_case *c)
{
    return c->broadcast ? 1 : c->c;
}

static void tensor(mb_spec *s, int i, const by_x_case *c, int32_t channels, float scale,
                   int64_t zp)
{
    s->tensors[i] = (mb_tensor){.rank = 4, .shape = {1, c->h, c->w, channels},
                                .type = c->f32 ? 0 : 9, .has_quant = !c->f32, .nscale = 1,
                                .nzp = 1};
    s->tensors[i].scale[0] = scale;
    s->tensors[i].zp[0] = zp;
}

static uint8_t *build(const by_x_case *c, size_t *n)
{
    mb_spec s;
    memset(&s, 0, sizeof s);
    s.ident = "TFL3", s.version = 3, s.nsubgraphs = c->subgraphs, s.sg_name = "main";
    s.nopcodes = 2;
    s.opcodes[0] = (mb_opcode){(int8_t)c->lookup, c->lookup, NULL, 1};
    s.opcodes[1] = (mb_opcode){(int8_t)c->op, c->op, NULL, 1};
    s.ntensors = 5;
    /* the lookup's input: x, or z of x's shape */
    const int32_t lookup_in = c->other ? T_Z : T_X;
    tensor(&s, T_X, c, x_channels(c), c->sx, c->zx);
    tensor(&s, T_Z, c, c->c, c->sx, c->zx);
    if (c->lookup == OP_LOGISTIC)
        tensor(&s, T_S, c, c->c, 1.0f / 256.0f, -128);
    else if (c->lookup == OP_TANH)
        tensor(&s, T_S, c, c->c, 1.0f / 128.0f, 0);
    else
        tensor(&s, T_S, c, c->c, c->sx, c->zx);
    tensor(&s, T_Y, c, c->c, c->sy, c->zy);
    tensor(&s, T_W, c, c->c, c->sy, c->zy);
    if (c->broadcast) /* the lookup of z, which has s's shape; x broadcasts against it */
        s.nin = 2, s.in[0] = T_X, s.in[1] = T_Z;
    else
        s.nin = c->other ? 2 : 1, s.in[0] = T_X, s.in[1] = T_Z;
    s.nout = c->s_output ? 2 : 1, s.out[0] = c->s_twice ? T_W : T_Y, s.out[1] = T_S;
    s.nops = c->s_twice ? 3 : 2;
    s.ops[0] = (mb_op){.opcode = 0, .nin = 1,
                       .in = {c->broadcast ? T_Z : lookup_in}, .nout = 1, .out = {T_S}};
    s.ops[1] = (mb_op){.opcode = 1, .nin = 2, .in = {c->s_first ? T_S : T_X,
                                                      c->s_first ? T_X : T_S},
                       .nout = 1, .out = {T_Y}, .has_opt = 1,
                       /* AddOptions, MulOptions, SubOptions: the activation first */
                       .opt_type = c->op == OP_ADD ? 11 : c->op == OP_MUL ? 21 : 28,
                       .opt_field0 = c->act};
    s.ops[2] = (mb_op){.opcode = 1, .nin = 2, .in = {T_S, T_Y}, .nout = 1, .out = {T_W}};
    s.nbuffers = 1;
    return mb_build(&s, n, NULL);
}

/* Runs the model once with resolver r; false (with a message) when it fails. */
static bool run(const by_x_case *c, const pl_resolver *r, uint8_t *y, uint8_t *sv,
                pl_recording *rec)
{
    size_t n;
    uint8_t *model = build(c, &n);
    pl_interp_options o = pl_interp_defaults();
    o.resolver = r;
    o.preserve_all_tensors = c->preserve;
    pl_error err;
    pl_error_clear(&err);
    pl_interp *it = NULL;
    pl_tensor_info in, got, s;
    bool ok = pl_interp_create(model, n, &o, arena, sizeof arena, &it, &err) == PL_OK &&
              pl_interp_allocate(it) == PL_OK;
    for (uint32_t k = 0; ok && k < pl_interp_input_count(it); k++) {
        ok = pl_interp_tensor(it, (uint32_t)pl_interp_input_index(it, k), &in) == PL_OK;
        if (ok)
            memcpy(in.data, pl_interp_input_index(it, k) == T_X ? x : z, in.bytes);
    }
    ok = ok && pl_interp_invoke(it) == PL_OK &&
         pl_interp_tensor(it, c->s_twice ? T_W : T_Y, &got) == PL_OK &&
         pl_interp_tensor(it, T_S, &s) == PL_OK &&
         pl_interp_recording(it, rec) == PL_OK;
    if (ok) {
        memcpy(y, got.data, got.bytes);
        memcpy(sv, s.data, s.bytes);
    } else {
        fprintf(stderr, "by-x case failed: %s\n", err.msg);
    }
    if (it != NULL)
        pl_interp_destroy(it);
    free(model);
    return ok;
}

static bool case_matches(pl_fast_resolver *fr, const by_x_case *c)
{
    pl_recording want, got;
    fr->poison_unread = true;
    const uint64_t by_x = fr->tables_by_x, unread = fr->unread_tables, silu = fr->silu_plans;
    if (!run(c, pl_builtin_resolver(), out[0], looked[0], &want) ||
        !run(c, pl_fast_resolver_get(fr), out[1], looked[1], &got))
        return false;
    pl_fast_resolver_release(fr);
    const bool took = fr->tables_by_x - by_x > 0, skipped = fr->unread_tables - unread > 0;
    const bool one_pass = fr->silu_plans - silu > 0;
    const bool expect = c->subgraphs == 1 && !c->other && !c->broadcast &&
                        !(c->f32 && c->lookup == OP_RELU);
    const bool expect_skip = expect && !c->s_output && !c->preserve && !c->s_twice;
    const bool expect_one_pass = expect && c->f32 && c->op == OP_MUL &&
                                 c->lookup == OP_LOGISTIC && pl_exp_for(fr->isa) != NULL;
    const size_t count = (size_t)(c->h * c->w * c->c) * (c->f32 ? 4 : 1);
    const bool s_read = c->s_output || c->preserve;
    bool same = memcmp(out[0], out[1], count) == 0 &&
                (!s_read || memcmp(looked[0], looked[1], count) == 0) &&
                want.total == got.total && want.head == got.head && want.tail == got.tail &&
                want.peak == got.peak;
    by_x_cases += took;
    unread_cases += skipped;
    silu_cases += one_pass;
    if (!same || took != expect || skipped != expect_skip || one_pass != expect_one_pass)
        fprintf(stderr, "by x %s: %dx%dx%d, float %d, lookup %d op %d act %d, s first %d, "
                "s output %d, s twice %d, preserve %d, other %d, broadcast %d, subgraphs %d: "
                "by x %d, unread %d, silu %d\n", same ? "path" : "differs", c->h, c->w, c->c, c->f32,
                c->lookup, c->op, c->act, c->s_first, c->s_output, c->s_twice, c->preserve,
                c->other, c->broadcast, c->subgraphs, took, skipped, one_pass);
    return same && took == expect && skipped == expect_skip && one_pass == expect_one_pass;
}

static bool one_case(pl_fast_resolver *fr)
{
    by_x_case c;
    random_case(&c);
    return case_matches(fr, &c);
}

/* On `threads` threads (every job split), 300 random cases on every instruction set. */
static void by_x_runs(int32_t threads)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        int failures;
        uint64_t jobs;
        by_x_cases = unread_cases = silu_cases = 0;
        fast_run_cases(pl_builtin_resolver(), (pl_isa)isa, threads, 300, one_case, &failures,
                       &jobs);
        printf("  %s, %d threads: %d cases by x (%d SiLU in one pass), %d lookups unwritten, "
               "%llu split jobs\n", pl_fast_isa_name((pl_isa)isa), threads, by_x_cases,
               silu_cases, unread_cases, (unsigned long long)jobs);
        CHECK_EQ(failures, 0);
        CHECK(by_x_cases > 120);
        CHECK(unread_cases > 50);
        CHECK(silu_cases > 5 || pl_exp_for((pl_isa)isa) == NULL);
        CHECK(threads == 1 || jobs > 0);
    }
}

static void lookup_then_elementwise_goes_by_x(void)
{
    by_x_runs(1);
}

static void by_x_splits_over_threads(void)
{
    by_x_runs(3);
}

int main(void)
{
    RUN(lookup_then_elementwise_goes_by_x);
    RUN(by_x_splits_over_threads);
    return HARNESS_END();
}
