/* test_kernels_quantize.c - QUANTIZE and DEQUANTIZE on hand-made tensors.
**
** Expectations are round(x / scale) + zero_point by hand, checked against LiteRT's
** BUILTIN_REF outputs (ai-edge-litert 2.3.0) for the same tensors. */
#include <math.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernels/registry.h"

static pl_status run1(const pl_registration *reg, int32_t in, int32_t out)
{
    return kh_run(reg, &in, 1, &out, 1, NULL);
}

static void quantize_f32_to_s8_rounds_half_away(void)
{
    kh_setup();
    /* 1e10 overflows the int32 conversion (INT32_MIN on LiteRT's platforms) before the zero
    ** point is added with wraparound and the clamp: LiteRT gives 127 here, and so do we */
    float x[9] = {-3.0f, -0.26f, 0.0f, 0.04f, 0.05f, 0.26f, 12.7f, 13.0f, 1e9f};
    int8_t y[9];
    int32_t dims[2] = {1, 9};
    float so = 0.1f;
    int64_t zo = -3;
    int32_t in = kh_tensor(PL_FLOAT32, 2, dims, x, sizeof x, NULL, NULL, 0, 0);
    int32_t out = kh_tensor(PL_INT8, 2, dims, y, sizeof y, &so, &zo, 1, 0);
    CHECK_EQ(run1(pl_quantize_registration(), in, out), PL_OK);
    const int8_t want[9] = {-33, -6, -3, -3, -2, 0, 124, 127, 127};
    for (int i = 0; i < 9; i++)
        CHECK_EQ(y[i], want[i]);
}

static void quantize_f32_to_s16(void)
{
    kh_setup();
    float x[5] = {-3.0f, -0.26f, 0.0f, 0.0412f, 40.0f};
    int16_t y[5];
    int32_t dims[1] = {5};
    float so = 0.001f;
    int64_t zo = 0;
    int32_t in = kh_tensor(PL_FLOAT32, 1, dims, x, sizeof x, NULL, NULL, 0, 0);
    int32_t out = kh_tensor(PL_INT16, 1, dims, y, sizeof y, &so, &zo, 1, 0);
    CHECK_EQ(run1(pl_quantize_registration(), in, out), PL_OK);
    const int16_t want[5] = {-3000, -260, 0, 41, 32767};
    for (int i = 0; i < 5; i++)
        CHECK_EQ(y[i], want[i]);
}

static void quantize_f32_per_channel_uses_each_scale(void)
{
    kh_setup();
    float x[6] = {1.0f, 1.0f, 1.0f, -1.0f, -1.0f, -1.0f};
    int8_t y[6];
    int32_t dims[2] = {2, 3};
    float so[3] = {0.1f, 0.5f, 0.02f};
    int64_t zo[3] = {0, 10, -5};
    int32_t in = kh_tensor(PL_FLOAT32, 2, dims, x, sizeof x, NULL, NULL, 0, 0);
    int32_t out = kh_tensor(PL_INT8, 2, dims, y, sizeof y, so, zo, 3, 1);
    CHECK_EQ(run1(pl_quantize_registration(), in, out), PL_OK);
    const int8_t want[6] = {10, 12, 45, -10, 8, -55};
    for (int i = 0; i < 6; i++)
        CHECK_EQ(y[i], want[i]);
}

static void requantize_s8_to_s8_matches_litert(void)
{
    kh_setup();
    int8_t x[9] = {-128, -64, -20, -1, 0, 1, 20, 64, 127}, y[9];
    int32_t dims[1] = {9};
    float si = 0.1f, so = 0.07f;
    int64_t zi = 5, zo = -3;
    int32_t in = kh_tensor(PL_INT8, 1, dims, x, sizeof x, &si, &zi, 1, 0);
    int32_t out = kh_tensor(PL_INT8, 1, dims, y, sizeof y, &so, &zo, 1, 0);
    CHECK_EQ(run1(pl_quantize_registration(), in, out), PL_OK);
    const int8_t want[9] = {-128, -102, -39, -12, -10, -9, 18, 81, 127};
    for (int i = 0; i < 9; i++)
        CHECK_EQ(y[i], want[i]);
}

