/* test_fast.c - every host fast path against the portable kernel it replaces, on randomized
** shapes, strides, paddings, dilations, activations, zero points and per-channel scales:
** int8 outputs byte for byte, float32 outputs equal (the fast sums run in the reference's
** order). Every instruction set this CPU runs is tested; CI runs this under ASan and UBSan. */
#include <math.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/common/padding.h"
#include "kernels/conv/conv.h"
#include "fast/conv_narrow.h"
#include "fast/gemm.h"
#include "kernels/conv/fully_connected.h"
#include "picolite/pl_fast.h"

/* A simple resolver of the portable registrations the fast resolver wraps. */
static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == 3 ? pl_conv_registration()
         : code == 9 ? pl_fully_connected_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

/* Up to 300 output channels: a matrix product's few last rows run against several panels
** of channels at once, which takes more than a few panels to reach. */
enum { MAX_OC = 300 };
enum { MAX_IN = 30 * 300, MAX_F = MAX_OC * 5 * 5 * 24, MAX_OUT = 2 * 12 * 12 * MAX_OC };

typedef struct conv_case {
    int32_t batch, h, w, ic, oc, kh, kw, stride_h, stride_w, dil_h, dil_w, padding, act;
    bool f32, bias, per_channel;
    int32_t in_zp, out_zp;
    float in_scale, out_scale, f_scale[MAX_OC];
} conv_case;

static int8_t in8[MAX_IN], f8[MAX_F], out8[2][MAX_OUT];
static float in32[MAX_IN], f32[MAX_F], out32[2][MAX_OUT], bias32f[MAX_OC];
static int32_t bias32[MAX_OC];

static void random_conv(conv_case *c)
{
    memset(c, 0, sizeof *c);
    c->batch = between(1, 2);
    c->h = between(1, 12);
    c->w = between(1, 12);
    c->ic = between(1, 24);
    c->oc = between(0, 4) == 0 ? between(41, MAX_OC) : between(1, 40);
    c->kh = between(1, 5);
    c->kw = between(1, 5);
    c->stride_h = between(1, 3);
    c->stride_w = between(1, 3);
    c->dil_h = between(1, 3);
    c->dil_w = between(1, 3);
    c->padding = between(0, 1);
    c->act = (int32_t[]){0, 1, 3}[between(0, 2)];
    c->f32 = between(0, 3) == 0;
    c->bias = between(0, 3) != 0;
    c->per_channel = between(0, 1) == 1;
    c->in_zp = between(-128, 127);
    c->out_zp = between(-128, 127);
    c->in_scale = 0.01f + 0.1f * (float)between(1, 50) / 50.0f;
    c->out_scale = 0.05f + (float)between(1, 100) / 50.0f;
    for (int32_t k = 0; k < c->oc; k++)
        c->f_scale[k] = 0.002f + 0.05f * (float)between(1, 100) / 100.0f;
}

/* Set: some float inputs infinite (their sums may meet the other infinity: the default NaN,
** whichever operand comes first; NaN inputs are left out, since two NaNs meeting give the
** first operand's, and a compiler may order a scalar add's operands either way). */
static bool conv_special_inputs;

/* Set: one float weight infinite (the fast paths must decline: their rows read 0.0f at padded
** taps, and 0 * inf is NaN where the reference adds nothing). */
static bool conv_infinite_weight;

static void fill_conv_data(const conv_case *c, size_t n_in, size_t n_f)
{
    for (size_t i = 0; i < n_in; i++) {
        in8[i] = (int8_t)between(-128, 127);
        in32[i] = unit() * 4.0f;
    }
    for (size_t i = 0; i < n_f; i++) {
        f8[i] = (int8_t)between(-127, 127);
        f32[i] = unit();
    }
    for (int32_t k = 0; k < c->oc; k++) {
        bias32[k] = between(-20000, 20000);
        bias32f[k] = unit();
    }
    if (conv_special_inputs)
        for (int k = 0; k < 4 && n_in > 0; k++)
            in32[between(0, (int32_t)n_in - 1)] = k % 2 ? INFINITY : -INFINITY;
    if (conv_infinite_weight && n_f > 0)
        f32[between(0, (int32_t)n_f - 1)] = between(0, 1) ? INFINITY : -INFINITY;
}

