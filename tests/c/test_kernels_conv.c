/* test_kernels_conv.c - CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV on hand-checked cases.
** Float expectations come from TFLite's conv_test.cc / depthwise_conv_test.cc /
** transpose_conv_test.cc; quantized ones are worked by hand from the reference formulas.
** Bit-exactness against LiteRT over many shapes is checked with generated models. */
#include <stdint.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernels/conv.h"
#include "kernels/depthwise_conv.h"
#include "kernels/transpose_conv.h"

/* A flatbuffer options table with fields 0..n-1 present, each stored in 4 bytes
** (byte-sized fields read the low byte, little-endian). */
typedef struct opts {
    _Alignas(4) uint8_t buf[128];
    pl_table t;
} opts;

static const pl_table *make_opts(opts *o, const int32_t *fields, uint32_t n)
{
    uint32_t vt_bytes = 4u + 2u * n, pos = (vt_bytes + 3u) & ~3u;
    memset(o->buf, 0, sizeof o->buf);
    o->buf[0] = (uint8_t)vt_bytes;
    o->buf[2] = (uint8_t)(4u + 4u * n);
    o->buf[pos] = (uint8_t)pos; /* soffset: the vtable sits pos bytes before the table */
    for (uint32_t i = 0; i < n; i++) {
        o->buf[4 + 2 * i] = (uint8_t)(4u + 4u * i);
        uint32_t v = (uint32_t)fields[i];
        for (uint32_t b = 0; b < 4; b++)
            o->buf[pos + 4 + 4 * i + b] = (uint8_t)(v >> (8 * b));
    }
    o->t.buf = o->buf;
    o->t.size = sizeof o->buf;
    o->t.pos = pos;
    o->t.vtable = 0;
    o->t.vt_bytes = (uint16_t)vt_bytes;
    return &o->t;
}

static int32_t tensor_f32(int32_t ndims, const int32_t *dims, float *data, size_t n)
{
    return kh_tensor(PL_FLOAT32, ndims, dims, data, n * sizeof(float), NULL, NULL, 0, 0);
}

static int32_t tensor_q(pl_type type, int32_t ndims, const int32_t *dims, void *data,
                        size_t bytes, float scale, int64_t zp)
{
    return kh_tensor(type, ndims, dims, data, bytes, &scale, &zp, 1, 0);
}

/* conv_test.cc SimpleTestFloat32: stride 2, VALID, two batches, three 2x2 filters. */
static void conv_float_matches_tflite_simple_test(void)
{
    float in[16] = {1, 1, 1, 1, 2, 2, 2, 2, 1, 2, 3, 4, 1, 2, 3, 4};
    float filter[12] = {1, 2, 3, 4, -1, 1, -1, 1, -1, -1, 1, 1};
    float bias[3] = {1, 2, 3};
    float out[12] = {0};
    const float want[12] = {18, 2, 5, 18, 2, 5, 17, 4, 3, 37, 4, 3};
    kh_setup();
    int32_t ind[4] = {2, 2, 4, 1}, fd[4] = {3, 2, 2, 1}, bd[1] = {3}, od[4] = {2, 1, 2, 3};
    int32_t ins[3] = {tensor_f32(4, ind, in, 16), tensor_f32(4, fd, filter, 12),
                      tensor_f32(1, bd, bias, 3)};
    int32_t outs[1] = {tensor_f32(4, od, out, 12)};
    opts o;
    const int32_t f[6] = {1 /* VALID */, 2, 2, 0, 1, 1};
    CHECK_EQ(kh_run(pl_conv_registration(), ins, 3, outs, 1, make_opts(&o, f, 6)), PL_OK);
    for (int i = 0; i < 12; i++)
        CHECK(out[i] == want[i]);
}

