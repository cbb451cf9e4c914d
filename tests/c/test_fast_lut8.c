/* test_fast_lut8.c - the table fast path of 8-bit HARD_SWISH, LEAKY_RELU, RELU, RELU6,
** RELU_N1_TO_1, LOGISTIC and TANH against the portable kernels, byte for byte, on random
** scales, zero points, alphas and lengths (every vector tail) with every input byte present;
** int16 keeps the portable kernels, float32 too but for HARD_SWISH and LEAKY_RELU (vector
** loops, with NaN, infinities, zeros, its clamps' edges and random bit patterns among the
** inputs), the RELU family (the portable loop over spans of 16384: lengths up to N cover
** several), LOGISTIC and TANH (their vector exp, tested in test_fast_logistic_tanh.c) and the
** unary math FLOOR, CEIL, NEG, SQRT, RSQRT and SQUARE (vector loops; their quantized forms
** keep the portable kernels but int8 RSQRT's table, whose inputs below the zero point must be
** refused as the portable kernel refuses them). Every instruction set this CPU runs is tested; CI runs this
** under ASan and UBSan. */
#include <math.h>
#include <string.h>

#include "fast_harness.h"
#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/registry.h"

enum { N = 40000, OPS = 13 };

static const int32_t codes[OPS] = {117, 98, 19, 21, 20, 14, 28, 8, 104, 59, 75, 76, 92};

static const pl_registration *portable_of(int32_t code)
{
    switch (code) {
    case 117: return pl_hard_swish_registration();
    case 98: return pl_leaky_relu_registration();
    case 19: return pl_relu_registration();
    case 21: return pl_relu6_registration();
    case 20: return pl_relu_n1_to_1_registration();
    case 14: return pl_logistic_registration();
    case 28: return pl_tanh_registration();
    case 8: return pl_floor_registration();
    case 104: return pl_ceil_registration();
    case 59: return pl_neg_registration();
    case 75: return pl_sqrt_registration();
    case 76: return pl_rsqrt_registration();
    case 92: return pl_square_registration();
    default: return NULL;
    }
}

static const pl_registration *portable_find(const void *self, int32_t code, const char *name,
                                            uint32_t len, int32_t version)
{
    (void)self, (void)name, (void)len, (void)version;
    return portable_of(code);
}

static const pl_resolver portable = {portable_find, NULL};

static uint8_t in8[N * 2], out8[2][N * 2];
static float in32[N], out32[2][N];

typedef struct lut_case {
    int32_t code;
    pl_type type; /* PL_INT8, PL_UINT8, PL_INT16 or PL_FLOAT32 */
    float in_scale, out_scale, alpha;
    int64_t in_zp, out_zp;
    int32_t n; /* elements, 1..N */
} lut_case;

static pl_status run_case(const lut_case *c, const pl_registration *reg, int slot)
{
    kh_setup();
    int32_t dims[2] = {1, c->n}, ins[1], outs[1];
    size_t n = (size_t)c->n;
    if (c->type == PL_FLOAT32) {
        ins[0] = kt_tensor_f32(2, dims, in32, n);
        outs[0] = kt_tensor_f32(2, dims, out32[slot], n);
    } else {
        size_t bytes = c->type == PL_INT16 ? 2 * n : n;
        ins[0] = kh_tensor(c->type, 2, dims, in8, bytes, &c->in_scale, &c->in_zp, 1, 0);
        outs[0] = kh_tensor(c->type, 2, dims, out8[slot], bytes, &c->out_scale, &c->out_zp,
                            1, 0);
    }
    kt_opts o;
    int32_t alpha_bits;
    memcpy(&alpha_bits, &c->alpha, sizeof alpha_bits);
    return kh_run(reg, ins, 1, outs, 1, c->code == 98 ? kt_make_opts(&o, &alpha_bits, 1) : NULL);
}

