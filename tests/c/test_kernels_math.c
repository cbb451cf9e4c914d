/* test_kernels_math.c - the elementwise math kernels' tricky paths by hand: ROUND half to
** even, FLOOR_DIV/FLOOR_MOD signs and wrapping, division by zero, NEG wrapping, int8
** SQUARED_DIFFERENCE, the fixed-point inverse square root (RSQRT int8, L2_NORMALIZATION int8),
** int8 LOG_SOFTMAX, ADD_N (int32 and TFLM's int8), int16 SQUARED_DIFFERENCE, and refusals. */
#include <math.h>
#include <stdint.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernels/activation/elu.h"
#include "kernels/activation/l2norm.h"
#include "kernels/activation/log_softmax.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/common/invsqrt.h"
#include "kernels/elementwise/add_n.h"
#include "kernels/elementwise/floor_div.h"
#include "kernels/elementwise/math.h"
#include "kernels/elementwise/squared_difference.h"

static int32_t t1(pl_type type, int32_t n, void *data, size_t bytes, float scale, int64_t zp)
{
    int32_t dims[1] = {n};
    return kh_tensor(type, 1, dims, data, bytes, &scale, &zp, scale > 0 ? 1u : 0u, 0);
}

static void round_is_half_to_even(void)
{
    float in[7] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, -2.6f}, out[7];
    kh_setup();
    int32_t i = t1(PL_FLOAT32, 7, in, sizeof in, 0, 0);
    int32_t o = t1(PL_FLOAT32, 7, out, sizeof out, 0, 0);
    CHECK_EQ(kh_run(pl_round_registration(), &i, 1, &o, 1, NULL), PL_OK);
    CHECK(out[0] == 0 && out[1] == 2 && out[2] == 2 && out[3] == 0 && out[4] == -2);
    CHECK(out[5] == 2 && out[6] == -3);
}

/* The integer floor division equals LiteRT's floor((double)a / (double)b) everywhere. */
static void floor_div_s32_equals_the_double_floor(void)
{
    static const int32_t edges[] = {INT32_MIN, INT32_MIN + 1, -65537, -3, -2, -1, 1, 2, 3,
                                    65535, INT32_MAX - 1, INT32_MAX};
    uint32_t s = 12345u;
    int32_t bad = 0;
    for (int k = 0; k < 200000; k++) {
        s = s * 1664525u + 1013904223u;
        int32_t a = k < 144 ? edges[k % 12] : (int32_t)s;
        s = s * 1664525u + 1013904223u;
        int32_t b = k < 144 ? edges[k / 12] : (int32_t)(s >> (s % 31));
        if (b == 0 || (a == INT32_MIN && b == -1))
            continue;
        bad += pl_floor_div_s32(a, b) != (int32_t)floor((double)a / (double)b);
    }
    CHECK_EQ(bad, 0);
}

static void floor_div_and_mod_follow_the_divisor_sign(void)
{
    CHECK_EQ(pl_floor_div_s32(7, -2), -4);
    CHECK_EQ(pl_floor_div_s32(-7, 2), -4);
    CHECK_EQ(pl_floor_div_s32(INT32_MIN, -1), INT32_MIN); /* 2^31 wraps, as on x86 */
    CHECK_EQ(pl_floor_mod_s64(7, -2), -1);
    CHECK_EQ(pl_floor_mod_s64(-7, 2), 1);
    CHECK_EQ(pl_floor_mod_s64(INT64_MIN, -1), 0);
    CHECK(pl_floor_mod_f32(-7.5f, 2.0f) == 0.5f && pl_floor_mod_f32(7.5f, -2.0f) == -0.5f);
    int8_t a[2] = {-128, 7}, b[2] = {-1, -2}, o[2];
    kh_setup();
    int32_t in[2] = {t1(PL_INT8, 2, a, 2, 0, 0), t1(PL_INT8, 2, b, 2, 0, 0)};
    int32_t out = t1(PL_INT8, 2, o, 2, 0, 0);
    CHECK_EQ(kh_run(pl_floor_div_registration(), in, 2, &out, 1, NULL), PL_OK);
    CHECK(o[0] == -128 && o[1] == -4); /* 128 stored in int8 wraps */
}

