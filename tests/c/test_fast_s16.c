/* test_fast_s16.c - the 16x8 fast paths (int16 activations, int8 weights) against the
** portable kernels they replace, output for output: randomized shapes, strides, paddings,
** dilations, activations, depth multipliers and per-channel scales; int64, int32 or no bias
** (the accumulator then from quantized_bias_type); depths past the int32 blocks the kernels
** widen between, and depthwise windows up to 15x15; extreme inputs and weights (-32768 x
** -128 everywhere), whose sums leave int32. Every instruction set this CPU runs is tested,
** and each has 16x8 kernels that must take most cases (SSE4.1 and NEON too: built for arm64
** and run under qemu by tests/test_fast_arm64.py); CI runs this under ASan and UBSan. */
#include "fast/depthwise16.h"
#include "fast/gemm16.h"
#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/common/padding.h"
#include "kernels/conv/conv.h"
#include "kernels/conv/depthwise_conv.h"
#include "kernels/conv/fully_connected.h"
#include "picolite/pl_fast.h"

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == 3 ? pl_conv_registration()
         : code == 4 ? pl_depthwise_conv_registration()
         : code == 9 ? pl_fully_connected_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

enum { MAX_IN = 120000, MAX_F = 160000, MAX_OUT = 2 * 12 * 12 * 40, MAX_C = 40 };

/* Bias kinds: int64, int32, none with an int64 accumulator, none with an int32 one. */
enum { BIAS64, BIAS32, NONE64, NONE32 };

static int16_t in16[MAX_IN], out16[2][MAX_OUT];
/* Outputs compared, and those off the int16 limits and 0 (the rescale really tested). */
static size_t compared, interior;

static void count_interior(size_t n)
{
    compared += n;
    for (size_t i = 0; i < n; i++)
        interior += out16[0][i] != INT16_MIN && out16[0][i] != INT16_MAX && out16[0][i] != 0;
}
static int8_t f8[MAX_F];
static int64_t bias64[MAX_C];
static int32_t bias32[MAX_C];

/* Inputs and weights: random, or (extreme) mostly the extremes, all -32768 x -128 at times. */
static void fill_data(size_t n_in, size_t n_f, int32_t n_bias, bool extreme)
{
    bool worst = extreme && between(0, 1) == 0;
    for (size_t i = 0; i < n_in; i++)
        in16[i] = worst ? INT16_MIN
                  : extreme ? (int16_t)(between(0, 3) == 0 ? between(-32768, 32767)
                                                           : between(0, 1) ? 32767 : -32768)
                            : (int16_t)between(-32768, 32767);
    for (size_t i = 0; i < n_f; i++)
        f8[i] = worst ? INT8_MIN
                : extreme ? (int8_t)(between(0, 1) ? 127 : -128) : (int8_t)between(-127, 127);
    for (int32_t k = 0; k < n_bias; k++) {
        bias64[k] = (int64_t)between(-1000000000, 1000000000) * between(-8, 8);
        bias32[k] = between(-2000000, 2000000);
    }
}

/* An output scale that leaves the typical sum of k products within int16 (not saturated). */
static float out_scale_for(float in_scale, float f_scale, int32_t k, bool extreme)
{
    int32_t root = 1;
    while (root * root < k)
        root++;
    float spread = extreme ? (float)k * 4.0f : (float)root;
    return in_scale * f_scale * spread * (float)between(20, 400);
}

typedef struct conv_case {
    int32_t batch, h, w, ic, oc, kh, kw, stride_h, stride_w, dil_h, dil_w, padding, act;
    int32_t bias_kind;
    bool per_channel, extreme;
    float in_scale, out_scale, f_scale[MAX_C];
} conv_case;

