/* test_fast_hybrid.c - the hybrid (float input, int8 weights) fast paths against the portable
** kernels, bit for bit, on every instruction set this CPU runs: FULLY_CONNECTED on random
** batches, depths (any remainder of a vector) and unit counts, symmetric and asymmetric input
** quantization; CONV_2D and DEPTHWISE_CONV_2D on random shapes, depth multipliers, strides,
** dilations and paddings; with per-tensor and per-channel weight scales, with and without a
** bias, every fused activation; inputs of ordinary values at random magnitudes, rows of
** zeros (of both signs), an input of zeros only, NaNs (first in a row or later) and,
** symmetric only, infinities. Every case must take the fast path, but for a depthwise filter
** of more taps than its float sums hold exactly (tried at the bound with the largest sums).
** The vector quantizer alone is checked against the portable one on values set on rounding
** ties. */
#include <math.h>
#include <string.h>

#include "fast/gemm.h"
#include "fast/hybrid.h"
#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/common/padding.h"
#include "kernels/conv/conv.h"
#include "kernels/conv/depthwise_conv.h"
#include "kernels/conv/fully_connected.h"
#include "kernels/conv/hybrid.h"

enum { CONV_CODE = 3, DW_CODE = 4, FC_CODE = 9 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == FC_CODE ? pl_fully_connected_registration()
         : code == CONV_CODE ? pl_conv_registration()
         : code == DW_CODE ? pl_depthwise_conv_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

enum { MAX_UNITS = 300, MAX_IN = 40 * 3000, MAX_F = 700 * MAX_UNITS, MAX_OUT = 2 * 12 * 12 * 100 };

static float in32[MAX_IN], bias32[MAX_UNITS], out32[2][MAX_OUT];
static int8_t f8[MAX_F];

/* Row values: ordinary at a random magnitude, with now and then a zero, a NaN or (when
** infinities are allowed) an infinity; some rows all zeros, some inputs all zeros. */
static void fill_rows(float *x, int32_t rows, int32_t depth, bool infinities)
{
    bool all_zero = between(0, 15) == 0;
    for (int32_t r = 0; r < rows; r++) {
        float *row = x + (size_t)r * (size_t)depth;
        float magnitude = (float[]){1e-3f, 0.5f, 4.0f, 300.0f, 1e6f}[between(0, 4)];
        int32_t kind = all_zero ? 0 : between(0, 9);
        for (int32_t i = 0; i < depth; i++) {
            float v = unit() * magnitude;
            int32_t special = between(0, 40);
            if (kind == 0 || special == 0)
                v = between(0, 1) ? 0.0f : -0.0f;
            else if (kind == 1 && (i == 0 || special == 1))
                v = between(0, 1) ? NAN : -NAN;
            else if (kind == 2 && infinities && special <= 1)
                v = between(0, 1) ? INFINITY : -INFINITY;
            else if (kind == 3)
                v = fabsf(v); /* one-signed rows: the asymmetric range ends at 0 */
            row[i] = v;
        }
    }
}

static bool same_bits(const float *a, const float *b, size_t n, size_t *at)
{
    for (*at = 0; *at < n; (*at)++)
        if (memcmp(&a[*at], &b[*at], sizeof(float)) != 0)
            return false;
    return true;
}

typedef struct fc_case {
    int32_t batches, depth, units, act;
    bool per_channel, asymmetric, bias;
    float scales[MAX_UNITS];
} fc_case;

static void random_fc(fc_case *c)
{
    if (between(0, 7) == 0) { /* more rows than a chunk holds */
        c->batches = between(25, 40);
        c->depth = between(2000, 3000);
        c->units = between(1, 30);
    } else {
        c->batches = between(0, 2) == 0 ? between(2, 12) : 1;
        c->depth = between(0, 3) == 0 ? between(64, 700) : between(1, 70);
        c->units = between(0, 2) == 0 ? between(41, MAX_UNITS) : between(1, 40);
    }
    c->act = between(0, 3);
    c->per_channel = between(0, 1) == 1;
    c->asymmetric = between(0, 1) == 1;
    c->bias = between(0, 3) != 0;
    for (int32_t u = 0; u < c->units; u++)
        c->scales[u] = 0.0005f + 0.02f * (float)between(1, 1000) / 1000.0f;
    fill_rows(in32, c->batches, c->depth, !c->asymmetric);
    for (size_t i = 0; i < (size_t)c->units * (size_t)c->depth; i++)
        f8[i] = (int8_t)between(-127, 127);
    for (int32_t u = 0; u < c->units; u++)
        bias32[u] = between(0, 9) == 0 ? -0.0f : unit() * 2.0f;
}

static pl_status run_fc(const fc_case *c, const pl_registration *reg, int slot)
{
    kh_setup();
    int32_t in_dims[2] = {c->batches, c->depth}, f_dims[2] = {c->units, c->depth};
    int32_t b_dims[1] = {c->units}, out_dims[2] = {c->batches, c->units};
    int64_t zeros[MAX_UNITS] = {0};
    int32_t ins[3], outs[1];
    ins[0] = kt_tensor_f32(2, in_dims, in32, (size_t)c->batches * (size_t)c->depth);
    ins[1] = kh_tensor(PL_INT8, 2, f_dims, f8, (size_t)c->units * (size_t)c->depth, c->scales,
                       zeros, c->per_channel ? (uint32_t)c->units : 1u, 0);
    ins[2] = kt_tensor_f32(1, b_dims, bias32, (size_t)c->units);
    outs[0] = kt_tensor_f32(2, out_dims, out32[slot], (size_t)c->batches * (size_t)c->units);
    kh.tensors[ins[1]].is_constant = true;
    kh.tensors[ins[2]].is_constant = true;
    kt_opts o;
    const int32_t fields[4] = {c->act, 0, 0, c->asymmetric};
    return kh_run(reg, ins, c->bias ? 3 : 2, outs, 1, kt_make_opts(&o, fields, 4));
}

static bool fc_case_matches(pl_fast_resolver *r)
{
    fc_case c;
    random_fc(&c);
    const pl_registration *fast = r->resolver.find(r, FC_CODE, NULL, 0, 1);
    if (run_fc(&c, pl_fully_connected_registration(), 0) != PL_OK ||
        run_fc(&c, fast, 1) != PL_OK) {
        fprintf(stderr, "hybrid fully connected refused: %s\n", kh.message);
        return false;
    }
    bool took_fast = r->host_bytes > r->capacity * sizeof(pl_fast_slot);
    fast_cases += took_fast;
    pl_fast_resolver_release(r);
    size_t at;
    bool same = same_bits(out32[0], out32[1], (size_t)c.batches * (size_t)c.units, &at);
    if (!same || !took_fast)
        fprintf(stderr, "hybrid fully connected %s: %dx%d by %d units, act %d, per-channel "
                "%d, asymmetric %d, bias %d; element %zu: %a != %a\n",
                same ? "took the portable path" : "differs", c.batches, c.depth, c.units,
                c.act, c.per_channel, c.asymmetric, c.bias, at,
                same ? 0.0 : (double)out32[0][at], same ? 0.0 : (double)out32[1][at]);
    return same && took_fast;
}

static void fully_connected_hybrid_equals_portable(void)
{
    fast_equals_portable(&portable, "hybrid fully connected", 400, 400, fc_case_matches);
}

typedef struct conv_case {
    int32_t in[4], f[4], out[4], stride_h, stride_w, dil_h, dil_w, padding, act;
    bool per_channel, bias;
    float scales[MAX_UNITS];
} conv_case;

static size_t count4(const int32_t *d)
{
    return (size_t)d[0] * (size_t)d[1] * (size_t)d[2] * (size_t)d[3];
}

/* A case with at least one output point (LiteRT drops the dilation of a per-channel hybrid
** convolution, which picolite refuses: those have none). */
static void random_conv(conv_case *c)
{
    do {
        c->in[0] = between(1, 2), c->in[1] = between(1, 12), c->in[2] = between(1, 12);
        c->in[3] = between(1, 24);
        c->f[0] = between(0, 3) == 0 ? between(41, 100) : between(1, 40);
        c->f[1] = between(1, 5), c->f[2] = between(1, 5), c->f[3] = c->in[3];
        c->per_channel = between(0, 1) == 1;
        c->stride_h = between(1, 3), c->stride_w = between(1, 3);
        c->dil_h = c->per_channel ? 1 : between(1, 3);
        c->dil_w = c->per_channel ? 1 : between(1, 3);
        c->padding = between(0, 1);
        c->out[0] = c->in[0], c->out[3] = c->f[0];
        c->out[1] = pl_pad_out_size(c->padding, c->in[1], c->f[1], c->stride_h, c->dil_h);
        c->out[2] = pl_pad_out_size(c->padding, c->in[2], c->f[2], c->stride_w, c->dil_w);
    } while (c->out[1] <= 0 || c->out[2] <= 0);
    c->act = between(0, 3);
    c->bias = between(0, 3) != 0;
    for (int32_t k = 0; k < c->f[0]; k++)
        c->scales[k] = 0.0005f + 0.02f * (float)between(1, 1000) / 1000.0f;
    if (c->per_channel && c->f[0] > 1)
        c->scales[1] = c->scales[0] * 1.5f; /* per-channel scales that differ */
    fill_rows(in32, c->in[0], (int32_t)(count4(c->in) / (size_t)c->in[0]), !c->per_channel);
    for (size_t i = 0; i < count4(c->f); i++)
        f8[i] = (int8_t)between(-127, 127);
    for (int32_t k = 0; k < c->f[0]; k++)
        bias32[k] = between(0, 9) == 0 ? -0.0f : unit() * 2.0f;
}

static pl_status run_conv(const conv_case *c, const pl_registration *reg, int slot)
{
    kh_setup();
    int64_t zeros[MAX_UNITS] = {0};
    int32_t ins[3], outs[1], b_dims[1] = {c->f[0]};
    ins[0] = kt_tensor_f32(4, c->in, in32, count4(c->in));
    ins[1] = kh_tensor(PL_INT8, 4, c->f, f8, count4(c->f), c->scales, zeros,
                       c->per_channel ? (uint32_t)c->f[0] : 1u, 0);
    ins[2] = kt_tensor_f32(1, b_dims, bias32, (size_t)c->f[0]);
    outs[0] = kt_tensor_f32(4, c->out, out32[slot], count4(c->out));
    kh.tensors[ins[1]].is_constant = true;
    kh.tensors[ins[2]].is_constant = true;
    kt_opts o;
    const int32_t fields[6] = {c->padding, c->stride_w, c->stride_h, c->act, c->dil_w,
                               c->dil_h};
    return kh_run(reg, ins, c->bias ? 3 : 2, outs, 1, kt_make_opts(&o, fields, 6));
}

static uint64_t in_place_cases; /* hybrid convolutions that read their windows in place */

static bool conv_case_matches(pl_fast_resolver *r)
{
    conv_case c;
    random_conv(&c);
    const pl_registration *fast = r->resolver.find(r, CONV_CODE, NULL, 0, 1);
    const uint64_t in_place = r->hybrid_in_place;
    if (run_conv(&c, pl_conv_registration(), 0) != PL_OK || run_conv(&c, fast, 1) != PL_OK) {
        fprintf(stderr, "hybrid conv refused: %s\n", kh.message);
        return false;
    }
    bool took_fast = r->host_bytes > r->capacity * sizeof(pl_fast_slot);
    /* channels a multiple of 4, a window wider than 1x1 and a set with run_taps: the windows
    ** are read in place (conv_hybrid.c), else gathered */
    const bool taps = pl_gemm_s8_for(r->isa)->run_taps != NULL;
    const bool want_in_place = taps && c.in[3] % 4 == 0 && !(c.f[1] == 1 && c.f[2] == 1);
    if ((r->hybrid_in_place > in_place) != want_in_place) {
        fprintf(stderr, "hybrid conv %s its windows in place: in %dx%dx%dx%d, filter %dx%d\n",
                want_in_place ? "did not read" : "read", c.in[0], c.in[1], c.in[2], c.in[3],
                c.f[1], c.f[2]);
        took_fast = false;
    }
    in_place_cases += r->hybrid_in_place > in_place;
    fast_cases += took_fast;
    pl_fast_resolver_release(r);
    size_t at;
    bool same = same_bits(out32[0], out32[1], count4(c.out), &at);
    if (!same || !took_fast)
        fprintf(stderr, "hybrid conv %s: in %dx%dx%dx%d, filter %dx%dx%dx%d, stride %d,%d, "
                "dilation %d,%d, padding %d, act %d, per-channel %d, bias %d; element %zu: "
                "%a != %a\n", same ? "took the portable path" : "differs", c.in[0], c.in[1],
                c.in[2], c.in[3], c.f[0], c.f[1], c.f[2], c.f[3], c.stride_h, c.stride_w,
                c.dil_h, c.dil_w, c.padding, c.act, c.per_channel, c.bias, at,
                same ? 0.0 : (double)out32[0][at], same ? 0.0 : (double)out32[1][at]);
    return same && took_fast;
}

static void conv_hybrid_equals_portable(void)
{
    in_place_cases = 0;
    fast_equals_portable(&portable, "hybrid conv", 300, 300, conv_case_matches);
    fast_threads_equal_portable(&portable, "hybrid conv", 200, 40, conv_case_matches);
    printf("  hybrid conv: %llu cases read their windows in place\n",
           (unsigned long long)in_place_cases);
#if defined(__x86_64__)
    CHECK(in_place_cases > 0 || !pl_fast_isa_available(PL_ISA_AVX2));
#endif
}

typedef struct dw_case {
    int32_t in[4], f[4], out[4], m, stride_h, stride_w, dil_h, dil_w, padding, act;
    bool bias;
    float scales[MAX_UNITS];
} dw_case;

enum { DW_MAX_TAPS = 518 }; /* depthwise.c's bound: taps * 255 * 127 < 2^24 */

/* A case with at least one output point; now and then a filter of 506 or 529 taps (either
** side of the bound) whose windows fit in the image, over input near its maximum (zero point
** -128, q - zero point near 255) and weights of 127: sums near 2^24, past it beyond the
** bound. */
static void random_dw(dw_case *c)
{
    bool big = between(0, 19) == 0;
    do {
        c->m = (int32_t[]){1, 1, 2, 3}[between(0, 3)];
        c->in[0] = between(1, 2), c->in[1] = big ? between(23, 26) : between(1, 14);
        c->in[2] = big ? between(23, 26) : between(1, 14);
        c->in[3] = big ? between(1, 4) : between(1, 64 / c->m);
        c->f[0] = 1, c->f[1] = big ? between(22, 23) : between(1, 5);
        c->f[2] = big ? 23 : between(1, 5), c->f[3] = c->in[3] * c->m;
        c->stride_h = between(1, 3), c->stride_w = between(1, 3);
        c->dil_h = big ? 1 : between(1, 3), c->dil_w = big ? 1 : between(1, 3);
        c->padding = big ? 0 : between(0, 1); /* big: SAME */
        c->out[0] = c->in[0], c->out[3] = c->f[3];
        c->out[1] = pl_pad_out_size(c->padding, c->in[1], c->f[1], c->stride_h, c->dil_h);
        c->out[2] = pl_pad_out_size(c->padding, c->in[2], c->f[2], c->stride_w, c->dil_w);
    } while (c->out[1] <= 0 || c->out[2] <= 0);
    c->act = between(0, 3);
    c->bias = between(0, 3) != 0;
    for (int32_t k = 0; k < c->f[3]; k++)
        c->scales[k] = 0.0005f + 0.02f * (float)between(1, 1000) / 1000.0f;
    int32_t depth = (int32_t)(count4(c->in) / (size_t)c->in[0]);
    fill_rows(in32, c->in[0], depth, false);
    for (size_t i = 0; big && i < count4(c->in); i++)
        in32[i] = 1000.0f + (float)between(0, 10);
    for (size_t i = 0; i < count4(c->f); i++)
        f8[i] = big ? 127 : (int8_t)between(-127, 127);
    for (int32_t k = 0; k < c->f[3]; k++)
        bias32[k] = between(0, 9) == 0 ? -0.0f : unit() * 2.0f;
}

static pl_status run_dw(const dw_case *c, const pl_registration *reg, int slot)
{
    kh_setup();
    int64_t zeros[MAX_UNITS] = {0};
    int32_t ins[3], outs[1], b_dims[1] = {c->f[3]};
    ins[0] = kt_tensor_f32(4, c->in, in32, count4(c->in));
    ins[1] = kh_tensor(PL_INT8, 4, c->f, f8, count4(c->f), c->scales, zeros,
                       (uint32_t)c->f[3], 3);
    ins[2] = kt_tensor_f32(1, b_dims, bias32, (size_t)c->f[3]);
    outs[0] = kt_tensor_f32(4, c->out, out32[slot], count4(c->out));
    kh.tensors[ins[1]].is_constant = true;
    kh.tensors[ins[2]].is_constant = true;
    kt_opts o;
    const int32_t fields[7] = {c->padding, c->stride_w, c->stride_h, c->m, c->act, c->dil_w,
                               c->dil_h};
    return kh_run(reg, ins, c->bias ? 3 : 2, outs, 1, kt_make_opts(&o, fields, 7));
}

static bool dw_case_matches(pl_fast_resolver *r)
{
    dw_case c;
    random_dw(&c);
    const pl_registration *fast = r->resolver.find(r, DW_CODE, NULL, 0, 1);
    /* a fused target (Cortex-M's VFMA) too: its hybrid sums are exact integers either way, so
    ** a set without fused float rows (SSE4.1) runs them unfused */
    kh_ctx.fused_madd = between(0, 1) == 1;
    bool ran = run_dw(&c, pl_depthwise_conv_registration(), 0) == PL_OK &&
               run_dw(&c, fast, 1) == PL_OK;
    const bool fused = kh_ctx.fused_madd;
    kh_ctx.fused_madd = false;
    if (!ran) {
        fprintf(stderr, "hybrid depthwise refused (fused %d): %s\n", fused, kh.message);
        return false;
    }
    bool took_fast = r->host_bytes > r->capacity * sizeof(pl_fast_slot);
    bool want_fast = c.f[1] * c.f[2] <= DW_MAX_TAPS;
    fast_cases += took_fast;
    pl_fast_resolver_release(r);
    size_t at;
    bool same = same_bits(out32[0], out32[1], count4(c.out), &at);
    if (!same || took_fast != want_fast)
        fprintf(stderr, "hybrid depthwise %s: in %dx%dx%dx%d, m %d, filter %dx%d, stride "
                "%d,%d, dilation %d,%d, padding %d, act %d, bias %d, fast %d; element %zu: "
                "%a != %a\n", same ? "took the wrong path" : "differs", c.in[0], c.in[1],
                c.in[2], c.in[3], c.m, c.f[1], c.f[2], c.stride_h, c.stride_w, c.dil_h,
                c.dil_w, c.padding, c.act, c.bias, took_fast, at,
                same ? 0.0 : (double)out32[0][at], same ? 0.0 : (double)out32[1][at]);
    return same && took_fast == want_fast;
}

static void depthwise_hybrid_equals_portable(void)
{
    fast_equals_portable(&portable, "hybrid depthwise", 400, 340, dw_case_matches);
    fast_threads_equal_portable(&portable, "hybrid depthwise", 200, 40, dw_case_matches);
}

/* The vector quantizer of every set against pl_hybrid_quantize_*: values placed on halves
** of the step (x * inv lands on k + 0.5), next to them, at the clamps, NaNs, zeros of both
** signs, every length up to a few vectors. */
static void quantizer_equals_portable(void)
{
    enum { N = 80 };
    float x[N];
    int8_t want[N];
    uint8_t got[N];
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        const pl_hybrid_kernels *k = pl_hybrid_for((pl_isa)isa);
        if (k == NULL || !pl_fast_isa_available((pl_isa)isa))
            continue;
        int failures = 0;
        for (int t = 0; t < 4000; t++) {
            int32_t n = between(1, N);
            bool asymmetric = between(0, 1) == 1;
            float step = (float[]){1.0f, 0.25f, 1.0f / 127.0f, 3.0f}[between(0, 3)];
            for (int32_t i = 0; i < n; i++) {
                float v = (float)between(-300, 300) * step;
                switch (between(0, 9)) {
                case 0: v += 0.5f * step; break;
                case 1: v = nextafterf(v + 0.5f * step, INFINITY); break;
                case 2: v = between(0, 1) ? 0.0f : -0.0f; break;
                case 3: v = between(0, 20) == 0 ? NAN : v; break;
                case 4: v = unit() * 1e-30f; break;
                default: break;
                }
                x[i] = v;
            }
            float s_want, s_got;
            int32_t zp_want = 0, zp_got;
            if (asymmetric)
                pl_hybrid_quantize_asymmetric(x, n, want, &s_want, &zp_want);
            else
                pl_hybrid_quantize_symmetric(x, n, want, &s_want);
            uint8_t flip = between(0, 1) ? 0x80 : 0;
            k->quantize(x, n, asymmetric, flip, got, &s_got, &zp_got);
            bool same = memcmp(&s_want, &s_got, sizeof s_want) == 0 && zp_want == zp_got;
            for (int32_t i = 0; i < n; i++)
                same = same && (uint8_t)((uint8_t)want[i] ^ flip) == got[i];
            failures += !same;
        }
        printf("  %s: hybrid quantizer\n", pl_fast_isa_name((pl_isa)isa));
        CHECK_EQ(failures, 0);
    }
}

int main(void)
{
    RUN(quantizer_equals_portable);
    RUN(fully_connected_hybrid_equals_portable);
    RUN(conv_hybrid_equals_portable);
    RUN(depthwise_hybrid_equals_portable);
    return HARNESS_END();
}
