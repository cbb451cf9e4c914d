/* test_kernels_softmax.c - SOFTMAX on hand-made tensors.
**
** Quantized expectations are LiteRT's own outputs (BUILTIN_REF, ai-edge-litert 2.3.0) for
** the same tensors; float ones are computed by hand. */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernels/registry.h"

/* SoftmaxOptions tables as the flatbuffer builder writes them (root offset, vtable, beta). */
static const uint8_t beta_1[] = {12, 0, 0, 0, 0, 0, 6, 0, 8, 0, 4, 0,
                                 6,  0, 0, 0, 0, 0, 128, 63};
static const uint8_t beta_half[] = {12, 0, 0, 0, 0, 0, 6, 0, 8, 0, 4, 0,
                                    6,  0, 0, 0, 0, 0, 0, 63};

static pl_table table_of(const uint8_t *buf, uint32_t size)
{
    pl_table t = {buf, size, 0, 0, 0};
    t.pos = pl_le32(buf);
    t.vtable = (uint32_t)((int64_t)t.pos - (int32_t)pl_le32(buf + t.pos));
    t.vt_bytes = pl_le16(buf + t.vtable);
    return t;
}

static pl_status run1(const uint8_t *opt, uint32_t opt_size, int32_t in, int32_t out)
{
    pl_table t = table_of(opt, opt_size);
    return kh_run(pl_softmax_registration(), &in, 1, &out, 1, &t);
}

static void softmax_f32_matches_formula(void)
{
    kh_setup();
    float x[6] = {1, 2, 3, -1, -1, -1}, y[6];
    int32_t dims[2] = {2, 3};
    int32_t in = kh_tensor(PL_FLOAT32, 2, dims, x, sizeof x, NULL, NULL, 0, 0);
    int32_t out = kh_tensor(PL_FLOAT32, 2, dims, y, sizeof y, NULL, NULL, 0, 0);
    CHECK_EQ(run1(beta_1, sizeof beta_1, in, out), PL_OK);
    const float want[3] = {0.09003057f, 0.24472847f, 0.66524096f};
    for (int i = 0; i < 3; i++) {
        CHECK(fabsf(y[i] - want[i]) < 1e-6f);
        CHECK(fabsf(y[3 + i] - 1.0f / 3) < 1e-6f);
    }
}

static void softmax_s8_matches_litert(void)
{
    kh_setup();
    int8_t x[6] = {-10, 0, 10, 20, 5, -128}, y[6];
    int32_t dims[2] = {1, 6};
    float si = 0.1f, so = 1.0f / 256;
    int64_t zi = 0, zo = -128;
    int32_t in = kh_tensor(PL_INT8, 2, dims, x, sizeof x, &si, &zi, 1, 0);
    int32_t out = kh_tensor(PL_INT8, 2, dims, y, sizeof y, &so, &zo, 1, 0);
    CHECK_EQ(run1(beta_1, sizeof beta_1, in, out), PL_OK);
    const int8_t want[6] = {-121, -108, -75, 16, -96, -128};
    for (int i = 0; i < 6; i++)
        CHECK_EQ(y[i], want[i]);
}

static void softmax_s8_beta_half_per_row(void)
{
    kh_setup();
    int8_t x[6] = {3, 7, 11, -100, 100, 0}, y[6];
    int32_t dims[2] = {2, 3};
    float si = 0.25f, so = 1.0f / 256;
    int64_t zi = 3, zo = -128;
    int32_t in = kh_tensor(PL_INT8, 2, dims, x, sizeof x, &si, &zi, 1, 0);
    int32_t out = kh_tensor(PL_INT8, 2, dims, y, sizeof y, &so, &zo, 1, 0);
    CHECK_EQ(run1(beta_half, sizeof beta_half, in, out), PL_OK);
    const int8_t want[6] = {-80, -49, 2, -128, 127, -128};
    for (int i = 0; i < 6; i++)
        CHECK_EQ(y[i], want[i]);
}

static void softmax_s8_to_s16_matches_litert(void)
{
    kh_setup();
    int8_t x[6] = {-10, 0, 10, 20, 5, -128};
    int16_t y[6];
    int32_t dims[2] = {1, 6};
    float si = 0.1f, so = 1.0f / 65536;
    int64_t zi = 0, zo = -32768;
    int32_t in = kh_tensor(PL_INT8, 2, dims, x, sizeof x, &si, &zi, 1, 0);
    int32_t out = kh_tensor(PL_INT16, 2, dims, y, sizeof y, &so, &zo, 1, 0);
    CHECK_EQ(run1(beta_1, sizeof beta_1, in, out), PL_OK);
    const int16_t want[6] = {-30931, -27774, -19194, 4130, -24535, -32768};
    for (int i = 0; i < 6; i++)
        CHECK_EQ(y[i], want[i]);
}