static void requantize_s16_to_s8_and_s8_to_s16(void)
{
    kh_setup();
    int16_t x[9] = {-32768, -20000, -4096, -100, 0, 100, 4096, 20000, 32767};
    int8_t y[9];
    int32_t dims[1] = {9};
    float si = 0.001f, so = 0.2f;
    int64_t zi = 0, zo = 1;
    int32_t in = kh_tensor(PL_INT16, 1, dims, x, sizeof x, &si, &zi, 1, 0);
    int32_t out = kh_tensor(PL_INT8, 1, dims, y, sizeof y, &so, &zo, 1, 0);
    CHECK_EQ(run1(pl_quantize_registration(), in, out), PL_OK);
    const int8_t want[9] = {-128, -99, -19, 0, 1, 2, 21, 101, 127};
    for (int i = 0; i < 9; i++)
        CHECK_EQ(y[i], want[i]);

    kh_setup();
    int8_t a[3] = {-128, 5, 127};
    int16_t b[3];
    int32_t d3[1] = {3};
    float sa = 0.1f, sb = 0.001f;
    int64_t za = 5, zb = 0;
    in = kh_tensor(PL_INT8, 1, d3, a, sizeof a, &sa, &za, 1, 0);
    out = kh_tensor(PL_INT16, 1, d3, b, sizeof b, &sb, &zb, 1, 0);
    CHECK_EQ(run1(pl_quantize_registration(), in, out), PL_OK);
    CHECK_EQ(b[0], -13300);
    CHECK_EQ(b[1], 0);
    CHECK_EQ(b[2], 12200);
}

static void quantize_rejects_float_to_float(void)
{
    kh_setup();
    float x[2] = {0}, y[2];
    int32_t dims[1] = {2};
    float so = 0.1f;
    int64_t zo = 0;
    int32_t in = kh_tensor(PL_FLOAT32, 1, dims, x, sizeof x, NULL, NULL, 0, 0);
    int32_t out = kh_tensor(PL_FLOAT32, 1, dims, y, sizeof y, &so, &zo, 1, 0);
    CHECK_EQ(run1(pl_quantize_registration(), in, out), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "QUANTIZE");
}

static void dequantize_s8_s16_and_per_channel(void)
{
    kh_setup();
    int8_t a[3] = {-128, 0, 127};
    float y[3];
    int32_t dims[1] = {3};
    float s = 0.5f;
    int64_t z = -2;
    int32_t in = kh_tensor(PL_INT8, 1, dims, a, sizeof a, &s, &z, 1, 0);
    int32_t out = kh_tensor(PL_FLOAT32, 1, dims, y, sizeof y, NULL, NULL, 0, 0);
    CHECK_EQ(run1(pl_dequantize_registration(), in, out), PL_OK);
    CHECK(y[0] == -63.0f && y[1] == 1.0f && y[2] == 64.5f);

    kh_setup();
    int16_t b[3] = {-32768, 1, 32767};
    float s16 = 0.25f;
    int64_t z16 = 0;
    in = kh_tensor(PL_INT16, 1, dims, b, sizeof b, &s16, &z16, 1, 0);
    out = kh_tensor(PL_FLOAT32, 1, dims, y, sizeof y, NULL, NULL, 0, 0);
    CHECK_EQ(run1(pl_dequantize_registration(), in, out), PL_OK);
    CHECK(y[0] == -8192.0f && y[1] == 0.25f && y[2] == 8191.75f);

    kh_setup();
    int8_t c[4] = {10, 10, -10, -10};
    float pc[4];
    int32_t d2[2] = {2, 2};
    float sc[2] = {0.5f, 2.0f};
    int64_t zc[2] = {0, 1};
    in = kh_tensor(PL_INT8, 2, d2, c, sizeof c, sc, zc, 2, 1);
    out = kh_tensor(PL_FLOAT32, 2, d2, pc, sizeof pc, NULL, NULL, 0, 0);
    CHECK_EQ(run1(pl_dequantize_registration(), in, out), PL_OK);
    CHECK(pc[0] == 5.0f && pc[1] == 18.0f && pc[2] == -5.0f && pc[3] == -22.0f);
}