/* Runs reg on the case into output slot `slot`; returns its status. */
static pl_status run_conv(const conv_case *c, const pl_registration *reg, int slot,
                          const int32_t *od)
{
    kh_setup();
    int32_t ind[4] = {c->batch, c->h, c->w, c->ic}, fd[4] = {c->oc, c->kh, c->kw, c->ic};
    int32_t bd[1] = {c->oc};
    size_t n_in = (size_t)c->batch * (size_t)(c->h * c->w * c->ic);
    size_t n_f = (size_t)c->oc * (size_t)(c->kh * c->kw * c->ic);
    size_t n_out = (size_t)od[0] * (size_t)(od[1] * od[2] * od[3]);
    float bias_scale[MAX_OC];
    int64_t zeros[MAX_OC] = {0}, in_zp = c->in_zp, out_zp = c->out_zp;
    uint32_t nscales = c->per_channel ? (uint32_t)c->oc : 1u;
    for (int32_t k = 0; k < c->oc; k++)
        bias_scale[k] = c->in_scale * c->f_scale[c->per_channel ? k : 0];
    int32_t ins[3], outs[1];
    if (c->f32) {
        ins[0] = kt_tensor_f32(4, ind, in32, n_in);
        ins[1] = kt_tensor_f32(4, fd, f32, n_f);
        ins[2] = kt_tensor_f32(1, bd, bias32f, (size_t)c->oc);
        outs[0] = kt_tensor_f32(4, od, out32[slot], n_out);
    } else {
        ins[0] = kh_tensor(PL_INT8, 4, ind, in8, n_in, &c->in_scale, &in_zp, 1, 0);
        ins[1] = kh_tensor(PL_INT8, 4, fd, f8, n_f, c->f_scale, zeros, nscales, 0);
        ins[2] = kh_tensor(PL_INT32, 1, bd, bias32, sizeof(int32_t) * (size_t)c->oc,
                           bias_scale, zeros, nscales, 0);
        outs[0] = kh_tensor(PL_INT8, 4, od, out8[slot], n_out, &c->out_scale, &out_zp, 1, 0);
    }
    kh.tensors[ins[1]].is_constant = true;
    kh.tensors[ins[2]].is_constant = true;
    kt_opts o;
    const int32_t fields[6] = {c->padding, c->stride_w, c->stride_h, c->act, c->dil_w,
                               c->dil_h};
    return kh_run(reg, ins, c->bias ? 3 : 2, outs, 1, kt_make_opts(&o, fields, 6));
}

static void conv_case_matches(pl_fast_resolver *r, const conv_case *c, int *failures)
{
    int32_t oh = pl_pad_out_size(c->padding, c->h, c->kh, c->stride_h, c->dil_h);
    int32_t ow = pl_pad_out_size(c->padding, c->w, c->kw, c->stride_w, c->dil_w);
    if (oh <= 0 || ow <= 0)
        return;
    int32_t od[4] = {c->batch, oh, ow, c->oc};
    size_t n_out = (size_t)c->batch * (size_t)(oh * ow * c->oc);
    fill_conv_data(c, (size_t)c->batch * (size_t)(c->h * c->w * c->ic),
                   (size_t)c->oc * (size_t)(c->kh * c->kw * c->ic));
    const pl_registration *fast = r->resolver.find(r, 3, NULL, 0, 1);
    if (run_conv(c, pl_conv_registration(), 0, od) != PL_OK ||
        run_conv(c, fast, 1, od) != PL_OK) {
        (*failures)++;
        return;
    }
    fast_cases += r->host_bytes > r->capacity * sizeof(pl_fast_slot); /* a block, not the slots */
    bool same = c->f32 ? memcmp(out32[0], out32[1], n_out * sizeof(float)) == 0
                       : memcmp(out8[0], out8[1], n_out) == 0;
    if (!same) {
        fprintf(stderr, "conv differs: %s %dx%dx%dx%d oc %d k %dx%d s %d,%d d %d,%d pad %d "
                "act %d zp %d/%d bias %d\n", c->f32 ? "f32" : "int8", c->batch, c->h, c->w,
                c->ic, c->oc, c->kh, c->kw, c->stride_h, c->stride_w, c->dil_h, c->dil_w,
                c->padding, c->act, c->in_zp, c->out_zp, c->bias);
        (*failures)++;
    }
    pl_fast_resolver_release(r);
}

