/* test_kernels_activations.c - RELU, RELU6, RELU_N1_TO_1, LEAKY_RELU, HARD_SWISH, PRELU,
** LOGISTIC and TANH on hand-made tensors.
**
** Quantized expectations are LiteRT's own outputs (BUILTIN_REF, ai-edge-litert 2.3.0) for
** the same tensors (a few are re-derived by hand in comments); float ones by hand. */
#include <math.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernels/common/fmath.h"
#include "kernels/registry.h"

/* LeakyReluOptions{alpha: 0.2} as the flatbuffer builder writes it. */
static const uint8_t alpha_02[] = {12, 0, 0, 0, 0, 0, 6, 0, 8, 0, 4, 0,
                                   6,  0, 0, 0, 205, 204, 76, 62};

static const int8_t in_s8[9] = {-128, -64, -20, -1, 0, 1, 20, 64, 127};
static const int16_t in_s16[9] = {-32768, -20000, -4096, -100, 0, 100, 4096, 20000, 32767};

static pl_table table_of(const uint8_t *buf, uint32_t size)
{
    pl_table t = {buf, size, 0, 0, 0};
    t.pos = pl_le32(buf);
    t.vtable = (uint32_t)((int64_t)t.pos - (int32_t)pl_le32(buf + t.pos));
    t.vt_bytes = pl_le16(buf + t.vtable);
    return t;
}

/* Runs reg on in_s8 (scale si, zero point zi) into y (so, zo); options may be NULL. */
static pl_status run_s8(const pl_registration *reg, float si, int64_t zi, float so,
                        int64_t zo, int8_t *y, const pl_table *options)
{
    static int8_t x[9];
    memcpy(x, in_s8, sizeof x);
    kh_setup();
    int32_t dims[2] = {1, 9};
    int32_t in = kh_tensor(PL_INT8, 2, dims, x, sizeof x, &si, &zi, 1, 0);
    int32_t out = kh_tensor(PL_INT8, 2, dims, y, 9, &so, &zo, 1, 0);
    return kh_run(reg, &in, 1, &out, 1, options);
}

static pl_status run_s16(const pl_registration *reg, float si, float so, int16_t *y,
                         const pl_table *options)
{
    static int16_t x[9];
    memcpy(x, in_s16, sizeof x);
    kh_setup();
    int32_t dims[2] = {1, 9};
    int64_t z = 0;
    int32_t in = kh_tensor(PL_INT16, 2, dims, x, sizeof x, &si, &z, 1, 0);
    int32_t out = kh_tensor(PL_INT16, 2, dims, y, 18, &so, &z, 1, 0);
    return kh_run(reg, &in, 1, &out, 1, options);
}

static pl_status run_f32(const pl_registration *reg, float *x, float *y, int32_t n,
                         const pl_table *options)
{
    kh_setup();
    int32_t in = kh_tensor(PL_FLOAT32, 1, &n, x, sizeof(float) * (size_t)n, NULL, NULL, 0, 0);
    int32_t out = kh_tensor(PL_FLOAT32, 1, &n, y, sizeof(float) * (size_t)n, NULL, NULL, 0, 0);
    return kh_run(reg, &in, 1, &out, 1, options);
}

#define CHECK_ALL(got, want, n)              \
    do {                                     \
        for (int i_ = 0; i_ < (n); i_++)     \
            CHECK_EQ((got)[i_], (want)[i_]); \
    } while (0)

static void relu_s8_requantizes_then_clamps(void)
{
    /* (127 - 5) * 0.1 / 0.05 = 244 -> -128 + 244 = 116; RELU6 caps at 6 / 0.05 = 120 -> -8 */
    int8_t y[9];
    CHECK_EQ(run_s8(pl_relu_registration(), 0.1f, 5, 0.05f, -128, y, NULL), PL_OK);
    const int8_t want[9] = {-128, -128, -128, -128, -128, -128, -98, -10, 116};
    CHECK_ALL(y, want, 9);
    kh_ctx.arith = PL_ARITH_LITERT;
    CHECK_EQ(run_s8(pl_relu6_registration(), 0.1f, 5, 0.05f, -128, y, NULL), PL_OK);
    kh_ctx.arith = PL_ARITH_TFLM;
    const int8_t want6[9] = {-128, -128, -128, -128, -128, -128, -98, -10, -8};
    CHECK_ALL(y, want6, 9);
}

