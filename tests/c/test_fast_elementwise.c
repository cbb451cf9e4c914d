/* test_fast_elementwise.c - ADD, SUB and MUL's host fast paths (and float DIV and
** SQUARED_DIFFERENCE's, int8, int16 and float MAXIMUM and MINIMUM's: no op data, a block by
** the node's index) against the portable kernel on random shapes, scales, zero points and
** activations: int8 and int16 (16x8) outputs byte for byte, float32 bit for bit (special
** values included: NaN, infinities, zeros of both signs, equal pairs). Equal shapes, a scalar on
** either side and an input repeating along the last axes ([C], [1,1,1,C], [W,C] against
** [N,H,W,C]), one per row ([N,H,1,1]) and outer products ([N,H,1,1] against [W,C]) take the
** fast path, as do other broadcasts (both inputs broadcast too: copied out first); int16
** power-of-two ADD/SUB keep the portable kernel. Every instruction set this CPU runs is tested; CI runs this under ASan
** and UBSan. */
#include <math.h>
#include <string.h>

#include "fast/elementwise.h"
#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/elementwise/div.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/minmax.h"
#include "kernels/elementwise/squared_difference.h"

/* PAIRS_N: from this many outputs a lone int8 node takes the pairs table (elementwise.c) */
/* MAX_N: several of elementwise.c's 16384-element tasks */
enum { ADD = 0, SUB = 41, MUL = 18, DIV = 42, SQDIFF = 99, MAXIMUM = 55, MINIMUM = 57 };
enum { PAIRS_N = 4096, MAX_N = 40000 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == ADD ? pl_add_registration()
         : code == SUB ? pl_sub_registration()
         : code == MUL ? pl_mul_registration()
         : code == DIV ? pl_div_registration()
         : code == SQDIFF ? pl_squared_difference_registration()
         : code == MAXIMUM ? pl_maximum_registration()
         : code == MINIMUM ? pl_minimum_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

static int8_t a8[MAX_N], b8[MAX_N], out8[2][MAX_N];
static int16_t a16[MAX_N], b16[MAX_N], out16[2][MAX_N];
static float a32[MAX_N], b32[MAX_N], out32[2][MAX_N];

/* How input shapes relate: the fast forms first, then one it leaves to the portable kernel. */
typedef enum form {
    SAME,       /* a, b and out alike */
    SCALAR_B,   /* b one element */
    SCALAR_A,
    LAST_B,     /* b repeats along out's last axes */
    LAST_A,
    LONG_B,     /* b alone larger than the repeat buffer */
    ROW_B,      /* b out's leading dims then 1s ([N, H, 1, 1]) */
    ROW_A,
    OUTER,      /* a [N,H,1,1] against b [1,1,W,C] or [W,C], or the other way round */
    OTHER,      /* b [N,1,1,C]: copied out to out's shape first */
    BOTH,       /* a [N,H,1,C] against b [1,1,W,1] or [W,1]: both copied out */
    FORMS
} form;

typedef struct ew_case {
    int32_t op, act;
    form form;
    pl_type type;
    bool pot; /* int16 power-of-two scales: portable for ADD and SUB */
    int32_t out_nd, out_dims[4], a_nd, a_dims[4], b_nd, b_dims[4];
    float s1, s2, so;
    int64_t z1, z2, zo;
} ew_case;

static size_t count(int32_t nd, const int32_t *dims)
{
    size_t n = 1;
    for (int32_t k = 0; k < nd; k++)
        n *= (size_t)dims[k];
    return n;
}

/* The small input for a LAST form: [C], [1,1,1,C], [W,C] or [1,H,W,C]. */
static void last_axes(const ew_case *c, int32_t *nd, int32_t *dims)
{
    const int32_t *o = c->out_dims;
    switch (between(0, 3)) {
    case 0:
        *nd = 1, dims[0] = o[3];
        break;
    case 1:
        *nd = 4, dims[0] = dims[1] = dims[2] = 1, dims[3] = o[3];
        break;
    case 2:
        *nd = 2, dims[0] = o[2], dims[1] = o[3];
        break;
    default:
        *nd = 4, dims[0] = 1, dims[1] = o[1], dims[2] = o[2], dims[3] = o[3];
    }
}

static void shapes(ew_case *c)
{
    int32_t *o = c->out_dims;
    c->out_nd = 4;
    o[0] = between(1, 2), o[1] = between(1, 5), o[2] = between(1, 8), o[3] = between(1, 40);
    if (c->form == LONG_B)
        o[0] = 1, o[1] = 2, o[2] = 1, o[3] = between(4097, MAX_N / 2);
    if (c->form == SAME && between(0, 2) == 0) /* large: int8 takes the pairs table */
        o[0] = o[1] = o[2] = 1, o[3] = between(PAIRS_N - 8, MAX_N);
    if (c->form == OTHER) /* a last dim of 1 would make b [2,1,1,1] per row */
        o[0] = 2, o[1] = between(2, 5), o[3] = between(2, 40);
    if (c->form == BOTH) /* neither input whole, neither a row nor a repeat */
        o[2] = between(2, 8), o[3] = between(2, 40);
    if (c->form == OUTER && between(0, 3) == 0) /* rows longer than ROW_REP */
        o[2] = between(1, 3), o[3] = between(300, 600);
    c->a_nd = c->b_nd = 4;
    memcpy(c->a_dims, o, sizeof c->a_dims);
    memcpy(c->b_dims, o, sizeof c->b_dims);
    int32_t *small_nd = c->form == SCALAR_A || c->form == LAST_A ? &c->a_nd : &c->b_nd;
    int32_t *small = c->form == SCALAR_A || c->form == LAST_A ? c->a_dims : c->b_dims;
    if (c->form == SCALAR_A || c->form == SCALAR_B) {
        *small_nd = between(0, 2);
        small[0] = small[1] = 1;
    } else if (c->form == LAST_A || c->form == LAST_B) {
        last_axes(c, small_nd, small);
    } else if (c->form == LONG_B) {
        *small_nd = 1, small[0] = o[3];
    } else if (c->form == OUTER) { /* an outer product: neither whole */
        int32_t *rows = between(0, 1) ? c->a_dims : c->b_dims;
        int32_t *row = rows == c->a_dims ? c->b_dims : c->a_dims;
        rows[2] = rows[3] = 1;
        row[0] = row[1] = 1;
        if (between(0, 1)) { /* [W, C] */
            int32_t *row_nd = row == c->a_dims ? &c->a_nd : &c->b_nd;
            *row_nd = 2, row[0] = o[2], row[1] = o[3];
        }
    } else if (c->form == OTHER) {
        small[1] = small[2] = 1;
    } else if (c->form == BOTH) {
        c->a_dims[2] = 1;
        c->b_dims[0] = c->b_dims[1] = c->b_dims[3] = 1;
        if (between(0, 1)) /* [W, 1]: a lower rank */
            c->b_nd = 2, c->b_dims[0] = o[2], c->b_dims[1] = 1;
    } else if (c->form == ROW_A || c->form == ROW_B) {
        /* [2, ...] against a last dim of 2 or more: neither a scalar nor a repeat; rows
        ** longer than elementwise.c's ROW_REP too */
        o[0] = 2, o[3] = between(0, 1) ? between(2, 40) : between(2, 500);
        memcpy(c->a_dims, o, sizeof c->a_dims);
        memcpy(c->b_dims, o, sizeof c->b_dims);
        int32_t *row = c->form == ROW_A ? c->a_dims : c->b_dims;
        for (int32_t k = between(1, 3); k < 4; k++)
            row[k] = 1;
    }
}

static int16_t random_s16(void)
{
    switch (between(0, 7)) { /* the extremes often: saturation and the widest shifts */
    case 0:
        return INT16_MIN;
    case 1:
        return INT16_MAX;
    default:
        return (int16_t)between(INT16_MIN, INT16_MAX);
    }
}

static void quantization(ew_case *c)
{
    bool s16 = c->type == PL_INT16;
    c->s1 = 0.005f + (float)between(1, 100) / 400.0f;
    c->s2 = 0.005f + (float)between(1, 100) / 400.0f;
    c->so = 0.01f + (float)between(1, 100) / (c->op == MUL ? 50.0f : 200.0f);
    if (s16 && c->op == MUL)
        c->so *= (float)between(1, 2000); /* from saturating to fine */
    if (!s16 && c->op == MUL && between(0, 3) == 0) /* rescaled up, a left shift: no quick */
        c->so = c->s1 * c->s2 / (float)between(1, 4); /* form, the large ones look pairs up */
    int32_t zmax = s16 ? (c->op == MUL || between(0, 1) ? 0 : 300) : 127;
    c->z1 = zmax ? between(-zmax - 1, zmax) : 0;
    c->z2 = zmax ? between(-zmax - 1, zmax) : 0;
    c->zo = zmax ? between(-zmax - 1, zmax) : 0;
    if (c->pot) {
        c->s1 = 1.0f / 4096.0f, c->s2 = 1.0f / 1024.0f, c->so = 1.0f / 1024.0f;
        c->z1 = c->z2 = c->zo = 0;
    }
}

static void random_case(ew_case *c)
{
    c->op = (int32_t[]){ADD, SUB, MUL, ADD, SUB, MUL, DIV, SQDIFF, MAXIMUM, MINIMUM}[between(0, 9)];
    c->act = (int32_t[]){0, 1, 3}[between(0, 2)];
    c->form = between(0, 3) ? (form)between(0, LAST_A) : (form)between(0, FORMS - 1);
    c->type = (pl_type[]){PL_INT8, PL_INT16, PL_FLOAT32}[between(0, 2)];
    if (c->op == DIV || (c->op == SQDIFF && c->type == PL_INT16)) /* float (SQDIFF: int8 */
        c->type = PL_FLOAT32;                                       /* too) in the fast path */
    /* TFLite has no broadcasting power-of-two ADD */
    c->pot = c->type == PL_INT16 && (c->op == SUB || (c->op == ADD && c->form == SAME)) &&
             between(0, 9) == 0;
    shapes(c);
    quantization(c);
    size_t na = count(c->a_nd, c->a_dims), nb = count(c->b_nd, c->b_dims);
    for (size_t i = 0; i < (na > nb ? na : nb); i++) {
        a8[i] = (int8_t)between(-128, 127);
        b8[i] = (int8_t)between(-128, 127);
        a16[i] = random_s16();
        b16[i] = random_s16();
        a32[i] = unit() * 8.0f;
        b32[i] = unit() * 8.0f;
    }
    if (c->type == PL_FLOAT32) { /* the clamp and the operations on special values */
        a32[between(0, (int32_t)na - 1)] = NAN;
        a32[between(0, (int32_t)na - 1)] = INFINITY;
        b32[between(0, (int32_t)nb - 1)] = -INFINITY;
        a32[between(0, (int32_t)na - 1)] = -0.0f;
        b32[between(0, (int32_t)nb - 1)] = NAN;
        b32[between(0, (int32_t)nb - 1)] = 0.0f;
        b32[between(0, (int32_t)nb - 1)] = -0.0f;
        for (int k = 0; k < 8; k++) { /* equal pairs, zeros of both signs */
            size_t i = (size_t)between(0, (int32_t)(na < nb ? na : nb) - 1);
            a32[i] = k % 2 ? 0.0f : b32[i];
            b32[i] = k % 2 ? -0.0f : b32[i];
        }
        for (int k = 0; k < 4; k++) { /* NaN against NaN: which payload comes out (quiet and
                                      ** signaling ones: Arm's FMUL takes a signaling one
                                      ** first, x86's the first operand) */
            uint32_t pa = (k & 2 ? 0x7f800001u : 0x7fc00001u) + (uint32_t)k,
                     pb = (k & 1 ? 0xff800002u : 0xffc00002u) + (uint32_t)k;
            memcpy(&a32[between(0, (int32_t)(na < nb ? na : nb) - 1)], &pa, 4);
            memcpy(&b32[between(0, (int32_t)(na < nb ? na : nb) - 1)], &pb, 4);
            size_t i = (size_t)between(0, (int32_t)(na < nb ? na : nb) - 1);
            memcpy(&a32[i], &pa, 4);
            memcpy(&b32[i], &pb, 4);
        }
    }
}

/* LiteRT's int16 power-of-two ADD and SUB keep the portable kernel; TFLM never takes that
** path, so its general one runs fast. */
static bool expect_fast(const ew_case *c)
{
    return !(c->pot && kh_ctx.arith == PL_ARITH_LITERT);
}

static void *data(pl_type type, int which, int slot)
{
    if (type == PL_FLOAT32)
        return which == 0 ? a32 : which == 1 ? b32 : out32[slot];
    if (type == PL_INT16)
        return which == 0 ? (void *)a16 : which == 1 ? (void *)b16 : (void *)out16[slot];
    return which == 0 ? a8 : which == 1 ? b8 : out8[slot];
}

static pl_status run_case(const ew_case *c, const pl_registration *reg, int slot)
{
    kh_setup();
    size_t es = c->type == PL_FLOAT32 ? 4 : c->type == PL_INT16 ? 2 : 1;
    const int32_t *dims[3] = {c->a_dims, c->b_dims, c->out_dims};
    const int32_t nds[3] = {c->a_nd, c->b_nd, c->out_nd};
    const float scales[3] = {c->s1, c->s2, c->so};
    const int64_t zps[3] = {c->z1, c->z2, c->zo};
    int32_t t[3];
    for (int k = 0; k < 3; k++) {
        size_t bytes = count(nds[k], dims[k]) * es;
        void *p = data(c->type, k, slot);
        t[k] = c->type == PL_FLOAT32
                   ? kh_tensor(PL_FLOAT32, nds[k], dims[k], p, bytes, NULL, NULL, 0, 0)
                   : kh_tensor(c->type, nds[k], dims[k], p, bytes, &scales[k], &zps[k], 1, 0);
    }
    kt_opts o;
    const int32_t fields[1] = {c->act};
    return kh_run(reg, t, 2, t + 2, 1, kt_make_opts(&o, fields, 1));
}

static int pair_cases;

static bool case_matches(pl_fast_resolver *r, const ew_case *c)
{
    const pl_registration *fast = r->resolver.find(r, c->op, NULL, 0, 1);
    if (run_case(c, portable_find(NULL, c->op, NULL, 0, 1), 0) != PL_OK ||
        run_case(c, fast, 1) != PL_OK) {
        fprintf(stderr, "elementwise refused: %s\n", kh.message);
        return false;
    }
    bool took_fast = r->host_bytes > r->capacity * sizeof(pl_fast_slot);
    fast_cases += took_fast;
    pair_cases += r->host_bytes > 65536; /* an int8 node's table of every input pair */
    pl_fast_resolver_release(r);
    size_t es = c->type == PL_FLOAT32 ? 4 : c->type == PL_INT16 ? 2 : 1;
    size_t bytes = count(c->out_nd, c->out_dims) * es;
    bool same = memcmp(data(c->type, 2, 0), data(c->type, 2, 1), bytes) == 0;
    if (!same || took_fast != expect_fast(c))
        fprintf(stderr, "elementwise %s: op %d type %s form %d out %dx%dx%dx%d act %d zp "
                "%d/%d/%d fast %d\n", same ? "path" : "differs", c->op,
                pl_type_name(c->type), c->form, c->out_dims[0], c->out_dims[1],
                c->out_dims[2], c->out_dims[3], c->act, (int)c->z1, (int)c->z2, (int)c->zo,
                took_fast);
    return same && took_fast == expect_fast(c);
}

/* The same cases in TFLM's arithmetic and in LiteRT's. */
/* On threads threads (every job split into its spans), the same random cases in TFLM's
** arithmetic and in LiteRT's. */
static void cases_equal_portable(int32_t threads)
{
    static const pl_arith ariths[2] = {PL_ARITH_TFLM, PL_ARITH_LITERT};
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        const uint64_t cases = rng_state;
        for (int a = 0; a < 2; a++) {
            kh_ctx.arith = ariths[a];
            rng_state = cases;
            pl_fast_resolver r;
            CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
            r.poison_scratch = true;
            split_every_job(&r, threads);
            int failures = 0;
            fast_cases = pair_cases = 0;
            for (int n = 0; n < 1200; n++) {
                ew_case c;
                random_case(&c);
                failures += !case_matches(&r, &c);
            }
            pl_fast_resolver_release(&r);
            CHECK_EQ(pl_fast_resolver_set_threads(&r, 1), PL_OK);
            if (threads == 1)
                printf("  %s, %s arithmetic: elementwise %d fast cases, %d through the pairs "
                       "table\n", pl_fast_isa_name((pl_isa)isa), a == 0 ? "TFLM" : "LiteRT",
                       fast_cases, pair_cases);
            else
                printf("  %s, %d threads: elementwise %d fast cases, %llu split jobs\n",
                       pl_fast_isa_name((pl_isa)isa), threads, fast_cases,
                       (unsigned long long)r.parallel_jobs);
            CHECK_EQ(failures, 0);
            CHECK(fast_cases > 900);
            /* a set whose quick form takes most nodes looks fewer up */
            CHECK(pair_cases > (pl_ew_for((pl_isa)isa)->quick_s8 ? 1 : 10));
            CHECK(threads == 1 || r.parallel_jobs > 20);
        }
        kh_ctx.arith = PL_ARITH_TFLM;
    }
}