/* On threads threads (every job split), cases random convolutions against the portable
** kernel on every instruction set. */
static void conv_cases_equal_portable(int32_t threads, int cases)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        pl_fast_resolver r;
        CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
        r.poison_scratch = true;
        split_every_job(&r, threads);
        int failures = 0;
        fast_cases = 0;
        for (int n = 0; n < cases; n++) {
            conv_case c;
            random_conv(&c);
            conv_case_matches(&r, &c, &failures);
        }
        pl_fast_resolver_release(&r);
        printf("  %s, %d threads: conv %d fast cases, %llu split jobs\n",
               pl_fast_isa_name((pl_isa)isa), threads, fast_cases,
               (unsigned long long)r.parallel_jobs);
        CHECK_EQ(pl_fast_resolver_set_threads(&r, 1), PL_OK);
        CHECK_EQ(failures, 0);
        CHECK(fast_cases > cases / 2);
        CHECK(threads == 1 || r.parallel_jobs > (uint64_t)cases / 8);
    }
}

/* Float filters with an infinite weight: the portable kernel's bits (NaN and infinities
** where it makes them), and no fast plan. */
static void conv_infinite_weight_declines(void)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        pl_fast_resolver r;
        CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
        int failures = 0;
        fast_cases = 0;
        conv_infinite_weight = true;
        for (int n = 0; n < 150; n++) {
            conv_case c;
            random_conv(&c);
            c.f32 = true;
            conv_case_matches(&r, &c, &failures);
        }
        conv_infinite_weight = false;
        pl_fast_resolver_release(&r);
        CHECK_EQ(failures, 0);
        CHECK_EQ(fast_cases, 0);
    }
}

static void conv_fast_paths_equal_portable(void)
{
    conv_cases_equal_portable(1, 400);
}

/* Split over threads, every output as one thread computes it. */
static void conv_threads_equal_portable(void)
{
    conv_cases_equal_portable(3, 200);
}

/* A float convolution whose windows are read in place one output column at a time (rows
** of under 8 points over columns of 8 or more: a keyword-spotting net's first layer), with
** enough output channels, in half the cases, that 3 threads split them in blocks. */
static void column_case(pl_fast_resolver *r, int *failures)
{
    conv_case c;
    random_conv(&c);
    c.f32 = true;
    c.h = between(8, 12);
    c.w = between(1, 7);
    c.stride_h = 1;
    c.dil_h = 1;
    c.kh = between(1, 3);
    c.oc = between(0, 1) ? between(128, MAX_OC) : between(1, 40);
    conv_case_matches(r, &c, failures);
}

/* A convolution of 1 to 8 output channels, unit horizontal stride and rows of 8 or more
** points: conv_narrow.c's points in the lanes, float on AVX2 (up to 4 channels) and AVX-512
** (some infinite inputs at times), int8 on AVX-512 (any zero points, per-channel scales or
** not, channels not a multiple of 4); every such case must take it there. */
static void narrow_case(pl_fast_resolver *r, int *failures)
{
    conv_case c;
    random_conv(&c);
    c.f32 = between(0, 1);
    c.batch = between(1, 2);
    c.h = between(1, 6);
    c.ic = between(1, 8);
    c.w = between(8, 40);
    c.kw = between(1, 5);
    c.stride_w = 1;
    c.dil_w = between(1, 2);
    c.oc = between(1, 8);
    conv_special_inputs = c.f32 && between(0, 3) == 0;
    const int32_t ow = pl_pad_out_size(c.padding, c.w, c.kw, 1, c.dil_w);
    const int32_t oh = pl_pad_out_size(c.padding, c.h, c.kh, c.stride_h, c.dil_h);
    const uint64_t before = r->narrow_convs;
    conv_case_matches(r, &c, failures);
    conv_special_inputs = false;
    const pl_narrow_kernels *k = pl_narrow_for(r->isa);
    const pl_narrow_s8_kernels *k8 = pl_narrow_s8_for(r->isa);
    const int32_t lanes = c.f32 ? (k ? k->lanes : 0) : (k8 ? k8->lanes : 0);
    const int32_t max_n = c.f32 ? (k ? k->max_n : 0) : (k8 ? k8->max_n : 0);
    const bool expect = lanes > 0 && oh > 0 && c.oc <= max_n && ow >= lanes / 2;
    if ((r->narrow_convs > before) != expect) {
        fprintf(stderr, "narrow conv %s: oc %d ow %d\n", expect ? "not taken" : "taken",
                c.oc, ow);
        (*failures)++;
    }
}