/* TFLM's RELU6 never rescales: the input clamped to its zero point (5) and to 6 on the
** input's scale (5 + 6 / 0.1 = 65), whatever the output's scale and zero point. */
static void relu6_tflm_clamps_on_the_input_scale(void)
{
    int8_t y[9];
    CHECK_EQ(run_s8(pl_relu6_registration(), 0.1f, 5, 0.05f, -128, y, NULL), PL_OK);
    const int8_t want[9] = {5, 5, 5, 5, 5, 5, 20, 64, 65};
    CHECK_ALL(y, want, 9);
    int16_t z[9];
    CHECK_EQ(run_s16(pl_relu6_registration(), 0.001f, 0.0007f, z, NULL), PL_OK);
    const int16_t want16[9] = {0, 0, 0, 0, 0, 100, 4096, 6000, 6000};
    CHECK_ALL(z, want16, 9);
}

static void relu_s16_matches_litert(void)
{
    int16_t y[9];
    CHECK_EQ(run_s16(pl_relu_registration(), 0.001f, 0.0007f, y, NULL), PL_OK);
    const int16_t want[9] = {0, 0, 0, 0, 0, 143, 5851, 28571, 32767};
    CHECK_ALL(y, want, 9);
}

static void relu_float_family_clamps(void)
{
    float x[5] = {-7.0f, -1.0f, -0.5f, 0.5f, 7.0f}, y[5];
    CHECK_EQ(run_f32(pl_relu_registration(), x, y, 5, NULL), PL_OK);
    CHECK(y[0] == 0.0f && y[2] == 0.0f && y[3] == 0.5f && y[4] == 7.0f);
    CHECK_EQ(run_f32(pl_relu6_registration(), x, y, 5, NULL), PL_OK);
    CHECK(y[0] == 0.0f && y[3] == 0.5f && y[4] == 6.0f);
    CHECK_EQ(run_f32(pl_relu_n1_to_1_registration(), x, y, 5, NULL), PL_OK);
    CHECK(y[0] == -1.0f && y[1] == -1.0f && y[2] == -0.5f && y[3] == 0.5f && y[4] == 1.0f);
}

static void relu_n1_to_1_rejects_int16(void)
{
    int16_t y[9];
    CHECK_EQ(run_s16(pl_relu_n1_to_1_registration(), 0.001f, 0.001f, y, NULL),
             PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "INT16");
}

static void leaky_relu_uses_both_multipliers(void)
{
    pl_table t = table_of(alpha_02, sizeof alpha_02);
    int8_t y[9];
    CHECK_EQ(run_s8(pl_leaky_relu_registration(), 0.1f, 5, 0.05f, -20, y, &t), PL_OK);
    const int8_t want[9] = {-73, -48, -30, -23, -22, -22, 10, 98, 127};
    CHECK_ALL(y, want, 9);
    int16_t z[9];
    CHECK_EQ(run_s16(pl_leaky_relu_registration(), 0.001f, 0.0007f, z, &t), PL_OK);
    const int16_t want16[9] = {-9363, -5715, -1171, -29, 0, 143, 5851, 28571, 32767};
    CHECK_ALL(z, want16, 9);
    float x[3] = {-2.0f, 0.0f, 3.0f}, f[3];
    CHECK_EQ(run_f32(pl_leaky_relu_registration(), x, f, 3, &t), PL_OK);
    CHECK(fabsf(f[0] + 0.4f) < 1e-7f && f[1] == 0.0f && f[2] == 3.0f);
}

static void hard_swish_s8_and_f32(void)
{
    int8_t y[9];
    CHECK_EQ(run_s8(pl_hard_swish_registration(), 0.05f, -2, 0.03f, -100, y, NULL), PL_OK);
    const int8_t want[9] = {-100, -100, -111, -99, -98, -97, -75, 10, 115};
    CHECK_ALL(y, want, 9);
    float x[4] = {-4.0f, -1.5f, 1.0f, 4.0f}, f[4];
    CHECK_EQ(run_f32(pl_hard_swish_registration(), x, f, 4, NULL), PL_OK);
    CHECK(f[0] == 0.0f && f[1] == -0.375f && fabsf(f[2] - 4.0f / 6) < 1e-7f && f[3] == 4.0f);
}