/* Rows of 512 or more equal values: TFLite's arithmetic asks for a rounding shift of 32 or
** more (its reference aborts there); each 1/n below 1/512 rounds to the lowest output, as
** LiteRT's optimized kernels give. A row of 300 (shift 31) keeps its 1/300 -> 1. */
static void softmax_s8_wide_flat_rows_round_to_zero(void)
{
    static int8_t x[1000], y[1000];
    const int32_t widths[3] = {1000, 600, 300};
    const int8_t want[3] = {-128, -128, -127};
    for (int w = 0; w < 3; w++) {
        kh_setup();
        int32_t dims[2] = {1, widths[w]};
        float si = 0.02f, so = 1.0f / 256;
        int64_t zi = -1, zo = -128;
        memset(x, 5, sizeof x);
        memset(y, 99, sizeof y);
        int32_t in = kh_tensor(PL_INT8, 2, dims, x, (size_t)widths[w], &si, &zi, 1, 0);
        int32_t out = kh_tensor(PL_INT8, 2, dims, y, (size_t)widths[w], &so, &zo, 1, 0);
        CHECK_EQ(run1(beta_1, sizeof beta_1, in, out), PL_OK);
        for (int32_t i = 0; i < widths[w]; i++)
            CHECK_EQ(y[i], want[w]);
    }
}

static void softmax_s16_uses_exp_table(void)
{
    kh_setup();
    int16_t x[6] = {1024, 1830, -2865, 1847, -187, 91}, y[6];
    int32_t dims[2] = {1, 6};
    float si = 0.001f, so = 1.0f / 32768;
    int64_t zi = 0, zo = 0;
    int32_t in = kh_tensor(PL_INT16, 2, dims, x, sizeof x, &si, &zi, 1, 0);
    int32_t out = kh_tensor(PL_INT16, 2, dims, y, sizeof y, &so, &zo, 1, 0);
    CHECK_EQ(run1(beta_1, sizeof beta_1, in, out), PL_OK);
    const int16_t want[6] = {5261, 11781, 108, 11982, 1567, 2070};
    for (int i = 0; i < 6; i++)
        CHECK_EQ(y[i], want[i]);
}

static void softmax_rejects_int8_output_off_1_over_256(void)
{
    kh_setup();
    int8_t x[4] = {0}, y[4];
    int32_t dims[1] = {4};
    float si = 0.1f, so = 0.01f;
    int64_t zi = 0, zo = -128;
    int32_t in = kh_tensor(PL_INT8, 1, dims, x, sizeof x, &si, &zi, 1, 0);
    int32_t out = kh_tensor(PL_INT8, 1, dims, y, sizeof y, &so, &zo, 1, 0);
    CHECK_EQ(run1(beta_1, sizeof beta_1, in, out), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "1/256");
}

static void softmax_rejects_float_to_int8(void)
{
    kh_setup();
    float x[4] = {0};
    int8_t y[4];
    int32_t dims[1] = {4};
    float so = 1.0f / 256;
    int64_t zo = -128;
    int32_t in = kh_tensor(PL_FLOAT32, 1, dims, x, sizeof x, NULL, NULL, 0, 0);
    int32_t out = kh_tensor(PL_INT8, 1, dims, y, sizeof y, &so, &zo, 1, 0);
    CHECK_EQ(run1(beta_1, sizeof beta_1, in, out), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "FLOAT32");
}

/* The output takes the input's shape through set_shape (the runtime refuses a model whose
** declared shape differs unless its inputs were resized). */
static void softmax_output_takes_the_input_shape(void)
{
    kh_setup();
    float x[4] = {0}, y[4];
    int32_t dims[1] = {4}, odims[2] = {2, 2};
    int32_t in = kh_tensor(PL_FLOAT32, 1, dims, x, sizeof x, NULL, NULL, 0, 0);
    int32_t out = kh_tensor(PL_FLOAT32, 2, odims, y, sizeof y, NULL, NULL, 0, 0);
    CHECK_EQ(run1(beta_1, sizeof beta_1, in, out), PL_OK);
    CHECK_EQ(kh.tensors[out].ndims, 1);
    CHECK_EQ(kh.tensors[out].dims[0], 4);
}

int main(void)
{
    RUN(softmax_f32_matches_formula);
    RUN(softmax_s8_matches_litert);
    RUN(softmax_s8_beta_half_per_row);
    RUN(softmax_s8_to_s16_matches_litert);
    RUN(softmax_s8_wide_flat_rows_round_to_zero);
    RUN(softmax_s16_uses_exp_table);
    RUN(softmax_rejects_int8_output_off_1_over_256);
    RUN(softmax_rejects_float_to_int8);
    RUN(softmax_output_takes_the_input_shape);
    return HARNESS_END();
}
