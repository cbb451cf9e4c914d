/* test_fast_transpose_conv.c - TRANSPOSE_CONV's host fast path against the portable kernel
** on random sizes, strides, paddings, activations, zero points and per-channel scales: int8
** byte for byte, float32 equal (the gathered taps come in the reference's order). Every
** instruction set this CPU runs is tested; CI runs this under ASan and UBSan. */
#include <math.h>
#include <string.h>

#include "fast_harness.h"
#include "fast/gemm.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/conv/transpose_conv.h"

enum { TRANSPOSE_CONV = 67, MAX_IN = 2 * 8 * 8 * 16, MAX_F = 24 * 5 * 5 * 16,
       MAX_OUT = 2 * 26 * 26 * 24 /* VALID: (8 - 1) * 3 + 5 per side */ };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == TRANSPOSE_CONV ? pl_transpose_conv_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

static int8_t in8[MAX_IN], f8[MAX_F], out8[2][MAX_OUT];
static float in32[MAX_IN], f32[MAX_F], out32[2][MAX_OUT], bias32f[24];
static int32_t bias32[24];

typedef struct tc_case {
    int32_t batch, h, w, ic, oc, kh, kw, sh, sw, padding, act;
    bool f32, bias;
    int64_t in_zp, out_zp;
    float in_scale, out_scale, f_scale[24];
} tc_case;

static void random_case(tc_case *c)
{
    c->batch = between(1, 2);
    c->h = between(1, 8);
    c->w = between(1, 8);
    c->ic = between(1, 16);
    c->oc = between(1, 24);
    c->kh = between(1, 5);
    c->kw = between(1, 5);
    c->sh = between(1, 3);
    c->sw = between(1, 3);
    c->padding = between(0, 1);
    c->act = (int32_t[]){0, 1, 3}[between(0, 2)];
    c->f32 = between(0, 2) == 0;
    c->bias = between(0, 3) != 0;
    c->in_zp = between(-128, 127);
    c->out_zp = between(-128, 127);
    c->in_scale = 0.01f + (float)between(1, 50) / 500.0f;
    c->out_scale = 0.05f + (float)between(1, 100) / 100.0f;
    for (int32_t k = 0; k < c->oc; k++)
        c->f_scale[k] = 0.002f + 0.05f * (float)between(1, 100) / 100.0f;
}

/* TFLite's output size for a transposed convolution: VALID (in - 1) * s + k, SAME in * s. */
static int32_t out_size(const tc_case *c, int32_t in, int32_t k, int32_t s)
{
    return c->padding == 1 ? (in - 1) * s + k : in * s;
}

static pl_status run(const tc_case *c, const pl_registration *reg, int slot, int32_t *od)
{
    kh_setup();
    int32_t shape[4] = {od[0], od[1], od[2], od[3]}, sd[1] = {4};
    int32_t ind[4] = {c->batch, c->h, c->w, c->ic}, fd[4] = {c->oc, c->kh, c->kw, c->ic};
    int32_t bd[1] = {c->oc};
    size_t n_in = (size_t)c->batch * (size_t)(c->h * c->w * c->ic);
    size_t n_f = (size_t)c->oc * (size_t)(c->kh * c->kw * c->ic);
    size_t n_out = (size_t)od[0] * (size_t)(od[1] * od[2] * od[3]);
    float bias_scale[24];
    int64_t zeros[24] = {0};
    for (int32_t k = 0; k < c->oc; k++)
        bias_scale[k] = c->in_scale * c->f_scale[k];
    int32_t ins[4], outs[1];
    ins[0] = kh_tensor(PL_INT32, 1, sd, shape, sizeof shape, NULL, NULL, 0, 0);
    if (c->f32) {
        ins[1] = kt_tensor_f32(4, fd, f32, n_f);
        ins[2] = kt_tensor_f32(4, ind, in32, n_in);
        ins[3] = kt_tensor_f32(1, bd, bias32f, (size_t)c->oc);
        outs[0] = kt_tensor_f32(4, od, out32[slot], n_out);
    } else {
        ins[1] = kh_tensor(PL_INT8, 4, fd, f8, n_f, c->f_scale, zeros, (uint32_t)c->oc, 0);
        ins[2] = kh_tensor(PL_INT8, 4, ind, in8, n_in, &c->in_scale, &c->in_zp, 1, 0);
        ins[3] = kh_tensor(PL_INT32, 1, bd, bias32, sizeof(int32_t) * (size_t)c->oc,
                           bias_scale, zeros, (uint32_t)c->oc, 0);
        outs[0] = kh_tensor(PL_INT8, 4, od, out8[slot], n_out, &c->out_scale, &c->out_zp, 1, 0);
    }
    kh.tensors[ins[0]].is_constant = true;
    kh.tensors[ins[1]].is_constant = true;
    kh.tensors[ins[3]].is_constant = true;
    kt_opts o;
    const int32_t fields[4] = {c->padding, c->sw, c->sh, c->act};
    return kh_run(reg, ins, c->bias ? 4 : 3, outs, 1, kt_make_opts(&o, fields, 4));
}