static void hard_swish_rejects_int16(void)
{
    int16_t y[9];
    CHECK_EQ(run_s16(pl_hard_swish_registration(), 0.001f, 0.001f, y, NULL),
             PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "input 0 is INT16, expected FLOAT32, UINT8 or INT8");
}

static void prelu_broadcasts_alpha(void)
{
    kh_setup();
    int8_t x[6] = {-50, 0, 50, -128, 127, -1}, a[3] = {10, -20, 30}, y[6];
    int32_t dims[3] = {1, 2, 3}, adims[1] = {3};
    float si = 0.1f, sa = 0.01f, so = 0.08f;
    int64_t zi = 3, za = 0, zo = -10;
    int32_t ins[2], out;
    ins[0] = kh_tensor(PL_INT8, 3, dims, x, sizeof x, &si, &zi, 1, 0);
    ins[1] = kh_tensor(PL_INT8, 1, adims, a, sizeof a, &sa, &za, 1, 0);
    out = kh_tensor(PL_INT8, 3, dims, y, sizeof y, &so, &zo, 1, 0);
    CHECK_EQ(kh_run(pl_prelu_registration(), ins, 2, &out, 1, NULL), PL_OK);
    const int8_t want[6] = {-17, -9, 49, -26, 127, -12};
    CHECK_ALL(y, want, 6);

    kh_setup();
    float fx[4] = {-2.0f, 3.0f, -4.0f, 5.0f}, fa[2] = {0.5f, -1.0f}, fy[4];
    int32_t fdims[2] = {2, 2}, fadims[1] = {2};
    ins[0] = kh_tensor(PL_FLOAT32, 2, fdims, fx, sizeof fx, NULL, NULL, 0, 0);
    ins[1] = kh_tensor(PL_FLOAT32, 1, fadims, fa, sizeof fa, NULL, NULL, 0, 0);
    out = kh_tensor(PL_FLOAT32, 2, fdims, fy, sizeof fy, NULL, NULL, 0, 0);
    CHECK_EQ(kh_run(pl_prelu_registration(), ins, 2, &out, 1, NULL), PL_OK);
    CHECK(fy[0] == -1.0f && fy[1] == 3.0f && fy[2] == -2.0f && fy[3] == 5.0f);
}

static void prelu_rejects_mixed_types(void)
{
    kh_setup();
    float x[2] = {0}, y[2];
    int8_t a[2] = {0};
    int32_t dims[1] = {2};
    float s = 0.1f;
    int64_t z = 0;
    int32_t ins[2], out;
    ins[0] = kh_tensor(PL_FLOAT32, 1, dims, x, sizeof x, NULL, NULL, 0, 0);
    ins[1] = kh_tensor(PL_INT8, 1, dims, a, sizeof a, &s, &z, 1, 0);
    out = kh_tensor(PL_FLOAT32, 1, dims, y, sizeof y, NULL, NULL, 0, 0);
    CHECK_EQ(kh_run(pl_prelu_registration(), ins, 2, &out, 1, NULL), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "input 1 is INT8, expected FLOAT32");
}

static void logistic_s8_table_and_s16_interpolation(void)
{
    int8_t y[9];
    CHECK_EQ(run_s8(pl_logistic_registration(), 0.05f, -2, 1.0f / 256, -128, y, NULL), PL_OK);
    const int8_t want[9] = {-128, -117, -54, 3, 6, 10, 64, 119, 127};
    CHECK_ALL(y, want, 9);
    int16_t z[9];
    CHECK_EQ(run_s16(pl_logistic_registration(), 1.0f / 4096, 1.0f / 32768, z, NULL), PL_OK);
    const int16_t pot[9] = {11, 247, 8812, 16184, 16384, 16584, 23956, 32521, 32757};
    CHECK_ALL(z, pot, 9);
    CHECK_EQ(run_s16(pl_logistic_registration(), 0.0003f, 1.0f / 32768, z, NULL), PL_OK);
    const int16_t general[9] = {2, 81, 7419, 16138, 16384, 16630, 25349, 32687, 32766};
    CHECK_ALL(z, general, 9);
}