static void elementwise_fast_paths_equal_portable(void)
{
    cases_equal_portable(1);
}

static void elementwise_threads_equal_portable(void)
{
    cases_equal_portable(3);
}

/* int8 ADD, SUB and MUL on every pair of inputs (two halves of 32768), for random scales
** and zero points: the quick float form must give TFLite's bytes wherever it keeps its
** rounding, including the pairs whose exact value lies near a rounding tie. */
static void int8_every_pair_equals_portable(void)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        int failures = 0;
        for (int n = 0; n < 120; n++) {
            ew_case c = {.op = (int32_t[]){ADD, SUB, MUL}[n % 3],
                         .act = (int32_t[]){0, 1, 3}[between(0, 2)], .form = SAME,
                         .type = PL_INT8, .out_nd = 4, .out_dims = {1, 128, 256, 1}};
            quantization(&c);
            c.so *= (float)ldexp(1.0, between(-4, 4)); /* coarse to fine outputs */
            c.a_nd = c.b_nd = 4;
            memcpy(c.a_dims, c.out_dims, sizeof c.a_dims);
            memcpy(c.b_dims, c.out_dims, sizeof c.b_dims);
            for (int half = 0; half < 2; half++) {
                for (int32_t i = 0; i < 32768; i++) {
                    a8[i] = (int8_t)(half * 128 - 128 + i / 256);
                    b8[i] = (int8_t)(i % 256 - 128);
                }
                pl_fast_resolver r;
                CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
                r.poison_scratch = true;
                failures += !case_matches(&r, &c);
            }
        }
        printf("  %s: int8 every input pair\n", pl_fast_isa_name((pl_isa)isa));
        CHECK_EQ(failures, 0);
    }
}