static void division_by_zero_is_an_error(void)
{
    int32_t a[2] = {1, 2}, b[2] = {3, 0}, o[2];
    kh_setup();
    int32_t in[2] = {t1(PL_INT32, 2, a, 8, 0, 0), t1(PL_INT32, 2, b, 8, 0, 0)};
    int32_t out = t1(PL_INT32, 2, o, 8, 0, 0);
    CHECK_EQ(kh_run(pl_floor_mod_registration(), in, 2, &out, 1, NULL), PL_ERR_ARG);
    CHECK_STR_CONTAINS(kh.message, "division by 0");
}

static void neg_wraps_and_zeros_like_clears(void)
{
    int8_t a[3] = {-128, 5, 0}, o[3];
    int64_t z[2] = {7, -7};
    kh_setup();
    int32_t i = t1(PL_INT8, 3, a, 3, 0.5f, 3), out = t1(PL_INT8, 3, o, 3, 0.5f, 3);
    CHECK_EQ(kh_run(pl_neg_registration(), &i, 1, &out, 1, NULL), PL_OK);
    CHECK(o[0] == -128 && o[1] == -5 && o[2] == 0); /* stored values, as LiteRT */
    kh_setup();
    i = t1(PL_INT64, 2, z, sizeof z, 0, 0);
    out = t1(PL_INT64, 2, z, sizeof z, 0, 0);
    CHECK_EQ(kh_run(pl_zeros_like_registration(), &i, 1, &out, 1, NULL), PL_OK);
    CHECK(z[0] == 0 && z[1] == 0);
}

/* 1/sqrt(x) as multiplier * 2^shift / 2^31 within 2e-6 of the real value (five
** Newton-Raphson steps from 1 leave about 1e-6 at x = 2). */
static void inverse_sqrt_multiplier_is_accurate(void)
{
    const int32_t xs[5] = {2, 4, 1000, 65025, 1 << 30};
    for (int k = 0; k < 5; k++) {
        int32_t m, s;
        pl_invsqrt_multiplier(xs[k], -1, &m, &s);
        double got = (double)m / 2147483648.0 * ldexp(1.0, s);
        double want = 1.0 / sqrt((double)xs[k]);
        CHECK(fabs(got - want) / want < 2e-6);
    }
    int32_t m, s;
    pl_invsqrt_multiplier(0, -1, &m, &s);
    CHECK(m == INT32_MAX && s == 0);
}

/* in scale 1/64 zp -10, out scale 1/32 zp 0: rsqrt(q+10 / 64) * 32; 0 gives the maximum. */
static void rsqrt_int8_and_its_domain(void)
{
    int8_t in[3] = {-10, 54, 6}, o[3];
    kh_setup();
    int32_t i = t1(PL_INT8, 3, in, 3, 1.0f / 64, -10), out = t1(PL_INT8, 3, o, 3, 1.0f / 32, 0);
    CHECK_EQ(kh_run(pl_rsqrt_registration(), &i, 1, &out, 1, NULL), PL_OK);
    CHECK(o[0] == 127 && o[1] == 32 && o[2] == 64); /* 1/sqrt(1) * 32, 1/sqrt(1/4) * 32 */
    int8_t neg[1] = {-11};
    kh_setup();
    i = t1(PL_INT8, 1, neg, 1, 1.0f / 64, -10);
    out = t1(PL_INT8, 1, o, 1, 1.0f / 32, 0);
    CHECK_EQ(kh_run(pl_rsqrt_registration(), &i, 1, &out, 1, NULL), PL_ERR_ARG);
}

static void squared_difference_int8(void)
{
    /* both scale 1/16 zp 0, output scale 1/16 zp -128: (3 - 1)^2 / 16 * 16 = 4 -> -124 */
    int8_t a[2] = {48, 5}, b[2] = {16, 5}, o[2];
    kh_setup();
    int32_t in[2] = {t1(PL_INT8, 2, a, 2, 1.0f / 16, 0), t1(PL_INT8, 2, b, 2, 1.0f / 16, 0)};
    int32_t out = t1(PL_INT8, 2, o, 2, 1.0f / 16, -128);
    CHECK_EQ(kh_run(pl_squared_difference_registration(), in, 2, &out, 1, NULL), PL_OK);
    CHECK(o[0] == -128 + 64 && o[1] == -128);
}