/* Per tensor, the float product equals the reference's double one rounded to float: random
** scales (every exponent) and every int16 value, zero points far apart included. */
static void dequantize_s16_equals_the_double_product(void)
{
    static int16_t q[65536];
    static float y[65536];
    for (int32_t i = 0; i < 65536; i++)
        q[i] = (int16_t)(i - 32768);
    uint32_t seed = 99u;
    int32_t dims[1] = {65536}, bad = 0;
    for (int k = 0; k < 40; k++) {
        seed = seed * 1664525u + 1013904223u;
        uint32_t bits = (seed >> 9) | ((uint32_t)(20 + k * 5) << 23); /* 2^-107 .. 2^88 */
        float s;
        memcpy(&s, &bits, sizeof s);
        int64_t z = k % 3 == 0 ? 0 : (int64_t)(seed % 65536) - 32768;
        kh_setup();
        int32_t in = kh_tensor(PL_INT16, 1, dims, q, sizeof q, &s, &z, 1, 0);
        int32_t out = kh_tensor(PL_FLOAT32, 1, dims, y, sizeof y, NULL, NULL, 0, 0);
        CHECK_EQ(run1(pl_dequantize_registration(), in, out), PL_OK);
        for (int32_t i = 0; i < 65536; i++) {
            float want = (float)((double)s * (double)((int64_t)q[i] - z));
            bad += memcmp(&y[i], &want, sizeof want) != 0;
        }
    }
    CHECK_EQ(bad, 0);
}

static void dequantize_f16_is_exact(void)
{
    kh_setup();
    uint16_t h[6] = {0x3C00, 0xC000, 0x0001, 0x7BFF, 0x7C00, 0x8000};
    float y[6];
    int32_t dims[1] = {6};
    int32_t in = kh_tensor(PL_FLOAT16, 1, dims, h, sizeof h, NULL, NULL, 0, 0);
    int32_t out = kh_tensor(PL_FLOAT32, 1, dims, y, sizeof y, NULL, NULL, 0, 0);
    CHECK_EQ(run1(pl_dequantize_registration(), in, out), PL_OK);
    CHECK(y[0] == 1.0f && y[1] == -2.0f && y[2] == 0x1p-24f && y[3] == 65504.0f);
    CHECK(isinf(y[4]) && y[4] > 0 && y[5] == 0.0f && signbit(y[5]));
}

static void dequantize_rejects_int32_input(void)
{
    kh_setup();
    int32_t a[2] = {0};
    float y[2];
    int32_t dims[1] = {2};
    float s = 0.5f;
    int64_t z = 0;
    int32_t in = kh_tensor(PL_INT32, 1, dims, a, sizeof a, &s, &z, 1, 0);
    int32_t out = kh_tensor(PL_FLOAT32, 1, dims, y, sizeof y, NULL, NULL, 0, 0);
    CHECK_EQ(run1(pl_dequantize_registration(), in, out), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "INT32");
}

int main(void)
{
    RUN(quantize_f32_to_s8_rounds_half_away);
    RUN(quantize_f32_to_s16);
    RUN(quantize_f32_per_channel_uses_each_scale);
    RUN(requantize_s8_to_s8_matches_litert);
    RUN(requantize_s16_to_s8_and_s8_to_s16);
    RUN(quantize_rejects_float_to_float);
    RUN(dequantize_s8_s16_and_per_channel);
    RUN(dequantize_f16_is_exact);
    RUN(dequantize_s16_equals_the_double_product);
    RUN(dequantize_rejects_int32_input);
    return HARNESS_END();
}