/* int8 SQUARED_DIFFERENCE in a model whose host data are large (a transformer's packed
** weights: the other int8 nodes then compute instead of looking pairs up): the table is its
** only fast form, so it still looks its bytes up (a keyword transformer's LayerNorm once
** computed them as an ADD of no scales). */
static void sqdiff_s8_in_a_large_model_equals_portable(void)
{
    const uint64_t cases = rng_state;
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        rng_state = cases;
        int failures = 0, fast = 0;
        for (int n = 0; n < 300; n++) {
            pl_fast_resolver r;
            CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
            r.host_bytes = 1 << 20; /* as if a large model's blocks were held */
            ew_case c;
            do
                random_case(&c);
            while (c.op != SQDIFF || c.type != PL_INT8 || c.form == OTHER);
            const pl_registration *reg = r.resolver.find(&r, c.op, NULL, 0, 1);
            CHECK_EQ(run_case(&c, portable_find(NULL, c.op, NULL, 0, 1), 0), PL_OK);
            CHECK_EQ(run_case(&c, reg, 1), PL_OK);
            fast += r.host_bytes > (1 << 20) + r.capacity * sizeof(pl_fast_slot);
            failures += memcmp(data(c.type, 2, 0), data(c.type, 2, 1),
                               count(c.out_nd, c.out_dims)) != 0;
            pl_fast_resolver_release(&r);
        }
        printf("  %s: int8 SQUARED_DIFFERENCE in a large model, %d fast of 300\n",
               pl_fast_isa_name((pl_isa)isa), fast);
        CHECK_EQ(failures, 0);
        CHECK_EQ(fast, 300);
    }
}

int main(void)
{
    RUN(elementwise_fast_paths_equal_portable);
    RUN(elementwise_threads_equal_portable);
    RUN(int8_every_pair_equals_portable);
    RUN(sqdiff_s8_in_a_large_model_equals_portable);
    return HARNESS_END();
}