static void random_conv(conv_case *c)
{
    memset(c, 0, sizeof *c);
    bool deep = between(0, 4) == 0; /* depths past the int32 blocks */
    c->batch = between(1, 2);
    c->h = between(1, deep ? 6 : 12);
    c->w = between(1, deep ? 6 : 12);
    c->ic = deep ? between(200, 1500) : between(1, 24);
    c->oc = between(1, deep ? 20 : 40);
    c->kh = between(1, deep ? 2 : 5);
    c->kw = between(1, deep ? 2 : 5);
    c->stride_h = between(1, 3);
    c->stride_w = between(1, 3);
    c->dil_h = between(1, 3);
    c->dil_w = between(1, 3);
    c->padding = between(0, 1);
    c->act = (int32_t[]){0, 1, 3}[between(0, 2)];
    c->bias_kind = between(BIAS64, NONE32);
    c->per_channel = between(0, 1) == 1;
    c->extreme = between(0, 5) == 0;
    c->in_scale = 0.0001f + 0.001f * (float)between(1, 50) / 50.0f;
    for (int32_t k = 0; k < c->oc; k++)
        c->f_scale[k] = 0.002f + 0.05f * (float)between(1, 100) / 100.0f;
    c->out_scale = out_scale_for(c->in_scale, c->f_scale[0], c->kh * c->kw * c->ic, c->extreme);
}

static pl_status run_conv(const conv_case *c, const pl_registration *reg, int slot,
                          const int32_t *od)
{
    kh_setup();
    int32_t ind[4] = {c->batch, c->h, c->w, c->ic}, fd[4] = {c->oc, c->kh, c->kw, c->ic};
    int32_t bd[1] = {c->oc};
    size_t n_in = (size_t)c->batch * (size_t)(c->h * c->w * c->ic);
    size_t n_f = (size_t)c->oc * (size_t)(c->kh * c->kw * c->ic);
    size_t n_out = (size_t)od[0] * (size_t)(od[1] * od[2] * od[3]);
    float bias_scale[MAX_C];
    int64_t zeros[MAX_C] = {0};
    uint32_t nscales = c->per_channel ? (uint32_t)c->oc : 1u;
    for (int32_t k = 0; k < c->oc; k++)
        bias_scale[k] = c->in_scale * c->f_scale[c->per_channel ? k : 0];
    int32_t ins[3], outs[1];
    ins[0] = kh_tensor(PL_INT16, 4, ind, in16, n_in * 2, &c->in_scale, zeros, 1, 0);
    ins[1] = kh_tensor(PL_INT8, 4, fd, f8, n_f, c->f_scale, zeros, nscales, 0);
    if (c->bias_kind == BIAS32)
        ins[2] = kh_tensor(PL_INT32, 1, bd, bias32, sizeof(int32_t) * (size_t)c->oc,
                           bias_scale, zeros, nscales, 0);
    else
        ins[2] = kh_tensor(PL_INT64, 1, bd, bias64, sizeof(int64_t) * (size_t)c->oc,
                           bias_scale, zeros, nscales, 0);
    outs[0] = kh_tensor(PL_INT16, 4, od, out16[slot], n_out * 2, &c->out_scale, zeros, 1, 0);
    kh.tensors[ins[1]].is_constant = true;
    kh.tensors[ins[2]].is_constant = true;
    kt_opts o;
    const int32_t fields[7] = {c->padding, c->stride_w, c->stride_h, c->act, c->dil_w,
                               c->dil_h, c->bias_kind == NONE32 ? PL_INT32 : PL_INT64};
    bool with_bias = c->bias_kind == BIAS64 || c->bias_kind == BIAS32;
    return kh_run(reg, ins, with_bias ? 3 : 2, outs, 1, kt_make_opts(&o, fields, 7));
}