/* [3, 4] / 5 in 1/128: 76.8 and 102.4. */
static void l2_normalization_int8(void)
{
    int8_t in[2] = {3, 4}, out[2];
    pl_l2norm_s8(0, in, out, 2);
    CHECK(out[0] >= 76 && out[0] <= 77 && out[1] >= 102 && out[1] <= 103);
    int8_t zero[2] = {5, 5};
    pl_l2norm_s8(5, zero, out, 2); /* a zero vector stays zero */
    CHECK(out[0] == 0 && out[1] == 0);
    uint8_t uin[2] = {131, 132}, uout[2]; /* uint8: the same around 128 */
    pl_l2norm_u8(128, uin, uout, 2);
    CHECK(uout[0] >= 204 && uout[0] <= 205 && uout[1] >= 230 && uout[1] <= 231);
}

/* A flat row of 4: log(1/4) = -1.386 in 16/256 steps from 127: 127 - 22.2 = 105. */
static void log_softmax_int8_flat_row(void)
{
    int8_t in[4] = {10, 10, 10, 10}, o[4];
    kh_setup();
    int32_t i = t1(PL_INT8, 4, in, 4, 0.1f, 0), out = t1(PL_INT8, 4, o, 4, 16.0f / 256, 127);
    CHECK_EQ(kh_run(pl_log_softmax_registration(), &i, 1, &out, 1, NULL), PL_OK);
    CHECK(o[0] >= 104 && o[0] <= 106 && o[1] == o[0] && o[3] == o[0]);
    uint8_t uin[4] = {10, 10, 10, 10}, uo[4]; /* uint8: zero point 255 */
    kh_setup();
    i = t1(PL_UINT8, 4, uin, 4, 0.1f, 0);
    out = t1(PL_UINT8, 4, uo, 4, 16.0f / 256, 255);
    CHECK_EQ(kh_run(pl_log_softmax_registration(), &i, 1, &out, 1, NULL), PL_OK);
    CHECK(uo[0] == o[0] + 128 && uo[3] == uo[0]);
    kh_setup(); /* any other output quantization is refused, as in LiteRT */
    i = t1(PL_INT8, 4, in, 4, 0.1f, 0);
    out = t1(PL_INT8, 4, o, 4, 0.1f, 127);
    CHECK_EQ(kh_run(pl_log_softmax_registration(), &i, 1, &out, 1, NULL), PL_ERR_UNSUPPORTED);
}

/* 4096 or more values near the maximum: the sum of exps wraps past 2^31 as in TFLite, and
** its log takes TFLite's saturating shifts there. Expectations: LiteRT BUILTIN_REF (2.3.0)
** on the same row (a 5000-wide int8 LOG_SOFTMAX converted by TensorFlow). */
static void log_softmax_int8_row_past_4096(void)
{
    static int8_t in[5000], o[5000];
    for (int k = 0; k < 5000; k++)
        in[k] = k < 4096 ? 5 : -128;
    kh_setup();
    int32_t i = t1(PL_INT8, 5000, in, 5000, 0.023333702f, 0);
    int32_t out = t1(PL_INT8, 5000, o, 5000, 0.0625f, 127);
    CHECK_EQ(kh_run(pl_log_softmax_registration(), &i, 1, &out, 1, NULL), PL_OK);
    CHECK(o[0] == -9 && o[4095] == -9 && o[4096] == -59 && o[4999] == -59);
}

static void add_n_wraps_and_checks_shapes(void)
{
    int32_t a[2] = {INT32_MAX, 1}, b[2] = {1, 2}, c[2] = {0, 3}, o[2];
    kh_setup();
    int32_t in[3] = {t1(PL_INT32, 2, a, 8, 0, 0), t1(PL_INT32, 2, b, 8, 0, 0),
                     t1(PL_INT32, 2, c, 8, 0, 0)};
    int32_t out = t1(PL_INT32, 2, o, 8, 0, 0);
    CHECK_EQ(kh_run(pl_add_n_registration(), in, 3, &out, 1, NULL), PL_OK);
    CHECK(o[0] == INT32_MIN && o[1] == 6);
    kh_setup();
    in[0] = t1(PL_INT32, 2, a, 8, 0, 0);
    in[1] = t1(PL_INT32, 1, b, 4, 0, 0);
    out = t1(PL_INT32, 2, o, 8, 0, 0);
    CHECK_EQ(kh_run(pl_add_n_registration(), in, 2, &out, 1, NULL), PL_ERR_MODEL);
}