static bool gemm_fuses(pl_isa isa)
{
    return pl_gemm_f32_run(pl_gemm_f32_for(isa), true) != NULL;
}

static void conv_narrow_equals_portable(void)
{
    fast_variants_equal_portable(&portable, &kh_ctx.fused_madd, gemm_fuses, 150, narrow_case);
}

static void conv_columns_equal_portable(void)
{
    fast_variants_equal_portable(&portable, &kh_ctx.fused_madd, gemm_fuses, 60, column_case);
}

/* A fused target (ctx->fused_madd, as tflm): float convolutions through VFMADD/FMLA equal
** the portable kernel's fmaf on every instruction set with FMA, and SSE4.1 declines them;
** some outputs differ from the unfused sums, so the cases do tell the two apart. */
static void conv_fused_fast_paths_equal_portable(void)
{
    static float unfused[MAX_OUT];
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        const bool can = pl_gemm_f32_run(pl_gemm_f32_for((pl_isa)isa), true) != NULL;
        pl_fast_resolver r;
        CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
        r.poison_scratch = true;
        int failures = 0, cases = 0, differ = 0;
        fast_cases = 0;
        for (int n = 0; n < 150; n++) {
            conv_case c;
            random_conv(&c);
            c.f32 = true;
            int32_t oh = pl_pad_out_size(c.padding, c.h, c.kh, c.stride_h, c.dil_h);
            int32_t ow = pl_pad_out_size(c.padding, c.w, c.kw, c.stride_w, c.dil_w);
            if (oh <= 0 || ow <= 0)
                continue;
            int32_t od[4] = {c.batch, oh, ow, c.oc};
            kh_ctx.fused_madd = true;
            cases++;
            conv_case_matches(&r, &c, &failures);
            kh_ctx.fused_madd = false;
            CHECK_EQ(run_conv(&c, pl_conv_registration(), 1, od), PL_OK);
            size_t n_out = (size_t)c.batch * (size_t)(oh * ow * c.oc);
            memcpy(unfused, out32[1], sizeof(float) * n_out);
            for (size_t i = 0; i < n_out; i++)
                differ += unfused[i] != out32[0][i];
        }
        pl_fast_resolver_release(&r);
        printf("  %s, fused: conv %d fast cases of %d, %d outputs not the unfused sums'\n",
               pl_fast_isa_name((pl_isa)isa), fast_cases, cases, differ);
        CHECK_EQ(failures, 0);
        CHECK_EQ(fast_cases, can ? cases : 0);
        CHECK(differ > 0);
    }
}

