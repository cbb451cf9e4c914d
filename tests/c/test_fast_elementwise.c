/* test_fast_elementwise.c - ADD, SUB and MUL's host fast paths against the portable kernel
** on random element counts, scales, zero points and activations: int8 outputs byte for
** byte, float32 bit for bit (special values included); broadcasting keeps the portable
** kernel. Every instruction set this CPU runs is tested; CI runs this under ASan and UBSan. */
#include <math.h>
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/elementwise/elementwise.h"

enum { ADD = 0, SUB = 41, MUL = 18, MAX_N = 700 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == ADD ? pl_add_registration()
         : code == SUB ? pl_sub_registration()
         : code == MUL ? pl_mul_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

static int8_t a8[MAX_N], b8[MAX_N], out8[2][MAX_N];
static float a32[MAX_N], b32[MAX_N], out32[2][MAX_N];

typedef struct ew_case {
    int32_t op, act, n, b_len; /* b_len: input 2's count (1 broadcasts) */
    bool f32;
    float s1, s2, so;
    int64_t z1, z2, zo;
} ew_case;

static void random_case(ew_case *c)
{
    c->op = (int32_t[]){ADD, SUB, MUL}[between(0, 2)];
    c->act = (int32_t[]){0, 1, 3}[between(0, 2)];
    c->n = between(1, MAX_N);
    c->b_len = between(0, 9) == 0 ? 1 : c->n;
    c->f32 = between(0, 2) == 0;
    c->s1 = 0.005f + (float)between(1, 100) / 400.0f;
    c->s2 = 0.005f + (float)between(1, 100) / 400.0f;
    c->so = 0.01f + (float)between(1, 100) / (c->op == MUL ? 50.0f : 200.0f);
    c->z1 = between(-128, 127);
    c->z2 = between(-128, 127);
    c->zo = between(-128, 127);
    for (int32_t i = 0; i < c->n; i++) {
        a8[i] = (int8_t)between(-128, 127);
        b8[i] = (int8_t)between(-128, 127);
        a32[i] = unit() * 8.0f;
        b32[i] = unit() * 8.0f;
    }
    if (c->f32 && c->n > 4) { /* the clamp and the operations on special values */
        a32[0] = NAN;
        a32[1] = INFINITY;
        b32[2] = -INFINITY;
        a32[3] = -0.0f;
        b32[3] = 0.0f;
    }
}

static pl_status run_case(const ew_case *c, const pl_registration *reg, int slot)
{
    kh_setup();
    int32_t da[1] = {c->n}, db[1] = {c->b_len}, ins[2], outs[1];
    if (c->f32) {
        ins[0] = kt_tensor_f32(1, da, a32, (size_t)c->n);
        ins[1] = kt_tensor_f32(1, db, b32, (size_t)c->b_len);
        outs[0] = kt_tensor_f32(1, da, out32[slot], (size_t)c->n);
    } else {
        ins[0] = kh_tensor(PL_INT8, 1, da, a8, (size_t)c->n, &c->s1, &c->z1, 1, 0);
        ins[1] = kh_tensor(PL_INT8, 1, db, b8, (size_t)c->b_len, &c->s2, &c->z2, 1, 0);
        outs[0] = kh_tensor(PL_INT8, 1, da, out8[slot], (size_t)c->n, &c->so, &c->zo, 1, 0);
    }
    kt_opts o;
    const int32_t fields[1] = {c->act};
    return kh_run(reg, ins, 2, outs, 1, kt_make_opts(&o, fields, 1));
}

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
    pl_fast_resolver_release(r);
    if (took_fast == (c->b_len != c->n)) {
        fprintf(stderr, "op %d n %d: fast path %d with input 2 of %d\n", c->op, c->n,
                took_fast, c->b_len);
        return false;
    }
    bool same = c->f32 ? memcmp(out32[0], out32[1], sizeof(float) * (size_t)c->n) == 0
                       : memcmp(out8[0], out8[1], (size_t)c->n) == 0;
    if (!same)
        fprintf(stderr, "elementwise differs: op %d %s n %d act %d zp %d/%d/%d\n", c->op,
                c->f32 ? "f32" : "int8", c->n, c->act, (int)c->z1, (int)c->z2, (int)c->zo);
    return same;
}

static void elementwise_fast_paths_equal_portable(void)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        pl_fast_resolver r;
        CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
        int failures = 0;
        fast_cases = 0;
        for (int n = 0; n < 600; n++) {
            ew_case c;
            random_case(&c);
            failures += !case_matches(&r, &c);
        }
        pl_fast_resolver_release(&r);
        printf("  %s: elementwise %d fast cases\n", pl_fast_isa_name((pl_isa)isa), fast_cases);
        CHECK_EQ(failures, 0);
        CHECK(fast_cases > 450);
    }
}

int main(void)
{
    RUN(elementwise_fast_paths_equal_portable);
    return HARNESS_END();
}