/* The reference's cutoffs: e^x below -9 (1 + e^-x would lose e^x's low bits: the relative
** error reached 1.2e-4 near -16), exactly 1 above 16.619..., 1 / (1 + e^-x) between. */
static void logistic_f32_is_one_over_one_plus_exp(void)
{
    float x[8] = {0.0f, 2.0f, -2.0f, 500.0f, -9.5f, -16.0f, -9.0f, 16.7f}, y[8];
    CHECK_EQ(run_f32(pl_logistic_registration(), x, y, 8, NULL), PL_OK);
    CHECK(y[0] == 0.5f && fabsf(y[1] - 0.88079708f) < 1e-7f);
    CHECK(fabsf(y[2] - 0.11920292f) < 1e-7f && y[3] == 1.0f);
    CHECK(y[4] == pl_fmath_expf(-9.5f) && y[5] == pl_fmath_expf(-16.0f));
    CHECK(y[6] == 1.0f / (1.0f + pl_fmath_expf(9.0f)) && y[7] == 1.0f);
}

/* LiteRT refuses an int8 output scale other than 1/256; TFLM takes any scale (its output
** is 2^-8 whatever the tensor says) but refuses a zero point other than -128. */
static void logistic_rejects_int8_output_scale(void)
{
    int8_t y[9];
    kh_ctx.arith = PL_ARITH_LITERT;
    CHECK_EQ(run_s8(pl_logistic_registration(), 0.05f, 0, 0.01f, -128, y, NULL),
             PL_ERR_UNSUPPORTED);
    kh_ctx.arith = PL_ARITH_TFLM;
    CHECK_STR_CONTAINS(kh.message, "1/256");
    CHECK_EQ(run_s8(pl_logistic_registration(), 0.05f, 0, 0.01f, -128, y, NULL), PL_OK);
    CHECK_EQ(run_s8(pl_logistic_registration(), 0.05f, 0, 1.0f / 256, 0, y, NULL),
             PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "-128");
}

static void tanh_s8_and_s16(void)
{
    int8_t y[9];
    CHECK_EQ(run_s8(pl_tanh_registration(), 0.05f, -2, 1.0f / 128, 0, y, NULL), PL_OK);
    const int8_t want[9] = {-128, -127, -92, 6, 13, 19, 102, 127, 127};
    CHECK_ALL(y, want, 9);
    int16_t z[9];
    CHECK_EQ(run_s16(pl_tanh_registration(), 1.0f / 2048, 1.0f / 32768, z, NULL), PL_OK);
    const int16_t pot[9] = {-32767, -32767, -31589, -1599, 0, 1599, 31589, 32767, 32767};
    CHECK_ALL(z, pot, 9);
    CHECK_EQ(run_s16(pl_tanh_registration(), 0.0003f, 1.0f / 32768, z, NULL), PL_OK);
    const int16_t general[9] = {-32767, -32767, -27598, -984, 0, 984, 27598, 32767, 32767};
    CHECK_ALL(z, general, 9);
    float x[2] = {0.5f, -3.0f}, f[2];
    CHECK_EQ(run_f32(pl_tanh_registration(), x, f, 2, NULL), PL_OK);
    CHECK(fabsf(f[0] - 0.46211716f) < 1e-7f && fabsf(f[1] + 0.99505475f) < 1e-7f);
}

static void tanh_rejects_int16_output_scale(void)
{
    int16_t y[9];
    CHECK_EQ(run_s16(pl_tanh_registration(), 0.001f, 0.001f, y, NULL), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "2^-15");
}

int main(void)
{
    RUN(relu_s8_requantizes_then_clamps);
    RUN(relu6_tflm_clamps_on_the_input_scale);
    RUN(relu_s16_matches_litert);
    RUN(relu_float_family_clamps);
    RUN(relu_n1_to_1_rejects_int16);
    RUN(leaky_relu_uses_both_multipliers);
    RUN(hard_swish_s8_and_f32);
    RUN(hard_swish_rejects_int16);
    RUN(prelu_broadcasts_alpha);
    RUN(prelu_rejects_mixed_types);
    RUN(logistic_s8_table_and_s16_interpolation);
    RUN(logistic_f32_is_one_over_one_plus_exp);
    RUN(logistic_rejects_int8_output_scale);
    RUN(tanh_s8_and_s16);
    RUN(tanh_rejects_int16_output_scale);
    return HARNESS_END();
}
