/* test_fast_quant.c - per-tensor QUANTIZE (float32 to int8, uint8, int16; requantizing
** between int8, uint8 and int16) and DEQUANTIZE of a computed tensor (int8, uint8, int16 to
** float32) against the portable kernels, byte for byte, on random scales (requantizations
** whose multiplier shifts left, right, and past 31 bits either way), zero points and lengths
** (every vector tail), float inputs with exact halves (round half away from zero), NaN,
** infinities, values past int32 and random bit patterns. AVX2 and AVX-512 take the fast path (the test fails otherwise); the other
** sets, per-channel tensors and constant DEQUANTIZE inputs keep the portable kernel or the
** fold. Every instruction set this CPU runs is tested, on 1 and 3 threads. */
#include <math.h>
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/registry.h"

enum { DEQUANTIZE = 6, QUANTIZE = 114, N = 40000 };

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return code == QUANTIZE ? pl_quantize_registration()
         : code == DEQUANTIZE ? pl_dequantize_registration() : NULL;
}

static const pl_resolver portable = {portable_find, NULL};

static float floats[N], out32[2][N];
static uint8_t ints[2 * N], out_int[2][2 * N];

typedef struct quant_case {
    int32_t code;
    pl_type type; /* the integer side's; a requantization's output */
    pl_type from; /* a requantization's input, else PL_FLOAT32 */
    float scale[2];
    int64_t zp[2];
    uint32_t channels; /* 1, or 2 (per channel: portable) */
    int32_t n;
} quant_case;

static pl_status run_case(const void *vc, const pl_registration *reg, int slot, size_t *bytes)
{
    const quant_case *c = vc;
    kh_setup();
    int32_t dims[2] = {c->channels == 2 ? 2 : 1, c->channels == 2 ? c->n / 2 : c->n};
    size_t n = (size_t)dims[0] * (size_t)dims[1], es = pl_type_size(c->type);
    int32_t in, out;
    if (c->code == QUANTIZE && c->from != PL_FLOAT32) {
        in = kh_tensor(c->from, 2, dims, ints, pl_type_size(c->from) * n, c->scale, c->zp, 1, 0);
        out = kh_tensor(c->type, 2, dims, out_int[slot], es * n, c->scale + 1, c->zp + 1, 1, 0);
        *bytes = es * n;
    } else if (c->code == QUANTIZE) {
        in = kh_tensor(PL_FLOAT32, 2, dims, floats, 4 * n, NULL, NULL, 0, 0);
        out = kh_tensor(c->type, 2, dims, out_int[slot], es * n, c->scale, c->zp, c->channels,
                        0);
        *bytes = es * n;
    } else {
        in = kh_tensor(c->type, 2, dims, ints, es * n, c->scale, c->zp, c->channels, 0);
        out = kh_tensor(PL_FLOAT32, 2, dims, out32[slot], 4 * n, NULL, NULL, 0, 0);
        *bytes = 4 * n;
    }
    return kh_run(reg, &in, 1, &out, 1, NULL);
}