static void conv_case_matches(pl_fast_resolver *r, const conv_case *c, int *failures)
{
    int32_t oh = pl_pad_out_size(c->padding, c->h, c->kh, c->stride_h, c->dil_h);
    int32_t ow = pl_pad_out_size(c->padding, c->w, c->kw, c->stride_w, c->dil_w);
    if (oh <= 0 || ow <= 0)
        return;
    int32_t od[4] = {c->batch, oh, ow, c->oc};
    size_t n_out = (size_t)c->batch * (size_t)(oh * ow * c->oc);
    fill_data((size_t)c->batch * (size_t)(c->h * c->w * c->ic),
              (size_t)c->oc * (size_t)(c->kh * c->kw * c->ic), c->oc, c->extreme);
    const pl_registration *fast = r->resolver.find(r, 3, NULL, 0, 1);
    if (run_conv(c, pl_conv_registration(), 0, od) != PL_OK ||
        run_conv(c, fast, 1, od) != PL_OK) {
        fprintf(stderr, "conv refused: %s\n", kh.message);
        (*failures)++;
        return;
    }
    fast_cases += r->host_bytes > 0;
    count_interior(n_out);
    if (memcmp(out16[0], out16[1], n_out * 2) != 0) {
        fprintf(stderr, "16x8 conv differs: %dx%dx%dx%d oc %d k %dx%d s %d,%d d %d,%d pad %d "
                "act %d bias kind %d extreme %d\n", c->batch, c->h, c->w, c->ic, c->oc,
                c->kh, c->kw, c->stride_h, c->stride_w, c->dil_h, c->dil_w, c->padding,
                c->act, c->bias_kind, c->extreme);
        (*failures)++;
    }
    pl_fast_resolver_release(r);
}

static void conv_s16_fast_paths_equal_portable(void)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        pl_fast_resolver r;
        CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
        r.poison_scratch = true;
        int failures = 0;
        fast_cases = 0;
        compared = interior = 0;
        for (int n = 0; n < 400; n++) {
            conv_case c;
            random_conv(&c);
            conv_case_matches(&r, &c, &failures);
        }
        pl_fast_resolver_release(&r);
        printf("  %s: 16x8 conv %d fast cases, %zu of %zu outputs inside the range\n",
               pl_fast_isa_name((pl_isa)isa), fast_cases, interior, compared);
        CHECK_EQ(failures, 0);
        CHECK(interior > compared / 2);
        CHECK(pl_gemm_s16_for((pl_isa)isa) != NULL);
        CHECK(fast_cases > 200);
    }
}

/* FULLY_CONNECTED: batches x depth by units, weights per-tensor or per-unit. */
static bool fc_case_matches(pl_fast_resolver *r)
{
    bool deep = between(0, 3) == 0, extreme = between(0, 5) == 0;
    int32_t batches = between(1, deep ? 4 : 30), depth = deep ? between(300, 3000)
                                                              : between(1, 300);
    int32_t units = between(1, MAX_C), bias_kind = between(BIAS64, NONE32);
    bool per_channel = between(0, 1) == 1;
    int32_t act = (int32_t[]){0, 1, 3}[between(0, 2)];
    float in_scale = 0.0001f + (float)between(1, 50) / 50000.0f, f_scale[MAX_C];
    float bias_scale[MAX_C];
    int64_t zeros[MAX_C] = {0};
    for (int32_t k = 0; k < units; k++) {
        f_scale[k] = 0.001f + 0.02f * (float)between(1, 100) / 100.0f;
        bias_scale[k] = in_scale * f_scale[per_channel ? k : 0];
    }
    float out_scale = out_scale_for(in_scale, f_scale[0], depth, extreme);
    fill_data((size_t)batches * (size_t)depth, (size_t)units * (size_t)depth, units, extreme);
    int32_t ind[2] = {batches, depth}, fd[2] = {units, depth}, bd[1] = {units};
    int32_t od[2] = {batches, units};
    size_t n_in = (size_t)batches * (size_t)depth, n_f = (size_t)units * (size_t)depth;
    size_t n_out = (size_t)batches * (size_t)units;
    uint32_t nscales = per_channel ? (uint32_t)units : 1u;
    bool with_bias = bias_kind == BIAS64 || bias_kind == BIAS32;
    for (int slot = 0; slot < 2; slot++) {
        kh_setup();
        int32_t ins[3], outs[1];
        ins[0] = kh_tensor(PL_INT16, 2, ind, in16, n_in * 2, &in_scale, zeros, 1, 0);
        ins[1] = kh_tensor(PL_INT8, 2, fd, f8, n_f, f_scale, zeros, nscales, 0);
        if (bias_kind == BIAS32)
            ins[2] = kh_tensor(PL_INT32, 1, bd, bias32, sizeof(int32_t) * (size_t)units,
                               bias_scale, zeros, nscales, 0);
        else
            ins[2] = kh_tensor(PL_INT64, 1, bd, bias64, sizeof(int64_t) * (size_t)units,
                               bias_scale, zeros, nscales, 0);
        outs[0] = kh_tensor(PL_INT16, 2, od, out16[slot], n_out * 2, &out_scale, zeros, 1, 0);
        kh.tensors[ins[1]].is_constant = true;
        kt_opts o;
        const int32_t fields[5] = {act, 0, 0, 0, bias_kind == NONE32 ? PL_INT32 : PL_INT64};
        const pl_registration *reg = slot == 0 ? pl_fully_connected_registration()
                                               : r->resolver.find(r, 9, NULL, 0, 1);
        if (kh_run(reg, ins, with_bias ? 3 : 2, outs, 1, kt_make_opts(&o, fields, 5)) !=
            PL_OK) {
            fprintf(stderr, "16x8 fully connected refused: %s\n", kh.message);
            return false;
        }
    }
    fast_cases += r->host_bytes > 0;
    count_interior(n_out);
    pl_fast_resolver_release(r);
    for (size_t i = 0; i < n_out; i++)
        if (out16[0][i] != out16[1][i]) {
            fprintf(stderr, "16x8 fully connected differs: %dx%d by %d units, bias kind %d, "
                    "extreme %d, element %zu: %d != %d\n", batches, depth, units, bias_kind,
                    extreme, i, out16[0][i], out16[1][i]);
            return false;
        }
    return true;
}