/* TFLite's int8 AddN starts from the zero point's own scaled value: with zero points 10 and
** scale 0.5 everywhere, 13 + 14 gives (-10 + 3 + 4) + 10 = 7, not 17. */
static void add_n_int8_follows_tflm(void)
{
    int8_t a[2] = {13, 3}, b[2] = {14, 10}, o[2];
    kh_setup();
    int32_t in[2] = {t1(PL_INT8, 2, a, 2, 0.5f, 10), t1(PL_INT8, 2, b, 2, 0.5f, 10)};
    int32_t out = t1(PL_INT8, 2, o, 2, 0.5f, 10);
    CHECK_EQ(kh_run(pl_add_n_registration(), in, 2, &out, 1, NULL), PL_OK);
    CHECK(o[0] == 7 && o[1] == -7);
    kh_setup(); /* inputs of different quantizations are refused, as in TFLM */
    in[0] = t1(PL_INT8, 2, a, 2, 0.5f, 10);
    in[1] = t1(PL_INT8, 2, b, 2, 0.25f, 10);
    out = t1(PL_INT8, 2, o, 2, 0.5f, 10);
    CHECK_EQ(kh_run(pl_add_n_registration(), in, 2, &out, 1, NULL), PL_ERR_UNSUPPORTED);
}

/* int16, all scales 1/1024: (64/1024 - 0)^2 = 4/1024; no left shift, as TFLM. */
static void squared_difference_int16(void)
{
    int16_t a[2] = {64, -32}, b[2] = {0, 32}, o[2];
    kh_setup();
    int32_t in[2] = {t1(PL_INT16, 2, a, 4, 1.0f / 1024, 0),
                     t1(PL_INT16, 2, b, 4, 1.0f / 1024, 0)};
    int32_t out = t1(PL_INT16, 2, o, 4, 1.0f / 1024, 0);
    CHECK_EQ(kh_run(pl_squared_difference_registration(), in, 2, &out, 1, NULL), PL_OK);
    CHECK(o[0] == 4 && o[1] == 4);
    kh_setup(); /* int16 zero points must be 0 */
    in[0] = t1(PL_INT16, 2, a, 4, 1.0f / 1024, 3);
    in[1] = t1(PL_INT16, 2, b, 4, 1.0f / 1024, 0);
    out = t1(PL_INT16, 2, o, 4, 1.0f / 1024, 0);
    CHECK_EQ(kh_run(pl_squared_difference_registration(), in, 2, &out, 1, NULL), PL_ERR_MODEL);
}

static void elu_float_and_unsupported_type(void)
{
    CHECK(pl_elu_f32(2.0f) == 2.0f && fabsf(pl_elu_f32(-1.0f) - (expf(-1.0f) - 1)) < 1e-7f);
    int32_t in[1] = {1}, o[1];
    kh_setup();
    int32_t i = t1(PL_INT32, 1, in, 4, 0, 0), out = t1(PL_INT32, 1, o, 4, 0, 0);
    CHECK_EQ(kh_run(pl_elu_registration(), &i, 1, &out, 1, NULL), PL_ERR_UNSUPPORTED);
    kh_setup(); /* SIN has no integer form */
    i = t1(PL_INT32, 1, in, 4, 0, 0);
    out = t1(PL_INT32, 1, o, 4, 0, 0);
    CHECK_EQ(kh_run(pl_sin_registration(), &i, 1, &out, 1, NULL), PL_ERR_UNSUPPORTED);
}

int main(void)
{
    RUN(round_is_half_to_even);
    RUN(floor_div_and_mod_follow_the_divisor_sign);
    RUN(floor_div_s32_equals_the_double_floor);
    RUN(division_by_zero_is_an_error);
    RUN(neg_wraps_and_zeros_like_clears);
    RUN(inverse_sqrt_multiplier_is_accurate);
    RUN(rsqrt_int8_and_its_domain);
    RUN(squared_difference_int8);
    RUN(l2_normalization_int8);
    RUN(log_softmax_int8_flat_row);
    RUN(log_softmax_int8_row_past_4096);
    RUN(add_n_wraps_and_checks_shapes);
    RUN(add_n_int8_follows_tflm);
    RUN(squared_difference_int16);
    RUN(elu_float_and_unsupported_type);
    return HARNESS_END();
}
