/* test_fast_pool.c - AVERAGE_POOL_2D and MAX_POOL_2D's host fast paths against the
** portable kernel on randomized shapes, windows, strides, paddings, activations and zero
** points: int8 and int16 (16x8) outputs bit for bit (int16 extremes included), float32 bit
** for bit (NaN and infinities included; where two NaNs meet in a sum, which payload wins is
** the compiler's operand order, so NaNs compare as NaN).
** Every instruction set this CPU runs is tested; CI runs this under ASan and UBSan. */
#include <math.h>
#include <string.h>

#include "fast/pool.h"
#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/common/padding.h"
#include "kernels/pool/pooling.h"

enum { AVG = 1, MAX = 17, MAX_N = 2 * 14 * 14 * 80 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == AVG ? pl_pooling_avg_registration()
         : code == MAX ? pl_pooling_max_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

static int8_t in8[MAX_N], out8[2][MAX_N];
static int16_t in16[MAX_N], out16[2][MAX_N];
static float in32[MAX_N], out32[2][MAX_N];

typedef struct pool_case {
    int32_t code, batch, h, w, depth, fh, fw, sh, sw, padding, act;
    pl_type type;
    float scale;
    int64_t zp;
} pool_case;

static void random_case(pool_case *c)
{
    c->code = between(0, 1) ? AVG : MAX;
    c->batch = between(1, 2);
    c->h = between(1, 14);
    c->w = between(1, 14);
    c->depth = between(1, 80);
    c->fh = between(0, 5) == 0 ? c->h : between(1, 5);
    c->fw = between(0, 5) == 0 ? c->w : between(1, 5);
    c->sh = between(1, 3);
    c->sw = between(1, 3);
    c->padding = between(0, 1);
    c->act = (int32_t[]){0, 1, 3}[between(0, 2)];
    c->type = (pl_type[]){PL_INT8, PL_INT16, PL_FLOAT32}[between(0, 2)];
    c->scale = (0.01f + (float)between(1, 100) / 200.0f) /
               (c->type == PL_INT16 ? 256.0f : 1.0f);
    c->zp = c->type == PL_INT16 ? 0 : between(-128, 127);
    size_t n = (size_t)c->batch * (size_t)(c->h * c->w * c->depth);
    /* int16 inputs now and then all at an extreme: the largest sums and the clamp */
    int32_t extreme = between(0, 7) == 0 ? (between(0, 1) ? INT16_MIN : INT16_MAX) : 0;
    for (size_t i = 0; i < n; i++) {
        in8[i] = (int8_t)between(-128, 127);
        in16[i] = (int16_t)(extreme ? extreme : between(INT16_MIN, INT16_MAX));
        in32[i] = unit() * 6.0f;
    }
    if (c->type == PL_FLOAT32 && n > 4 && between(0, 3) == 0) {
        in32[between(0, (int32_t)n - 1)] = NAN;
        in32[between(0, (int32_t)n - 1)] = INFINITY;
        in32[between(0, (int32_t)n - 1)] = -INFINITY;
    }
}

static pl_status run_case(const pool_case *c, const pl_registration *reg, int slot,
                          const int32_t *od)
{
    kh_setup();
    int32_t ind[4] = {c->batch, c->h, c->w, c->depth}, ins[1], outs[1];
    size_t n_in = (size_t)c->batch * (size_t)(c->h * c->w * c->depth);
    size_t n_out = (size_t)od[0] * (size_t)(od[1] * od[2] * od[3]);
    if (c->type == PL_FLOAT32) {
        ins[0] = kt_tensor_f32(4, ind, in32, n_in);
        outs[0] = kt_tensor_f32(4, od, out32[slot], n_out);
    } else if (c->type == PL_INT16) {
        ins[0] = kh_tensor(PL_INT16, 4, ind, in16, 2 * n_in, &c->scale, &c->zp, 1, 0);
        outs[0] = kh_tensor(PL_INT16, 4, od, out16[slot], 2 * n_out, &c->scale, &c->zp, 1, 0);
    } else {
        ins[0] = kh_tensor(PL_INT8, 4, ind, in8, n_in, &c->scale, &c->zp, 1, 0);
        outs[0] = kh_tensor(PL_INT8, 4, od, out8[slot], n_out, &c->scale, &c->zp, 1, 0);
    }
    kt_opts o;
    const int32_t fields[6] = {c->padding, c->sw, c->sh, c->fw, c->fh, c->act};
    return kh_run(reg, ins, 1, outs, 1, kt_make_opts(&o, fields, 6));
}

/* Bit for bit, except that any two NaNs are alike. */
static bool same_f32(const float *x, const float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&x[i], &y[i], sizeof(float)) != 0 && !(isnan(x[i]) && isnan(y[i])))
            return false;
    return true;
}

/* 1: equal on the fast path, 0: not run (no output), -1: failed. */
static int case_matches(pl_fast_resolver *r, const pool_case *c)
{
    int32_t oh = pl_pad_out_size(c->padding, c->h, c->fh, c->sh, 1);
    int32_t ow = pl_pad_out_size(c->padding, c->w, c->fw, c->sw, 1);
    if (oh <= 0 || ow <= 0)
        return 0;
    int32_t od[4] = {c->batch, oh, ow, c->depth};
    size_t n_out = (size_t)c->batch * (size_t)(oh * ow * c->depth);
    if (run_case(c, portable_find(NULL, c->code, NULL, 0, 1), 0, od) != PL_OK ||
        run_case(c, r->resolver.find(r, c->code, NULL, 0, 1), 1, od) != PL_OK) {
        fprintf(stderr, "pool refused: %s\n", kh.message);
        return -1;
    }
    bool took_fast = r->host_bytes > r->capacity * sizeof(pl_fast_slot);
    pl_fast_resolver_release(r);
    bool same = c->type == PL_FLOAT32 ? same_f32(out32[0], out32[1], n_out)
              : c->type == PL_INT16   ? memcmp(out16[0], out16[1], 2 * n_out) == 0
                                      : memcmp(out8[0], out8[1], n_out) == 0;
    if (!same || !took_fast) {
        fprintf(stderr, "pool %s: %s %s %dx%dx%dx%d f %dx%d s %d,%d pad %d act %d fast %d\n",
                same ? "fell back" : "differs", c->code == AVG ? "avg" : "max",
                pl_type_name(c->type), c->batch, c->h,
                c->w, c->depth, c->fh, c->fw, c->sh, c->sw, c->padding, c->act, took_fast);
        return -1;
    }
    return 1;
}

static void pool_fast_paths_equal_portable(void)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        CHECK(pl_pool_for((pl_isa)isa) != NULL);
        pl_fast_resolver r;
        CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
        r.poison_scratch = true;
        int failures = 0;
        fast_cases = 0;
        for (int n = 0; n < 600; n++) {
            pool_case c;
            random_case(&c);
            int got = case_matches(&r, &c);
            failures += got < 0;
            fast_cases += got > 0;
        }
        pl_fast_resolver_release(&r);
        printf("  %s: pool %d fast cases\n", pl_fast_isa_name((pl_isa)isa), fast_cases);
        CHECK_EQ(failures, 0);
        CHECK(fast_cases > 300);
    }
}

int main(void)
{
    RUN(pool_fast_paths_equal_portable);
    return HARNESS_END();
}
