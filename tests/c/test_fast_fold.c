/* test_fast_fold.c - a DEQUANTIZE of a constant folded at prepare (csrc/fast/fold.c), in a
** real interpreter: FULLY_CONNECTED with float16 or int8 (per-tensor or per-channel) weights
** and a float16 bias, each through a DEQUANTIZE, on random shapes and values. The fast
** resolver's outputs are the portable build's bit for bit, its arena figures the same, the
** DEQUANTIZE's own output tensor too (its invoke copies the folded values into the arena,
** in spans split over the threads: weights up to 96 KB, 1 and 3 threads), and its host
** memory holds the folded values and the packed weights (the test fails when the fold or
** the fast FULLY_CONNECTED is not taken); a model of two subgraphs keeps the portable
** DEQUANTIZE. Without preserve_all_tensors, a DEQUANTIZE whose every reader claimed the
** folded values writes nothing: the test makes it write 0xFF bytes instead (poison_unread),
** so a reader of the arena copy would give NaNs, and counts the unwritten copies; an ADD of
** the bias after the FULLY_CONNECTED (a reader that does not claim) keeps the bias copied.
** Every instruction set this CPU runs is tested. */
#include <math.h>
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "model_builder.h"
#include "picolite/picolite.h"

enum { MAX_B = 4, MAX_D = 256, MAX_U = 96 };
enum { T_X, T_WQ, T_W, T_BQ, T_B, T_Y, T_Z };

static _Alignas(16) uint8_t arena[1 << 20];
static float dequantized[2][MAX_U * MAX_D];
static uint8_t weights[MAX_U * MAX_D * 2], bias[MAX_U * 2];
static float x[MAX_B * MAX_D], out[2][MAX_B * MAX_U];
static int unread_cases; /* cases whose DEQUANTIZE wrote nothing */

typedef struct fold_case {
    int32_t b, d, u, act, subgraphs;
    bool int8, per_channel, preserve, bias_added;
    float scale[8];
} fold_case;

/* A random finite IEEE half of either sign (subnormals included). */
static uint16_t random_half(void)
{
    uint16_t h = (uint16_t)rnd();
    return (h & 0x7c00u) == 0x7c00u ? (uint16_t)(h & 0x83ffu) : h; /* no inf or NaN */
}

static void random_case(fold_case *c)
{
    c->b = between(1, MAX_B), c->d = between(1, MAX_D), c->u = between(1, MAX_U);
    c->act = between(0, 1);
    c->int8 = between(0, 2) == 0;
    c->per_channel = c->int8 && c->u <= 8 && between(0, 1);
    c->subgraphs = between(0, 7) == 0 ? 2 : 1;
    c->preserve = between(0, 1);
    c->bias_added = between(0, 2) == 0;
    for (int k = 0; k < 8; k++)
        c->scale[k] = 0.001f * (float)between(1, 40);
    for (int32_t i = 0; i < c->u * c->d; i++) {
        if (c->int8)
            weights[i] = (uint8_t)between(-127, 127);
        else {
            uint16_t h = random_half();
            memcpy(weights + 2 * i, &h, 2);
        }
    }
    for (int32_t i = 0; i < c->u; i++) {
        uint16_t h = random_half() & 0xbfffu; /* |bias| < 2 */
        memcpy(bias + 2 * i, &h, 2);
    }
    for (int32_t i = 0; i < c->b * c->d; i++)
        x[i] = unit() * 4.0f;
}

static void tensor(mb_spec *s, int i, int8_t type, int rank, int32_t d0, int32_t d1,
                   uint32_t buffer)
{
    s->tensors[i] = (mb_tensor){.rank = rank, .shape = {d0, d1}, .type = type,
                                .buffer = buffer};
}

static uint8_t *build(const fold_case *c, size_t *n)
{
    mb_spec s;
    memset(&s, 0, sizeof s);
    s.ident = "TFL3", s.version = 3, s.nsubgraphs = c->subgraphs, s.sg_name = "main";
    s.nopcodes = 3;
    s.opcodes[0] = (mb_opcode){6, 6, NULL, 1}; /* DEQUANTIZE */
    s.opcodes[1] = (mb_opcode){9, 9, NULL, 1}; /* FULLY_CONNECTED */
    s.opcodes[2] = (mb_opcode){0, 0, NULL, 1}; /* ADD */
    s.ntensors = c->bias_added ? 7 : 6;
    tensor(&s, T_X, 0, 2, c->b, c->d, 0);
    tensor(&s, T_WQ, c->int8 ? 9 : 1, 2, c->u, c->d, 1);
    tensor(&s, T_W, 0, 2, c->u, c->d, 0);
    tensor(&s, T_BQ, 1, 1, c->u, 0, 2);
    tensor(&s, T_B, 0, 1, c->u, 0, 0);
    tensor(&s, T_Y, 0, 2, c->b, c->u, 0);
    tensor(&s, T_Z, 0, 2, c->b, c->u, 0);
    if (c->int8) {
        mb_tensor *w = &s.tensors[T_WQ];
        w->has_quant = 1;
        w->nscale = w->nzp = c->per_channel ? c->u : 1;
        for (int k = 0; k < w->nscale; k++)
            w->scale[k] = c->scale[k], w->zp[k] = 0;
    }
    s.nin = 1, s.in[0] = T_X, s.nout = 1, s.out[0] = c->bias_added ? T_Z : T_Y;
    s.nops = c->bias_added ? 4 : 3;
    s.ops[0] = (mb_op){.opcode = 0, .nin = 1, .in = {T_WQ}, .nout = 1, .out = {T_W}};
    s.ops[1] = (mb_op){.opcode = 0, .nin = 1, .in = {T_BQ}, .nout = 1, .out = {T_B}};
    s.ops[2] = (mb_op){.opcode = 1, .nin = 3, .in = {T_X, T_W, T_B}, .nout = 1, .out = {T_Y},
                       .has_opt = 1, .opt_type = 8, .opt_field0 = c->act};
    s.ops[3] = (mb_op){.opcode = 2, .nin = 2, .in = {T_Y, T_B}, .nout = 1, .out = {T_Z}};
    s.nbuffers = 3;
    s.buffers[1] = (mb_buffer){(uint32_t)(c->u * c->d * (c->int8 ? 1 : 2)), weights, 0, 0};
    s.buffers[2] = (mb_buffer){(uint32_t)(c->u * 2), bias, 0, 0};
    return mb_build(&s, n, NULL);
}