/* FULLY_CONNECTED: batches x depth by units, weights per-tensor or per-unit. */
static bool fc_case_matches(pl_fast_resolver *r, bool is_f32)
{
    int32_t batches = between(1, 30), depth = between(1, 300), units = between(0, 2) == 0 ? between(41, MAX_OC) : between(1, 40);
    bool per_channel = between(0, 1) == 1, with_bias = between(0, 3) != 0;
    int32_t act = (int32_t[]){0, 1, 3}[between(0, 2)];
    float in_scale = 0.02f + (float)between(1, 50) / 500.0f, out_scale = 0.6f + 0.5f * unit();
    /* now and then an output scale that saturates most outputs, or one that rounds most to
    ** the zero point (a multiplier's shift far right) */
    out_scale = (float[]){out_scale, out_scale, out_scale, 0.004f, 40.0f}[between(0, 4)];
    float f_scale[MAX_OC], bias_scale[MAX_OC];
    int64_t zeros[MAX_OC] = {0}, in_zp = between(-128, 127), out_zp = between(-128, 127);
    for (int32_t k = 0; k < units; k++) {
        f_scale[k] = 0.001f + 0.02f * (float)between(1, 100) / 100.0f;
        bias_scale[k] = in_scale * f_scale[per_channel ? k : 0];
    }
    conv_case data = {.oc = units};
    fill_conv_data(&data, (size_t)batches * (size_t)depth, (size_t)units * (size_t)depth);
    int32_t ind[2] = {batches, depth}, fd[2] = {units, depth}, bd[1] = {units};
    int32_t od[2] = {batches, units};
    size_t n_in = (size_t)batches * (size_t)depth, n_f = (size_t)units * (size_t)depth;
    size_t n_out = (size_t)batches * (size_t)units;
    uint32_t nscales = per_channel ? (uint32_t)units : 1u;
    for (int slot = 0; slot < 2; slot++) {
        kh_setup();
        int32_t ins[3], outs[1];
        if (is_f32) {
            ins[0] = kt_tensor_f32(2, ind, in32, n_in);
            ins[1] = kt_tensor_f32(2, fd, f32, n_f);
            ins[2] = kt_tensor_f32(1, bd, bias32f, (size_t)units);
            outs[0] = kt_tensor_f32(2, od, out32[slot], n_out);
        } else {
            ins[0] = kh_tensor(PL_INT8, 2, ind, in8, n_in, &in_scale, &in_zp, 1, 0);
            ins[1] = kh_tensor(PL_INT8, 2, fd, f8, n_f, f_scale, zeros, nscales, 0);
            ins[2] = kh_tensor(PL_INT32, 1, bd, bias32, sizeof(int32_t) * (size_t)units,
                               bias_scale, zeros, nscales, 0);
            outs[0] = kh_tensor(PL_INT8, 2, od, out8[slot], n_out, &out_scale, &out_zp, 1, 0);
        }
        kh.tensors[ins[1]].is_constant = true;
        kh.tensors[ins[2]].is_constant = true;
        kt_opts o;
        const int32_t fields[1] = {act};
        const pl_registration *reg = slot == 0 ? pl_fully_connected_registration()
                                               : r->resolver.find(r, 9, NULL, 0, 1);
        if (kh_run(reg, ins, with_bias ? 3 : 2, outs, 1, kt_make_opts(&o, fields, 1)) != PL_OK) {
            fprintf(stderr, "fully connected refused: %s\n", kh.message);
            return false;
        }
    }
    fast_cases += r->host_bytes > 0;
    pl_fast_resolver_release(r);
    for (size_t i = 0; i < n_out; i++)
        if (is_f32 ? out32[0][i] != out32[1][i] : out8[0][i] != out8[1][i]) {
            fprintf(stderr, "fully connected differs: %s %dx%d by %d units, element %zu: "
                    "%g != %g\n", is_f32 ? "f32" : "int8", batches, depth, units, i,
                    is_f32 ? (double)out32[0][i] : out8[0][i],
                    is_f32 ? (double)out32[1][i] : out8[1][i]);
            return false;
        }
    return true;
}

/* In TFLM's arithmetic (the int8 sums through the vector integer output stage) and in
** LiteRT's (rescaled in double lanes). */
/* Split over threads by blocks of units (TFLM's arithmetic and float; LiteRT's int8 double
** stage stays on one thread), every output as one thread computes it. */
static void fully_connected_threads_equal_portable(void)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        pl_fast_resolver r;
        CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
        r.poison_scratch = true;
        split_every_job(&r, 3);
        int failures = 0;
        fast_cases = 0;
        for (int n = 0; n < 200; n++)
            failures += !fc_case_matches(&r, n % 2 == 0);
        pl_fast_resolver_release(&r);
        CHECK_EQ(pl_fast_resolver_set_threads(&r, 1), PL_OK);
        printf("  %s, 3 threads: fully connected %d fast cases, %llu split jobs\n",
               pl_fast_isa_name((pl_isa)isa), fast_cases, (unsigned long long)r.parallel_jobs);
        CHECK_EQ(failures, 0);
        CHECK_EQ(fast_cases, 200);
        CHECK(r.parallel_jobs > 10);
    }
}

