/* test_fast_depthwise.c - DEPTHWISE_CONV_2D's host fast paths against the portable kernel
** on randomized shapes, depth multipliers, strides, dilations, paddings, activations, zero
** points and per-channel scales: int8 outputs byte for byte, float32 outputs bit for bit.
** Every instruction set this CPU runs is tested; CI runs this under ASan and UBSan. */
#include <string.h>

#include "fast_harness.h"
#include "fast/depthwise.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/common/padding.h"
#include "kernels/conv/depthwise_conv.h"

enum { DW_CODE = 4 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == DW_CODE ? pl_depthwise_conv_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

/* rows up to 14 wide, or up to 40 (rows with 16 or more windows whole in the input: the
** float path reads them in place) */
enum { MAX_C = 64, MAX_W = 40, MAX_IN = 2 * 14 * MAX_W * MAX_C, MAX_F = 5 * 5 * MAX_C,
       MAX_OUT = 2 * 14 * MAX_W * MAX_C };

typedef struct dw_case {
    int32_t batch, h, w, ic, m, kh, kw, stride_h, stride_w, dil_h, dil_w, padding, act;
    bool f32, bias, per_channel;
    int32_t in_zp, out_zp;
    float in_scale, out_scale, f_scale[MAX_C];
} dw_case;

static int8_t in8[MAX_IN], f8[MAX_F], out8[2][MAX_OUT];
static float in32[MAX_IN], f32[MAX_F], out32[2][MAX_OUT], bias32f[MAX_C];
static int32_t bias32[MAX_C];

static void random_case(dw_case *c)
{
    memset(c, 0, sizeof *c);
    c->batch = between(1, 2);
    c->h = between(1, 14);
    c->w = between(0, 3) == 0 ? between(15, MAX_W) : between(1, 14);
    c->m = (int32_t[]){1, 1, 1, 2, 3}[between(0, 4)];
    c->ic = between(1, MAX_C / c->m);
    if (c->w > 14 && between(0, 1)) { /* the float path's rows read in place */
        c->m = 1;
        c->ic = 16 * between(1, MAX_C / 16);
    }
    c->kh = between(1, 5);
    c->kw = between(1, 5);
    c->stride_h = between(1, 3);
    c->stride_w = between(1, 3);
    c->dil_h = between(1, 3);
    c->dil_w = between(1, 3);
    c->padding = between(0, 1);
    c->act = (int32_t[]){0, 1, 3}[between(0, 2)];
    c->f32 = between(0, 2) == 0;
    c->bias = between(0, 3) != 0;
    c->per_channel = between(0, 3) != 0;
    c->in_zp = between(-128, 127);
    c->out_zp = between(-128, 127);
    c->in_scale = 0.01f + 0.1f * (float)between(1, 50) / 50.0f;
    c->out_scale = 0.02f + (float)between(1, 100) / 100.0f;
    for (int32_t k = 0; k < c->ic * c->m; k++)
        c->f_scale[k] = 0.002f + 0.05f * (float)between(1, 100) / 100.0f;
}

static void fill(const dw_case *c, size_t n_in, size_t n_f)
{
    for (size_t i = 0; i < n_in; i++) {
        in8[i] = (int8_t)between(-128, 127);
        in32[i] = unit() * 4.0f;
    }
    for (size_t i = 0; i < n_f; i++) {
        f8[i] = (int8_t)between(-127, 127);
        f32[i] = unit();
    }
    for (int32_t k = 0; k < c->ic * c->m; k++) {
        bias32[k] = between(-30000, 30000);
        bias32f[k] = unit();
    }
}

/* Runs reg on the case into output slot `slot`. */
static pl_status run_case(const dw_case *c, const pl_registration *reg, int slot,
                          const int32_t *od)
{
    kh_setup();
    const int32_t oc = c->ic * c->m;
    int32_t ind[4] = {c->batch, c->h, c->w, c->ic}, fd[4] = {1, c->kh, c->kw, oc};
    int32_t bd[1] = {oc};
    size_t n_in = (size_t)c->batch * (size_t)(c->h * c->w * c->ic);
    size_t n_f = (size_t)(c->kh * c->kw * oc);
    size_t n_out = (size_t)od[0] * (size_t)(od[1] * od[2] * od[3]);
    float bias_scale[MAX_C];
    int64_t zeros[MAX_C] = {0}, in_zp = c->in_zp, out_zp = c->out_zp;
    uint32_t nscales = c->per_channel ? (uint32_t)oc : 1u;
    for (int32_t k = 0; k < oc; k++)
        bias_scale[k] = c->in_scale * c->f_scale[c->per_channel ? k : 0];
    int32_t ins[3], outs[1];
    if (c->f32) {
        ins[0] = kt_tensor_f32(4, ind, in32, n_in);
        ins[1] = kt_tensor_f32(4, fd, f32, n_f);
        ins[2] = kt_tensor_f32(1, bd, bias32f, (size_t)oc);
        outs[0] = kt_tensor_f32(4, od, out32[slot], n_out);
    } else {
        ins[0] = kh_tensor(PL_INT8, 4, ind, in8, n_in, &c->in_scale, &in_zp, 1, 0);
        ins[1] = kh_tensor(PL_INT8, 4, fd, f8, n_f, c->f_scale, zeros, nscales, 3);
        ins[2] = kh_tensor(PL_INT32, 1, bd, bias32, sizeof(int32_t) * (size_t)oc, bias_scale,
                           zeros, nscales, 0);
        outs[0] = kh_tensor(PL_INT8, 4, od, out8[slot], n_out, &c->out_scale, &out_zp, 1, 0);
    }
    kh.tensors[ins[1]].is_constant = true;
    kh.tensors[ins[2]].is_constant = true;
    kt_opts o;
    const int32_t fields[7] = {c->padding, c->stride_w, c->stride_h, c->m, c->act, c->dil_w,
                               c->dil_h};
    return kh_run(reg, ins, c->bias ? 3 : 2, outs, 1, kt_make_opts(&o, fields, 7));
}

static void case_matches(pl_fast_resolver *r, const dw_case *c, int *failures)
{
    int32_t oh = pl_pad_out_size(c->padding, c->h, c->kh, c->stride_h, c->dil_h);
    int32_t ow = pl_pad_out_size(c->padding, c->w, c->kw, c->stride_w, c->dil_w);
    if (oh <= 0 || ow <= 0)
        return;
    const int32_t oc = c->ic * c->m;
    int32_t od[4] = {c->batch, oh, ow, oc};
    size_t n_out = (size_t)c->batch * (size_t)(oh * ow * oc);
    fill(c, (size_t)c->batch * (size_t)(c->h * c->w * c->ic), (size_t)(c->kh * c->kw * oc));
    const pl_registration *fast = r->resolver.find(r, DW_CODE, NULL, 0, 1);
    if (run_case(c, pl_depthwise_conv_registration(), 0, od) != PL_OK ||
        run_case(c, fast, 1, od) != PL_OK) {
        fprintf(stderr, "depthwise refused: %s\n", kh.message);
        (*failures)++;
        return;
    }
    fast_cases += r->host_bytes > 0;
    bool same = c->f32 ? memcmp(out32[0], out32[1], n_out * sizeof(float)) == 0
                       : memcmp(out8[0], out8[1], n_out) == 0;
    if (!same) {
        fprintf(stderr, "depthwise differs: %s %dx%dx%dx%d m %d k %dx%d s %d,%d d %d,%d pad %d "
                "act %d zp %d/%d bias %d\n", c->f32 ? "f32" : "int8", c->batch, c->h, c->w,
                c->ic, c->m, c->kh, c->kw, c->stride_h, c->stride_w, c->dil_h, c->dil_w,
                c->padding, c->act, c->in_zp, c->out_zp, c->bias);
        (*failures)++;
    }
    pl_fast_resolver_release(r);
}

/* On threads threads (every job split), n_cases random depthwise convolutions against the
** portable kernel on every instruction set. */
static void depthwise_cases_equal_portable(int32_t threads, int n_cases)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        pl_fast_resolver r;
        CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
        r.poison_scratch = true;
        split_every_job(&r, threads);
        int failures = 0, cases = 0;
        fast_cases = 0;
        for (int n = 0; n < n_cases; n++) {
            dw_case c;
            random_case(&c);
            cases += pl_pad_out_size(c.padding, c.h, c.kh, c.stride_h, c.dil_h) > 0 &&
                     pl_pad_out_size(c.padding, c.w, c.kw, c.stride_w, c.dil_w) > 0;
            case_matches(&r, &c, &failures);
        }
        pl_fast_resolver_release(&r);
        printf("  %s, %d threads: depthwise %d of %d cases fast, %llu split jobs\n",
               pl_fast_isa_name((pl_isa)isa), threads, fast_cases, cases,
               (unsigned long long)r.parallel_jobs);
        CHECK_EQ(pl_fast_resolver_set_threads(&r, 1), PL_OK);
        CHECK_EQ(failures, 0);
        CHECK_EQ(fast_cases, cases);
        CHECK(threads == 1 || r.parallel_jobs > (uint64_t)n_cases / 8);
    }
}