/* SAME padding, stride 1, RELU6 clamp, no bias: 3x3 ones filter over a 3x3 ramp. */
static void conv_float_same_padding_relu6_without_bias(void)
{
    float in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    float filter[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    float out[9] = {0};
    const float want[9] = {6, 6, 6, 6, 6, 6, 6, 6, 6};
    kh_setup();
    int32_t d[4] = {1, 3, 3, 1}, fd[4] = {1, 3, 3, 1};
    int32_t ins[2] = {tensor_f32(4, d, in, 9), tensor_f32(4, fd, filter, 9)};
    int32_t outs[1] = {tensor_f32(4, d, out, 9)};
    opts o;
    const int32_t f[4] = {0 /* SAME */, 1, 1, 3 /* RELU6 */};
    CHECK_EQ(kh_run(pl_conv_registration(), ins, 2, outs, 1, make_opts(&o, f, 4)), PL_OK);
    for (int i = 0; i < 9; i++)
        CHECK(out[i] == want[i]);
}

/* int8 per-channel by hand: 1x1 conv, input scale 0.5 zp 1, filter scales {0.5, 0.25},
** output scale 1 zp -1. in q=5 -> real 2; ch0 w=2 (real 1) -> 2 -> q 1; ch1 w=-4
** (real -1) + bias 8 (real 1) -> -1 -> q -2. */
static void conv_int8_per_channel_by_hand(void)
{
    int8_t in[1] = {5}, filter[2] = {2, -4}, out[2] = {0};
    int32_t bias[2] = {0, 8};
    float fs[2] = {0.5f, 0.25f}, bs[2] = {0.25f, 0.125f};
    int64_t zps[2] = {0, 0};
    kh_setup();
    int32_t d[4] = {1, 1, 1, 1}, fd[4] = {2, 1, 1, 1}, bd[1] = {2}, od[4] = {1, 1, 1, 2};
    int32_t ins[3] = {tensor_q(PL_INT8, 4, d, in, 1, 0.5f, 1),
                      kh_tensor(PL_INT8, 4, fd, filter, 2, fs, zps, 2, 0),
                      kh_tensor(PL_INT32, 1, bd, bias, 8, bs, zps, 2, 0)};
    int32_t outs[1] = {tensor_q(PL_INT8, 4, od, out, 2, 1.0f, -1)};
    opts o;
    const int32_t f[4] = {1, 1, 1, 0};
    CHECK_EQ(kh_run(pl_conv_registration(), ins, 3, outs, 1, make_opts(&o, f, 4)), PL_OK);
    CHECK_EQ(out[0], 1);
    CHECK_EQ(out[1], -2);
}

/* 16x8 with an int64 bias: in 1000 * w 3 = 3000 + bias 1000 = 4000; scale 0.5 -> 2000. */
static void conv_16x8_int64_bias_by_hand(void)
{
    int16_t in[1] = {1000}, out[1] = {0};
    int8_t filter[1] = {3};
    int64_t bias[1] = {1000};
    kh_setup();
    int32_t d[4] = {1, 1, 1, 1}, bd[1] = {1};
    int32_t ins[3] = {tensor_q(PL_INT16, 4, d, in, 2, 0.5f, 0),
                      tensor_q(PL_INT8, 4, d, filter, 1, 0.5f, 0),
                      tensor_q(PL_INT64, 1, bd, bias, 8, 0.25f, 0)};
    int32_t outs[1] = {tensor_q(PL_INT16, 4, d, out, 2, 0.5f, 0)};
    opts o;
    const int32_t f[4] = {1, 1, 1, 0};
    CHECK_EQ(kh_run(pl_conv_registration(), ins, 3, outs, 1, make_opts(&o, f, 4)), PL_OK);
    CHECK_EQ(out[0], 2000);
}

static void conv_rejects_uint8_and_hybrid(void)
{
    uint8_t in[1] = {0}, out[1] = {0};
    int8_t filter[1] = {1};
    float fin[1] = {0}, fout[1] = {0};
    kh_setup();
    int32_t d[4] = {1, 1, 1, 1};
    int32_t ins[2] = {tensor_q(PL_UINT8, 4, d, in, 1, 1.0f, 0),
                      tensor_q(PL_INT8, 4, d, filter, 1, 1.0f, 0)};
    int32_t outs[1] = {tensor_q(PL_UINT8, 4, d, out, 1, 1.0f, 0)};
    opts o;
    const int32_t f[4] = {1, 1, 1, 0};
    CHECK_EQ(kh_run(pl_conv_registration(), ins, 2, outs, 1, make_opts(&o, f, 4)),
             PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "UINT8");
    kh_setup();
    int32_t hins[2] = {tensor_f32(4, d, fin, 1), tensor_q(PL_INT8, 4, d, filter, 1, 1.0f, 0)};
    int32_t houts[1] = {tensor_f32(4, d, fout, 1)};
    CHECK_EQ(kh_run(pl_conv_registration(), hins, 2, houts, 1, make_opts(&o, f, 4)),
             PL_ERR_UNSUPPORTED);
}

static void conv_rejects_a_wrong_output_shape(void)
{
    float in[4] = {0}, filter[1] = {1}, out[4] = {0};
    kh_setup();
    int32_t d[4] = {1, 2, 2, 1}, fd[4] = {1, 1, 1, 1}, od[4] = {1, 2, 1, 1};
    int32_t ins[2] = {tensor_f32(4, d, in, 4), tensor_f32(4, fd, filter, 1)};
    int32_t outs[1] = {tensor_f32(4, od, out, 2)};
    opts o;
    const int32_t f[4] = {1, 1, 1, 0};
    CHECK_EQ(kh_run(pl_conv_registration(), ins, 2, outs, 1, make_opts(&o, f, 4)),
             PL_ERR_MODEL);
    CHECK_STR_CONTAINS(kh.message, "should be [1,2,2,1]");
}

/* depthwise_conv_test.cc SimpleTest: VALID, depth multiplier 2. */
static void depthwise_float_matches_tflite_simple_test(void)
{
    float in[12] = {1, 2, 7, 8, 3, 4, 9, 10, 5, 6, 11, 12};
    float filter[16] = {1, 2, 3, 4, -9, 10, -11, 12, 5, 6, 7, 8, 13, -14, 15, -16};
    float bias[4] = {1, 2, 3, 4}, out[8] = {0};
    const float want[8] = {71, -34, 99, -20, 91, -26, 127, -4};
    kh_setup();
    int32_t ind[4] = {1, 3, 2, 2}, fd[4] = {1, 2, 2, 4}, bd[1] = {4}, od[4] = {1, 2, 1, 4};
    int32_t ins[3] = {tensor_f32(4, ind, in, 12), tensor_f32(4, fd, filter, 16),
                      tensor_f32(1, bd, bias, 4)};
    int32_t outs[1] = {tensor_f32(4, od, out, 8)};
    opts o;
    const int32_t f[7] = {1 /* VALID */, 1, 1, 2, 0, 1, 1};
    CHECK_EQ(kh_run(pl_depthwise_conv_registration(), ins, 3, outs, 1, make_opts(&o, f, 7)),
             PL_OK);
    for (int i = 0; i < 8; i++)
        CHECK(out[i] == want[i]);
}

/* int8 per-channel, one pixel, two channels: in q {5, -3} (scale 0.5, zp 1) -> real {2, -2};
** weights {2, 4} with scales {0.5, 0.25} -> real {1, 1}; RELU at output scale 1, zp -1:
** ch0 2 -> q 1, ch1 -2 -> clamped to zp -1. */
static void depthwise_int8_per_channel_relu_by_hand(void)
{
    int8_t in[2] = {5, -3}, filter[2] = {2, 4}, out[2] = {0};
    float fs[2] = {0.5f, 0.25f};
    int64_t zps[2] = {0, 0};
    kh_setup();
    int32_t d[4] = {1, 1, 1, 2}, fd[4] = {1, 1, 1, 2};
    int32_t ins[2] = {tensor_q(PL_INT8, 4, d, in, 2, 0.5f, 1),
                      kh_tensor(PL_INT8, 4, fd, filter, 2, fs, zps, 2, 3)};
    int32_t outs[1] = {tensor_q(PL_INT8, 4, d, out, 2, 1.0f, -1)};
    opts o;
    const int32_t f[5] = {1, 1, 1, 1, 1 /* RELU */};
    CHECK_EQ(kh_run(pl_depthwise_conv_registration(), ins, 2, outs, 1, make_opts(&o, f, 5)),
             PL_OK);
    CHECK_EQ(out[0], 1);
    CHECK_EQ(out[1], -1);
}

static void depthwise_rejects_16x8_with_int32_bias(void)
{
    int16_t in[1] = {0}, out[1] = {0};
    int8_t filter[1] = {1};
    int32_t bias[1] = {0};
    kh_setup();
    int32_t d[4] = {1, 1, 1, 1}, bd[1] = {1};
    int32_t ins[3] = {tensor_q(PL_INT16, 4, d, in, 2, 1.0f, 0),
                      tensor_q(PL_INT8, 4, d, filter, 1, 1.0f, 0),
                      tensor_q(PL_INT32, 1, bd, bias, 4, 1.0f, 0)};
    int32_t outs[1] = {tensor_q(PL_INT16, 4, d, out, 2, 1.0f, 0)};
    opts o;
    const int32_t f[5] = {1, 1, 1, 1, 0};
    CHECK_EQ(kh_run(pl_depthwise_conv_registration(), ins, 3, outs, 1, make_opts(&o, f, 5)),
             PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "bias INT32");
}

/* transpose_conv_test.cc SimpleTest: SAME, stride 1, 3x3 filter 1..9 over 1..16. */
static void transpose_conv_float_matches_tflite_simple_test(void)
{
    int32_t shape[4] = {1, 4, 4, 1};
    float filter[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, in[16], out[16] = {0};
    const float want[16] = {29, 62, 83, 75, 99, 192, 237, 198, 207, 372, 417, 330, 263, 446,
                            485, 365};
    for (int i = 0; i < 16; i++)
        in[i] = (float)(i + 1);
    kh_setup();
    int32_t sd[1] = {4}, fd[4] = {1, 3, 3, 1};
    int32_t ins[3] = {kh_tensor(PL_INT32, 1, sd, shape, sizeof shape, NULL, NULL, 0, 0),
                      tensor_f32(4, fd, filter, 9), tensor_f32(4, shape, in, 16)};
    kh.tensors[ins[0]].is_constant = true;
    int32_t outs[1] = {tensor_f32(4, shape, out, 16)};
    opts o;
    const int32_t f[4] = {0 /* SAME */, 1, 1, 0};
    CHECK_EQ(kh_run(pl_transpose_conv_registration(), ins, 3, outs, 1, make_opts(&o, f, 4)),
             PL_OK);
    for (int i = 0; i < 16; i++)
        CHECK(out[i] == want[i]);
}

/* int8, stride 2 VALID, 1x1 input q 3 (scale 1, zp 1 -> 2) through a 2x2 filter
** {1, 2, 3, 4} (scale 0.5) plus bias 2 (real 1); output scale 1 zp 0: 2, 3, 4, 5. */
static void transpose_conv_int8_by_hand(void)
{
    int32_t shape[4] = {1, 2, 2, 1};
    int8_t in[1] = {3}, filter[4] = {1, 2, 3, 4}, out[4] = {0};
    int32_t bias[1] = {2};
    kh_setup();
    int32_t sd[1] = {4}, id[4] = {1, 1, 1, 1}, fd[4] = {1, 2, 2, 1}, bd[1] = {1};
    int32_t ins[4] = {kh_tensor(PL_INT32, 1, sd, shape, sizeof shape, NULL, NULL, 0, 0),
                      tensor_q(PL_INT8, 4, fd, filter, 4, 0.5f, 0),
                      tensor_q(PL_INT8, 4, id, in, 1, 1.0f, 1),
                      tensor_q(PL_INT32, 1, bd, bias, 4, 0.5f, 0)};
    int32_t outs[1] = {tensor_q(PL_INT8, 4, shape, out, 4, 1.0f, 0)};
    opts o;
    const int32_t f[4] = {1 /* VALID */, 2, 2, 0};
    CHECK_EQ(kh_run(pl_transpose_conv_registration(), ins, 4, outs, 1, make_opts(&o, f, 4)),
             PL_OK);
    CHECK_EQ(out[0], 2);
    CHECK_EQ(out[1], 3);
    CHECK_EQ(out[2], 4);
    CHECK_EQ(out[3], 5);
}

/* A non-constant output_shape is never read, as in TFLM: the output's dims decide. */
static void transpose_conv_ignores_a_runtime_output_shape(void)
{
    int32_t shape[4] = {1, 2, 3, 1}, sd[1] = {4}, od[4] = {1, 2, 2, 1};
    float filter[4] = {1, 1, 1, 1}, in[1] = {1}, out[4] = {0};
    kh_setup();
    int32_t id[4] = {1, 1, 1, 1}, fd[4] = {1, 2, 2, 1};
    int32_t ins[3] = {kh_tensor(PL_INT32, 1, sd, shape, sizeof shape, NULL, NULL, 0, 0),
                      tensor_f32(4, fd, filter, 4), tensor_f32(4, id, in, 1)};
    int32_t outs[1] = {tensor_f32(4, od, out, 4)};
    opts o;
    const int32_t f[4] = {1 /* VALID */, 2, 2, 0};
    CHECK_EQ(kh_run(pl_transpose_conv_registration(), ins, 3, outs, 1, make_opts(&o, f, 4)),
             PL_OK);
    CHECK(out[0] == 1.0f && out[1] == 1.0f && out[2] == 1.0f && out[3] == 1.0f);
}

static void transpose_conv_rejects_int8_with_float_weights(void)
{
    int32_t shape[4] = {1, 1, 1, 1};
    int8_t in[1] = {0}, out[1] = {0};
    float filter[1] = {1};
    kh_setup();
    int32_t sd[1] = {4};
    int32_t ins[3] = {kh_tensor(PL_INT32, 1, sd, shape, sizeof shape, NULL, NULL, 0, 0),
                      tensor_f32(4, shape, filter, 1),
                      tensor_q(PL_INT8, 4, shape, in, 1, 1.0f, 0)};
    int32_t outs[1] = {tensor_q(PL_INT8, 4, shape, out, 1, 1.0f, 0)};
    opts o;
    const int32_t f[4] = {1, 1, 1, 0};
    CHECK_EQ(kh_run(pl_transpose_conv_registration(), ins, 3, outs, 1, make_opts(&o, f, 4)),
             PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "weights FLOAT32");
}

int main(void)
{
    RUN(transpose_conv_float_matches_tflite_simple_test);
    RUN(transpose_conv_int8_by_hand);
    RUN(transpose_conv_ignores_a_runtime_output_shape);
    RUN(transpose_conv_rejects_int8_with_float_weights);
    RUN(depthwise_float_matches_tflite_simple_test);
    RUN(depthwise_int8_per_channel_relu_by_hand);
    RUN(depthwise_rejects_16x8_with_int32_bias);
    RUN(conv_float_matches_tflite_simple_test);
    RUN(conv_float_same_padding_relu6_without_bias);
    RUN(conv_int8_per_channel_by_hand);
    RUN(conv_16x8_int64_bias_by_hand);
    RUN(conv_rejects_uint8_and_hybrid);
    RUN(conv_rejects_a_wrong_output_shape);
    return HARNESS_END();
}