static void fully_connected_fast_paths_equal_portable(void)
{
    static const pl_arith ariths[2] = {PL_ARITH_TFLM, PL_ARITH_LITERT};
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        const uint64_t cases = rng_state; /* the same cases in both arithmetics */
        for (int a = 0; a < 2; a++) {
            kh_ctx.arith = ariths[a];
            rng_state = cases;
            pl_fast_resolver r;
            CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
            r.poison_scratch = true;
            int failures = 0;
            fast_cases = 0;
            for (int n = 0; n < 300; n++)
                failures += !fc_case_matches(&r, n % 3 == 0);
            pl_fast_resolver_release(&r);
            printf("  %s, %s arithmetic: fully connected %d fast cases\n",
                   pl_fast_isa_name((pl_isa)isa), a == 0 ? "TFLM" : "LiteRT", fast_cases);
            CHECK_EQ(failures, 0);
            CHECK_EQ(fast_cases, 300);
        }
        kh_ctx.arith = PL_ARITH_TFLM;
        /* a fused target's float units: VFMADD/FMLA, or the portable kernel without FMA */
        const bool can = pl_gemm_f32_run(pl_gemm_f32_for((pl_isa)isa), true) != NULL;
        pl_fast_resolver r;
        CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
        r.poison_scratch = true;
        kh_ctx.fused_madd = true;
        int failures = 0;
        fast_cases = 0;
        for (int n = 0; n < 100; n++)
            failures += !fc_case_matches(&r, true);
        kh_ctx.fused_madd = false;
        pl_fast_resolver_release(&r);
        printf("  %s, fused: fully connected %d fast cases\n", pl_fast_isa_name((pl_isa)isa),
               fast_cases);
        CHECK_EQ(failures, 0);
        CHECK_EQ(fast_cases, can ? 100 : 0);
    }
}

/* FULLY_CONNECTED's int8 output stage of every set against the portable kernel's, on the
** values where rounding in double is delicate: scales that put sums exactly on halves, sums
** and folds at the int32 limits (their additions wrap), saturating results, every tail. */
static void fc_output_rounds_as_the_portable_kernel(void)
{
    static const double scales[] = {0.5, 0.25, 0.75, 1.0, 1.5, 3.0, 0x1p-20, 1.0 / 3, 0.1};
    static const int32_t extremes[] = {INT32_MIN, INT32_MIN + 1, -1, 0, 1, INT32_MAX - 1,
                                       INT32_MAX};
    enum { UNITS = 41 };
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        const pl_gemm_s8 *g8 = pl_gemm_s8_for((pl_isa)isa);
        if (g8 == NULL || !pl_fast_isa_available((pl_isa)isa))
            continue;
        int failures = 0;
        for (int k = 0; k < 400; k++) {
            int32_t n = between(1, UNITS), sums[UNITS], fold[UNITS], bias[UNITS];
            double scale[UNITS];
            int8_t want[UNITS], got[UNITS];
            for (int32_t u = 0; u < n; u++) {
                bool edge = between(0, 3) == 0;
                sums[u] = edge ? extremes[between(0, 6)] : between(-40000, 40000);
                fold[u] = between(0, 5) == 0 ? extremes[between(0, 6)] : between(-9000, 9000);
                bias[u] = between(-20000, 20000);
                scale[u] = between(0, 2) ? scales[between(0, 8)] : 0.001 * unit();
            }
            bool with_bias = between(0, 1) == 1;
            pl_fully_connected_params p = {0};
            p.units = n;
            p.output_offset = between(-128, 127);
            p.act_min = between(0, 1) ? -128 : between(-128, 0);
            p.act_max = between(0, 1) ? 127 : between(0, 127);
            p.scale = scale;
            p.per_channel = true;
            for (int32_t u = 0; u < n; u++)
                want[u] = pl_fully_connected_s8_output(
                    &p, (int32_t)((uint32_t)sums[u] + (uint32_t)fold[u]),
                    with_bias ? bias : NULL, u);
            const pl_fc_output o = {&p, fold, with_bias ? bias : NULL, scale};
            g8->fc_output(&o, sums, n, got);
            failures += memcmp(want, got, (size_t)n) != 0;
        }
        printf("  %s: fully connected output stage\n", pl_fast_isa_name((pl_isa)isa));
        CHECK_EQ(failures, 0);
    }
}