static void depthwise_fast_paths_equal_portable(void)
{
    depthwise_cases_equal_portable(1, 600);
}

/* Split over threads by output rows, every output as one thread computes it. */
static void depthwise_threads_equal_portable(void)
{
    depthwise_cases_equal_portable(3, 300);
}

/* A filter with an infinity keeps the portable kernel (0 * inf at a padded tap is NaN). */
/* A fused target's float depthwise (ctx->fused_madd, as tflm's): VFMADD/FMLA equal the
** portable kernel's fmaf in every case with an output where the instruction set has FMA;
** SSE4.1 declines. */
static void depthwise_fused_fast_paths_equal_portable(void)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        const bool can = pl_dw_f32_for((pl_isa)isa)->run_fused != NULL;
        pl_fast_resolver r;
        CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, (pl_isa)isa), PL_OK);
        r.poison_scratch = true;
        int failures = 0, cases = 0;
        fast_cases = 0;
        kh_ctx.fused_madd = true;
        for (int n = 0; n < 300; n++) {
            dw_case c;
            random_case(&c);
            c.f32 = true;
            cases += pl_pad_out_size(c.padding, c.h, c.kh, c.stride_h, c.dil_h) > 0 &&
                     pl_pad_out_size(c.padding, c.w, c.kw, c.stride_w, c.dil_w) > 0;
            case_matches(&r, &c, &failures);
        }
        kh_ctx.fused_madd = false;
        pl_fast_resolver_release(&r);
        printf("  %s, fused: depthwise %d of %d float cases fast\n",
               pl_fast_isa_name((pl_isa)isa), fast_cases, cases);
        CHECK_EQ(failures, 0);
        CHECK_EQ(fast_cases, can ? cases : 0);
    }
}