/* In TFLM's arithmetic (the reduced multiplier for int64 sums) and in LiteRT's (double). */
static void fully_connected_s16_fast_paths_equal_portable(void)
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
            compared = interior = 0;
            for (int n = 0; n < 300; n++)
                failures += !fc_case_matches(&r);
            pl_fast_resolver_release(&r);
            printf("  %s, %s arithmetic: 16x8 fully connected %d fast cases, %zu of %zu "
                   "outputs inside the range\n", pl_fast_isa_name((pl_isa)isa),
                   a == 0 ? "TFLM" : "LiteRT", fast_cases, interior, compared);
            CHECK_EQ(failures, 0);
            CHECK(interior > compared / 2);
            CHECK(pl_gemm_s16_for((pl_isa)isa) != NULL);
            CHECK_EQ(fast_cases, 300);
        }
        kh_ctx.arith = PL_ARITH_TFLM;
    }
}

/* DEPTHWISE_CONV_2D: multipliers 1..3, up to 15x15 taps (225 of PL_DW16_MAX_TAPS' 256), an
** int64 bias or none. */
static bool dw_case_matches(pl_fast_resolver *r)
{
    bool wide = between(0, 4) == 0, extreme = between(0, 5) == 0;
    int32_t batch = between(1, 2), h = between(1, wide ? 16 : 12);
    int32_t w = between(1, wide ? 16 : 12);
    int32_t m = (int32_t[]){1, 1, 1, 2, 3}[between(0, 4)], ic = between(1, MAX_C / m);
    int32_t oc = ic * m, fh = between(1, wide ? 15 : 5), kw = between(1, wide ? 15 : 5);
    int32_t sh = between(1, 3), sw = between(1, 3), dh = between(1, wide ? 1 : 3);
    int32_t dw = between(1, wide ? 1 : 3), padding = between(0, 1);
    int32_t act = (int32_t[]){0, 1, 3}[between(0, 2)];
    bool with_bias = between(0, 3) != 0, per_channel = between(0, 3) != 0;
    int32_t oh = pl_pad_out_size(padding, h, fh, sh, dh);
    int32_t ow = pl_pad_out_size(padding, w, kw, sw, dw);
    if (oh <= 0 || ow <= 0)
        return true;
    float in_scale = 0.0001f + (float)between(1, 50) / 50000.0f, f_scale[MAX_C];
    float bias_scale[MAX_C];
    int64_t zeros[MAX_C] = {0};
    for (int32_t k = 0; k < oc; k++) {
        f_scale[k] = 0.001f + 0.02f * (float)between(1, 100) / 100.0f;
        bias_scale[k] = in_scale * f_scale[per_channel ? k : 0];
    }
    float out_scale = out_scale_for(in_scale, f_scale[0], fh * kw, extreme);
    size_t n_in = (size_t)batch * (size_t)(h * w * ic), n_f = (size_t)(fh * kw * oc);
    size_t n_out = (size_t)batch * (size_t)(oh * ow * oc);
    fill_data(n_in, n_f, oc, extreme);
    for (int32_t k = 0; k < oc && !extreme; k++) /* near the few taps' sums */
        bias64[k] = between(-(1 << 24), 1 << 24);
    int32_t ind[4] = {batch, h, w, ic}, fd[4] = {1, fh, kw, oc}, bd[1] = {oc};
    int32_t od[4] = {batch, oh, ow, oc};
    uint32_t nscales = per_channel ? (uint32_t)oc : 1u;
    for (int slot = 0; slot < 2; slot++) {
        kh_setup();
        int32_t ins[3], outs[1];
        ins[0] = kh_tensor(PL_INT16, 4, ind, in16, n_in * 2, &in_scale, zeros, 1, 0);
        ins[1] = kh_tensor(PL_INT8, 4, fd, f8, n_f, f_scale, zeros, nscales, 3);
        ins[2] = kh_tensor(PL_INT64, 1, bd, bias64, sizeof(int64_t) * (size_t)oc, bias_scale,
                           zeros, nscales, 0);
        outs[0] = kh_tensor(PL_INT16, 4, od, out16[slot], n_out * 2, &out_scale, zeros, 1, 0);
        kh.tensors[ins[1]].is_constant = true;
        kh.tensors[ins[2]].is_constant = true;
        kt_opts o;
        const int32_t fields[7] = {padding, sw, sh, m, act, dw, dh};
        const pl_registration *reg = slot == 0 ? pl_depthwise_conv_registration()
                                               : r->resolver.find(r, 4, NULL, 0, 1);
        if (kh_run(reg, ins, with_bias ? 3 : 2, outs, 1, kt_make_opts(&o, fields, 7)) !=
            PL_OK) {
            fprintf(stderr, "16x8 depthwise refused: %s\n", kh.message);
            return false;
        }
    }
    fast_cases += r->host_bytes > 0;
    count_interior(n_out);
    pl_fast_resolver_release(r);
    if (memcmp(out16[0], out16[1], n_out * 2) != 0) {
        fprintf(stderr, "16x8 depthwise differs: %dx%dx%dx%d m %d k %dx%d s %d,%d d %d,%d "
                "pad %d act %d bias %d extreme %d\n", batch, h, w, ic, m, fh, kw, sh, sw, dh,
                dw, padding, act, with_bias, extreme);
        return false;
    }
    return true;
}

static void depthwise_s16_fast_paths_equal_portable(void)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        pl_fast_resolver r;
        CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
        r.poison_scratch = true;
        int failures = 0;
        fast_cases = 0;
        compared = interior = 0;
        for (int n = 0; n < 400; n++)
            failures += !dw_case_matches(&r);
        pl_fast_resolver_release(&r);
        printf("  %s: 16x8 depthwise %d fast cases, %zu of %zu outputs inside the range\n",
               pl_fast_isa_name((pl_isa)isa), fast_cases, interior, compared);
        CHECK_EQ(failures, 0);
        CHECK(pl_dw_s16_for((pl_isa)isa) != NULL);
        CHECK(fast_cases > 200);
        CHECK(interior > compared / 2);
    }
}

int main(void)
{
    RUN(conv_s16_fast_paths_equal_portable);
    RUN(fully_connected_s16_fast_paths_equal_portable);
    RUN(depthwise_s16_fast_paths_equal_portable);
    return HARNESS_END();
}