/* Runs the model once with resolver r; false (with a message) when it fails. */
static bool run(const fold_case *c, const pl_resolver *r, float *y, float *w, pl_recording *rec)
{
    size_t n;
    uint8_t *model = build(c, &n);
    pl_interp_options o = pl_interp_defaults();
    o.resolver = r;
    o.preserve_all_tensors = c->preserve; /* the DEQUANTIZE's output stays readable */
    pl_error err;
    pl_error_clear(&err);
    pl_interp *it = NULL;
    pl_tensor_info in, got, folded;
    bool ok = pl_interp_create(model, n, &o, arena, sizeof arena, &it, &err) == PL_OK &&
              pl_interp_allocate(it) == PL_OK &&
              pl_interp_tensor(it, (uint32_t)pl_interp_input_index(it, 0), &in) == PL_OK;
    if (ok) {
        memcpy(in.data, x, in.bytes);
        ok = pl_interp_invoke(it) == PL_OK &&
             pl_interp_tensor(it, (uint32_t)pl_interp_output_index(it, 0), &got) == PL_OK &&
             pl_interp_tensor(it, T_W, &folded) == PL_OK &&
             pl_interp_recording(it, rec) == PL_OK;
    }
    if (ok) {
        memcpy(y, got.data, got.bytes);
        if (c->preserve)
            memcpy(w, folded.data, folded.bytes);
    }
    else
        fprintf(stderr, "fold case failed: %s\n", err.msg);
    if (it != NULL)
        pl_interp_destroy(it);
    free(model);
    return ok;
}

static bool case_matches(pl_fast_resolver *fr, const fold_case *c)
{
    pl_recording want, got;
    uint64_t unread = fr->unread_folds;
    if (!run(c, pl_builtin_resolver(), out[0], dequantized[0], &want) ||
        !run(c, pl_fast_resolver_get(fr), out[1], dequantized[1], &got))
        return false;
    unread = fr->unread_folds - unread;
    /* the blocks, not the table (which the ADD's block alone may grow past the values) */
    size_t held = pl_fast_host_bytes(fr) - fr->capacity * sizeof(pl_fast_slot);
    pl_fast_resolver_release(fr);
    size_t values = 4 * (size_t)(c->u * c->d + c->u);
    /* the folded values, and the FULLY_CONNECTED's packed copy of the weights */
    bool folded = held >= values + 4 * (size_t)(c->u * c->d);
    bool expect = c->subgraphs == 1;
    /* unwritten: the weights, and the bias unless the ADD reads it too */
    uint64_t expect_unread = expect && !c->preserve ? (c->bias_added ? 1 : 2) : 0;
    fast_cases += folded;
    unread_cases += unread > 0;
    bool same = memcmp(out[0], out[1], sizeof(float) * (size_t)(c->b * c->u)) == 0 &&
                (!c->preserve || memcmp(dequantized[0], dequantized[1],
                                        sizeof(float) * (size_t)(c->u * c->d)) == 0) &&
                want.total == got.total && want.head == got.head && want.tail == got.tail &&
                want.peak == got.peak;
    if (!same || folded != expect || unread != expect_unread)
        fprintf(stderr, "fold %s: %dx%d by %d units, int8 %d, subgraphs %d, preserve %d, "
                "bias added %d, host %zu, unwritten %llu\n", same ? "path" : "differs", c->b,
                c->d, c->u, c->int8, c->subgraphs, c->preserve, c->bias_added, held,
                (unsigned long long)unread);
    return same && folded == expect && unread == expect_unread;
}

/* On `threads` threads (every job split), 300 random cases on every instruction set. */
static void fold_cases(int32_t threads)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        pl_fast_resolver fr;
        CHECK_EQ(pl_fast_resolver_init(&fr, pl_builtin_resolver(), &host, (pl_isa)isa),
                 PL_OK);
        if (threads > 1)
            split_every_job(&fr, threads);
        fr.poison_unread = true;
        int failures = 0;
        fast_cases = unread_cases = 0;
        for (int k = 0; k < 300; k++) {
            fold_case c;
            random_case(&c);
            failures += !case_matches(&fr, &c);
        }
        printf("  %s, %d threads: %d folded cases, %d left unwritten, %llu split jobs\n",
               pl_fast_isa_name((pl_isa)isa), threads, fast_cases, unread_cases,
               (unsigned long long)fr.parallel_jobs);
        CHECK_EQ(pl_fast_resolver_set_threads(&fr, 1), PL_OK);
        CHECK_EQ(failures, 0);
        CHECK(fast_cases > 200);
        CHECK(unread_cases > 80);
        CHECK(threads == 1 || fr.parallel_jobs > 0);
    }
}

static void folded_dequantize_feeds_the_fast_paths(void)
{
    fold_cases(1);
}

static void folded_copies_split_over_threads(void)
{
    fold_cases(3);
}

int main(void)
{
    RUN(folded_dequantize_feeds_the_fast_paths);
    RUN(folded_copies_split_over_threads);
    return HARNESS_END();
}