/* An int8 convolution on 3 channels whose input copy would pass the in-place limit (2^22
** values: 1200x1200x3) gathers its windows as before, with its filter as it is, not widened:
** one case against the portable kernel on every set. */
static void conv_past_the_copy_limit_equals_portable(void)
{
    enum { H = 1200, W = 1200, C = 3, OC = 5, S = 8, OH = H / S, OW = W / S };
    int8_t *in = malloc((size_t)H * W * C), *out[2] = {malloc(OH * OW * OC), malloc(OH * OW * OC)};
    int8_t f[OC * 3 * 3 * C];
    int32_t bias[OC];
    CHECK(in != NULL && out[0] != NULL && out[1] != NULL);
    for (size_t i = 0; i < (size_t)H * W * C; i++)
        in[i] = (int8_t)between(-128, 127);
    for (size_t i = 0; i < sizeof f; i++)
        f[i] = (int8_t)between(-127, 127);
    for (int32_t k = 0; k < OC; k++)
        bias[k] = between(-20000, 20000);
    float in_scale = 0.05f, out_scale = 0.7f, f_scale = 0.01f, bias_scale = in_scale * f_scale;
    int64_t zero = 0, in_zp = 9, out_zp = -3;
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        pl_fast_resolver r;
        CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
        r.poison_scratch = true;
        for (int slot = 0; slot < 2; slot++) {
            kh_setup();
            int32_t ind[4] = {1, H, W, C}, fd[4] = {OC, 3, 3, C}, bd[1] = {OC};
            int32_t od[4] = {1, OH, OW, OC}, ins[3], outs[1];
            ins[0] = kh_tensor(PL_INT8, 4, ind, in, (size_t)H * W * C, &in_scale, &in_zp, 1, 0);
            ins[1] = kh_tensor(PL_INT8, 4, fd, f, sizeof f, &f_scale, &zero, 1, 0);
            ins[2] = kh_tensor(PL_INT32, 1, bd, bias, sizeof bias, &bias_scale, &zero, 1, 0);
            outs[0] = kh_tensor(PL_INT8, 4, od, out[slot], OH * OW * OC, &out_scale, &out_zp,
                                1, 0);
            kh.tensors[ins[1]].is_constant = true;
            kh.tensors[ins[2]].is_constant = true;
            kt_opts o;
            const int32_t fields[6] = {1 /* SAME */, S, S, 0, 1, 1};
            const pl_registration *reg = slot == 0 ? pl_conv_registration()
                                                   : r.resolver.find(&r, 3, NULL, 0, 1);
            CHECK_EQ(kh_run(reg, ins, 3, outs, 1, kt_make_opts(&o, fields, 6)), PL_OK);
        }
        CHECK(r.host_bytes > 0); /* the fast path ran (gathering) */
        CHECK(memcmp(out[0], out[1], OH * OW * OC) == 0);
        pl_fast_resolver_release(&r);
    }
    free(in);
    free(out[0]);
    free(out[1]);
}

/* An int32 near x * 2^(31 + right) / mult = t, the value whose rescale is t. */
static int32_t sum_near(double t, int32_t mult, int32_t right)
{
    double x = floor(t * ldexp(1.0, 31 + right) / (double)mult) + between(-2, 2);
    return x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : (int32_t)x;
}