/* A float whose quotient by scale is an exact half, a special value or any bits. */
static float quantize_input(float scale)
{
    static const float special[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 3e9f,
                                    -3e9f, 2147483520.0f, -2147483648.0f, 1e-40f};
    int pick = between(0, 9);
    if (pick < 4) /* scale is a power of two here: k + 0.5 is exact */
        return ((float)between(-300, 300) + 0.5f) * scale;
    if (pick == 4)
        return special[between(0, 10)];
    if (pick == 5) {
        uint32_t bits = (uint32_t)between(0, 0xffff) << 16 | (uint32_t)between(0, 0xffff);
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    return unit() * 200.0f * scale;
}

static int64_t zero_point(pl_type t)
{
    return t == PL_INT16 ? (between(0, 1) ? 0 : between(-300, 300))
         : t == PL_UINT8 ? between(0, 255) : between(-128, 127);
}

/* A requantization the portable kernel accepts: int8 or uint8 into int8, uint8 or int16;
** int16 into int8, or into int16 with zero points 0. */
static void requant_case(quant_case *c)
{
    static const pl_type types[] = {PL_INT8, PL_UINT8, PL_INT16};
    c->from = types[between(0, 2)];
    c->type = c->from == PL_INT16 ? types[2 * between(0, 1)] : types[between(0, 2)];
    c->channels = 1;
    for (int k = 0; k < 2; k++) {
        int e = between(0, 7) == 0 ? between(-22, 22) : between(-6, 6);
        c->scale[k] = ldexpf(0.5f + (float)between(0, 1000) / 2000.0f, e);
        c->zp[k] = c->from == PL_INT16 && c->type == PL_INT16 ? 0
                                                              : zero_point(k ? c->type : c->from);
    }
}

static bool one_case(pl_fast_resolver *r)
{
    static const pl_type types[] = {PL_INT8, PL_UINT8, PL_INT16};
    quant_case c = {between(0, 1) ? QUANTIZE : DEQUANTIZE, types[between(0, 2)], PL_FLOAT32,
                    {0, 0}, {0, 0}, between(0, 9) ? 1u : 2u, 0};
    if (c.code == DEQUANTIZE && c.type == PL_INT16)
        c.channels = 1; /* per-channel int16 DEQUANTIZE: refused by both kernels */
    c.n = between(0, 3) == 0 ? between(1, 40) : between(256, N);
    c.n -= c.channels == 2 ? c.n % 2 : 0;
    c.n = c.n < 2 ? 2 : c.n;
    for (int k = 0; k < 2; k++) {
        c.scale[k] = between(0, 1) ? ldexpf(1.0f, between(-8, 2))
                                   : 0.001f + (float)between(1, 1000) / 997.0f;
        c.zp[k] = zero_point(c.type);
    }
    if (c.code == QUANTIZE && between(0, 2) == 0)
        requant_case(&c);
    for (int i = 0; i < N; i++)
        floats[i] = quantize_input(c.scale[0]);
    for (int i = 0; i < 2 * N; i++)
        ints[i] = (uint8_t)rnd();
    fast_pair p = fast_run_pair(r, portable_find(NULL, c.code, NULL, 0, 1), c.code, run_case,
                                &c, c.code == QUANTIZE ? (void *)out_int[0] : (void *)out32[0],
                                c.code == QUANTIZE ? (void *)out_int[1] : (void *)out32[1]);
    bool vectors = r->isa == PL_ISA_AVX2 || r->isa == PL_ISA_AVX512;
    bool expect_fast = vectors && c.channels == 1 && p.want == PL_OK;
    /* NaN outputs: DEQUANTIZE never makes one, so the bytes compare as they are */
    if (!p.agree || !p.equal || p.took_fast != expect_fast || p.want != PL_OK)
        fprintf(stderr, "%s %s from %s n %d channels %u scale %g/%g zp %d/%d: %s (status "
                "%d/%d, fast %d)\n", c.code == QUANTIZE ? "quantize" : "dequantize",
                pl_type_name(c.type), pl_type_name(c.from), c.n, c.channels,
                (double)c.scale[0], (double)c.scale[1], (int)c.zp[0], (int)c.zp[1],
                p.agree && p.equal ? "wrong path" : "differs", (int)p.want, (int)p.got,
                p.took_fast);
    return p.agree && p.equal && p.took_fast == expect_fast && p.want == PL_OK;
}

static void quantize_dequantize_equal_portable(void)
{
    fast_equals_portable(&portable, "quantize", 600, 0, one_case);
}

static void quantize_dequantize_threads_equal_portable(void)
{
    fast_threads_equal_portable(&portable, "quantize", 100, 0, one_case);
}

int main(void)
{
    RUN(quantize_dequantize_equal_portable);
    RUN(quantize_dequantize_threads_equal_portable);
    return HARNESS_END();
}