/* Set: the float cases get one infinite weight (the fast paths must decline: their rows read
** 0.0f at taps no input pixel reaches, and 0 * inf is NaN where the reference adds nothing). */
static bool infinite_weight;

static bool case_matches(pl_fast_resolver *r, const tc_case *c)
{
    int32_t od[4] = {c->batch, out_size(c, c->h, c->kh, c->sh), out_size(c, c->w, c->kw, c->sw),
                     c->oc};
    size_t n_out = (size_t)od[0] * (size_t)(od[1] * od[2] * od[3]);
    for (size_t i = 0; i < (size_t)c->batch * (size_t)(c->h * c->w * c->ic); i++) {
        in8[i] = (int8_t)between(-128, 127);
        in32[i] = unit() * 4.0f;
    }
    for (size_t i = 0; i < (size_t)c->oc * (size_t)(c->kh * c->kw * c->ic); i++) {
        f8[i] = (int8_t)between(-127, 127);
        f32[i] = unit();
    }
    for (int32_t k = 0; k < c->oc; k++) {
        bias32[k] = between(-20000, 20000);
        bias32f[k] = unit();
    }
    if (infinite_weight)
        f32[between(0, c->oc * c->kh * c->kw * c->ic - 1)] = between(0, 1) ? INFINITY : -INFINITY;
    const pl_registration *fast = r->resolver.find(r, TRANSPOSE_CONV, NULL, 0, 1);
    if (run(c, pl_transpose_conv_registration(), 0, od) != PL_OK || run(c, fast, 1, od) != PL_OK) {
        fprintf(stderr, "transpose conv refused: %s\n", kh.message);
        return false;
    }
    fast_cases += r->host_bytes > r->capacity * sizeof(pl_fast_slot); /* a block, not the slots */
    pl_fast_resolver_release(r);
    for (size_t i = 0; i < n_out; i++)
        if (c->f32 ? memcmp(&out32[0][i], &out32[1][i], sizeof(float)) != 0
                   : out8[0][i] != out8[1][i]) {
            fprintf(stderr, "transpose conv differs: %s %dx%dx%dx%d oc %d k %dx%d s %d,%d pad %d "
                    "at %zu\n", c->f32 ? "f32" : "int8", c->batch, c->h, c->w, c->ic, c->oc,
                    c->kh, c->kw, c->sh, c->sw, c->padding, i);
            return false;
        }
    return true;
}

static bool one_case(pl_fast_resolver *r)
{
    tc_case c;
    random_case(&c);
    return case_matches(r, &c);
}

static void transpose_conv_fast_paths_equal_portable(void)
{
    fast_equals_portable(&portable, "transpose conv", 300, 300, one_case);
}

/* The cases on 3 threads: the phased product splits its output rows over them. */
static void transpose_conv_threads_equal_portable(void)
{
    fast_threads_equal_portable(&portable, "transpose conv", 200, 20, one_case);
}

/* float cases of a fused target: VFMADD/FMLA where the instruction set has FMA */
static bool one_fused_case(pl_fast_resolver *r)
{
    tc_case c;
    random_case(&c);
    c.f32 = true;
    return case_matches(r, &c);
}

static bool can_fuse(pl_isa isa)
{
    return pl_gemm_f32_run(pl_gemm_f32_for(isa), true) != NULL;
}

static void transpose_conv_fused_fast_paths_equal_portable(void)
{
    fast_fused_equals_portable(&portable, "transpose conv", 150, one_fused_case, can_fuse, &kh_ctx);
}

static bool one_infinite_case(pl_fast_resolver *r)
{
    tc_case c;
    random_case(&c);
    c.f32 = true;
    infinite_weight = true;
    bool same = case_matches(r, &c);
    infinite_weight = false;
    return same;
}

/* A float filter with an infinite weight: the portable kernel's bits, and no fast plan. */
static void transpose_conv_infinite_weight_declines(void)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        uint64_t jobs;
        int failures;
        fast_run_cases(&portable, (pl_isa)isa, 1, 100, one_infinite_case, &failures, &jobs);
        CHECK_EQ(failures, 0);
        CHECK_EQ(fast_cases, 0);
    }
}

int main(void)
{
    RUN(transpose_conv_fast_paths_equal_portable);
    RUN(transpose_conv_threads_equal_portable);
    RUN(transpose_conv_infinite_weight_declines);
    RUN(transpose_conv_fused_fast_paths_equal_portable);
    return HARNESS_END();
}