/* The int8 products' output stage of every set (the quick float form and the exact one)
** against TFLite's rescale, on sums the weights leave to the addend: sums near rounding
** ties (where the two roundings of the exact form part from one rounding) and near the
** ties of a value moved 2^-(right+1) away from zero (the tilted form's), far from them,
** at the int32 limits, with left shifts, shifts of 0 to 31 and saturating results. */
static void s8_stage_rounds_as_the_portable_kernel(void)
{
    enum { UNITS = 41, LANES = 48 };
    static const int32_t extremes[] = {INT32_MIN, INT32_MIN + 1, -1, 0, 1, INT32_MAX};
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        const pl_gemm_s8 *g8 = pl_gemm_s8_for((pl_isa)isa);
        if (g8 == NULL || !pl_fast_isa_available((pl_isa)isa))
            continue;
        int failures = 0;
        for (int c = 0; c < 3000; c++) {
            int32_t n = between(1, UNITS), rows = between(1, 13);
            int32_t mult[UNITS], shift[UNITS], sums[UNITS], arrays[PL_S8_STAGE_ARRAYS * LANES];
            int8_t w[UNITS * 4] = {0}, got[13 * UNITS], want[UNITS];
            uint8_t a[13 * 4], packed[UNITS * 4 + 64 * 16];
            for (int32_t i = 0; i < rows * 4; i++)
                a[i] = (uint8_t)between(0, 255);
            const int32_t out_offset = between(-128, 127);
            const int32_t act_min = between(0, 1) ? -128 : between(-128, 0);
            const int32_t act_max = between(0, 1) ? 127 : between(act_min, 127);
            for (int32_t u = 0; u < n; u++) {
                mult[u] = between(0, 9) == 0 ? between(0, 1 << 30) : between(1 << 30, INT32_MAX);
                shift[u] = between(0, 7) == 0 ? between(1, 3) : -between(0, 31);
                int32_t right = shift[u] > 0 ? 0 : -shift[u];
                double tie = between(-300, 300) + 0.5;
                int32_t kind = between(0, 9);
                if (kind >= 4 && kind < 6) /* where a tilted quick form's tie lies (AVX-512) */
                    tie -= copysign(ldexp(1.0, -(right + 1)), tie);
                sums[u] = kind < 6 && mult[u] > 0 ? sum_near(tie, mult[u], right)
                          : kind < 8           ? (int32_t)rnd()
                                               : extremes[between(0, 5)];
                want[u] = (int8_t)pl_fx_clamp(pl_fx_mul_by_qm(sums[u], mult[u], shift[u]) +
                                                  out_offset, act_min, act_max);
            }
            const pl_s8_requant q = {between(-128, 127), mult, shift, out_offset, act_min,
                                     act_max};
            pl_s8_stage st;
            CHECK(pl_fast_s8_stage_init(&q, w, n, 4, sums, arrays,
                                        pl_fast_round_up(n, PL_FAST_LANES), &st));
            CHECK(g8->packed_bytes(n, 4) <= sizeof packed);
            g8->pack(w, n, 4, 4, packed);
            g8->run(rows, n, 4, a, 4, packed, &st, got, NULL, (size_t)n);
            for (int32_t r = 0; r < rows; r++)
                failures += memcmp(want, got + (size_t)r * (size_t)n, (size_t)n) != 0;
        }
        printf("  %s: int8 output stage\n", pl_fast_isa_name((pl_isa)isa));
        CHECK_EQ(failures, 0);
    }
}

/* The portable "instruction set" hands out the base registrations unchanged. */
static void portable_isa_keeps_the_base_registrations(void)
{
    pl_fast_resolver r;
    CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, PL_ISA_PORTABLE), PL_OK);
    CHECK(r.resolver.find(&r, 3, NULL, 0, 1) == pl_conv_registration());
    CHECK(pl_fast_isa_available(PL_ISA_PORTABLE));
    CHECK(pl_fast_isa_available(pl_fast_best_isa()));
    CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, PL_ISA_COUNT), PL_ERR_ARG);
}

int main(void)
{
    RUN(portable_isa_keeps_the_base_registrations);
    RUN(conv_fast_paths_equal_portable);
    RUN(conv_infinite_weight_declines);
    RUN(conv_threads_equal_portable);
    RUN(conv_fused_fast_paths_equal_portable);
    RUN(conv_columns_equal_portable);
    RUN(conv_narrow_equals_portable);
    RUN(conv_past_the_copy_limit_equals_portable);
    RUN(fully_connected_fast_paths_equal_portable);
    RUN(fully_connected_threads_equal_portable);
    RUN(fc_output_rounds_as_the_portable_kernel);
    RUN(s8_stage_rounds_as_the_portable_kernel);
    return HARNESS_END();
}