/* Float rows with 16 or more windows whole in the input, which the fast path reads in place
** (the rest from staged strips and rows). */
static void in_place_case(pl_fast_resolver *r, int *failures)
{
    dw_case c;
    random_case(&c);
    c.f32 = true;
    c.m = 1;
    c.ic = 16 * between(1, MAX_C / 16);
    c.h = between(3, 14);
    c.w = between(18, MAX_W);
    c.dil_h = between(1, 2);
    c.dil_w = between(1, 2);
    case_matches(r, &c, failures);
}

static bool dw_fuses(pl_isa isa)
{
    return pl_dw_f32_for(isa)->run_fused != NULL;
}

static void depthwise_in_place_rows_equal_portable(void)
{
    fast_variants_equal_portable(&portable, &kh_ctx.fused_madd, dw_fuses, 100, in_place_case);
}

static void depthwise_infinite_filter_falls_back(void)
{
    pl_fast_resolver r;
    pl_isa isa = pl_fast_best_isa();
    if (isa == PL_ISA_PORTABLE)
        return;
    CHECK_EQ(pl_fast_resolver_init(&r, &portable, &host, isa), PL_OK);
    r.poison_scratch = true;
    dw_case c;
    random_case(&c);
    c.f32 = true;
    c.h = c.w = 6;
    c.kh = c.kw = 3;
    c.stride_h = c.stride_w = c.dil_h = c.dil_w = 1;
    c.padding = PL_PADDING_SAME;
    int32_t od[4] = {c.batch, 6, 6, c.ic * c.m};
    fill(&c, (size_t)c.batch * 36u * (size_t)c.ic, 9u * (size_t)(c.ic * c.m));
    f32[0] = 1.0f / 0.0f;
    CHECK_EQ(run_case(&c, pl_depthwise_conv_registration(), 0, od), PL_OK);
    CHECK_EQ(run_case(&c, r.resolver.find(&r, DW_CODE, NULL, 0, 1), 1, od), PL_OK);
    CHECK_EQ(r.host_bytes, r.capacity * sizeof(pl_fast_slot)); /* the table, no block */
    size_t n_out = (size_t)c.batch * 36u * (size_t)(c.ic * c.m);
    CHECK(memcmp(out32[0], out32[1], n_out * sizeof(float)) == 0);
    pl_fast_resolver_release(&r);
}

int main(void)
{
    RUN(depthwise_fast_paths_equal_portable);
    RUN(depthwise_threads_equal_portable);
    RUN(depthwise_fused_fast_paths_equal_portable);
    RUN(depthwise_in_place_rows_equal_portable);
    RUN(depthwise_infinite_filter_falls_back);
    return HARNESS_END();
}