static bool case_matches(pl_fast_resolver *r, const lut_case *c)
{
    pl_status want = run_case(c, portable_of(c->code), 0);
    pl_status got = run_case(c, r->resolver.find(r, c->code, NULL, 0, 1), 1);
    bool took_fast = r->host_bytes > r->capacity * sizeof(pl_fast_slot);
    pl_fast_resolver_release(r);
    if (want != got) {
        fprintf(stderr, "op %d: portable %d, fast %d\n", c->code, want, got);
        return false;
    }
    bool rsqrt_s8 = c->code == 76 && c->type == PL_INT8;
    if (want != PL_OK) /* refused alike (e.g. a HARD_SWISH scale ratio above one; int8 */
        return !took_fast || rsqrt_s8; /* RSQRT below its zero point: at invoke, portably) */
    fast_cases += took_fast;
    bool bytes = c->type == PL_INT8 || c->type == PL_UINT8;
    bool math = c->code == 8 || c->code == 104 || c->code == 59 || c->code == 75 ||
                c->code == 76 || c->code == 92;
    /* every float one: a vector loop; of the quantized math, int8 RSQRT: a table */
    bool fast = (bytes && (!math || rsqrt_s8)) || c->type == PL_FLOAT32;
    size_t n = (size_t)c->n;
    bool same = c->type == PL_FLOAT32
                    ? memcmp(out32[0], out32[1], sizeof(float) * n) == 0
                    : memcmp(out8[0], out8[1], bytes ? n : 2 * n) == 0;
    if (!same || took_fast != fast)
        fprintf(stderr, "op %d type %s scales %g/%g zps %d/%d alpha %g: %s\n", c->code,
                pl_type_name(c->type), (double)c->in_scale, (double)c->out_scale,
                (int)c->in_zp, (int)c->out_zp, (double)c->alpha,
                same ? "wrong path" : "differs");
    return same && took_fast == fast;
}

enum { SPECIALS = 17 };
static float specials[SPECIALS];

/* One random case: operator, type, scales, zero points, alpha and length, every input byte
** present and the float specials among random floats. */
static bool random_case_matches(pl_fast_resolver *r)
{
    static const pl_type types[] = {PL_INT8, PL_INT8, PL_UINT8, PL_INT16, PL_FLOAT32};
    lut_case c = {codes[between(0, OPS - 1)], types[between(0, 4)],
                  0.005f + (float)between(1, 400) / 4000.0f,
                  0.005f + (float)between(1, 400) / 4000.0f,
                  (float)between(-300, 300) / 100.0f, 0, 0,
                  between(0, 3) == 0 ? between(1, 140) : between(256, N)};
    if (c.type == PL_INT8) {
        c.in_zp = between(-128, 127);
        c.out_zp = between(-128, 127);
    } else if (c.type == PL_UINT8) {
        c.in_zp = between(0, 255);
        c.out_zp = between(0, 255);
    }
    if (c.code == 14 && (c.type == PL_INT8 || c.type == PL_UINT8)) {
        /* TFLite's 8-bit LOGISTIC output: scale 1/256 from the type's lowest value */
        c.out_scale = 1.0f / 256;
        c.out_zp = c.type == PL_INT8 ? -128 : 0;
    }
    for (int i = 0; i < 2 * N; i++) /* every byte in the first 256 when n allows */
        in8[i] = (uint8_t)(i < 256 ? i : between(0, 255));
    if (c.code == 76 && c.type == PL_INT8 && between(0, 3) != 0) /* RSQRT: mostly none */
        for (int i = 0; i < 2 * N; i++) /* below the zero point (refused) */
            if ((int8_t)in8[i] < c.in_zp)
                in8[i] = (uint8_t)(int8_t)c.in_zp;
    for (int i = 0; i < N; i++) { /* the edges of HARD_SWISH's and RELU's clamps, any bits */
        uint32_t bits = (uint32_t)between(0, 0xffff) << 16 | (uint32_t)between(0, 0xffff);
        int pick = between(0, 11);
        in32[i] = pick < 9 ? unit() * 8.0f : specials[between(0, SPECIALS - 1)];
        if (pick == 11)
            memcpy(&in32[i], &bits, sizeof bits);
    }
    return case_matches(r, &c);
}

static void set_specials(void)
{
    const float s[SPECIALS] = {0.0f, -0.0f, -3.0f, 3.0f, -3.0000002f, 2.9999998f, 6.0f,
                               INFINITY, -INFINITY, NAN, -NAN, 1e-40f, -1.0f, 1.0f,
                               -1.0000001f, 0.99999994f, 6.0000005f};
    memcpy(specials, s, sizeof s);
}

static void byte_activations_equal_portable(void)
{
    set_specials();
    fast_equals_portable(&portable, "byte activations", 400, 120, random_case_matches);
}

/* The lookups and float loops split in spans over 3 threads (every job split) give the
** same bytes. */
static void activations_threads_equal_portable(void)
{
    set_specials();
    fast_threads_equal_portable(&portable, "activations", 200, 10, random_case_matches);
}

int main(void)
{
    RUN(byte_activations_equal_portable);
    RUN(activations_threads_equal_portable);
    return HARNESS_END();
}
