/* test_kernels_conv.c - CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV on hand-checked cases.
** Float expectations come from TFLite's conv_test.cc / depthwise_conv_test.cc /
** transpose_conv_test.cc; quantized ones are worked by hand from the reference formulas.
** Bit-exactness against LiteRT over many shapes is checked with generated models. */
#include <stdint.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/conv/conv.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/common/padding.h"
#include "kernels/common/rescale.h"
#include "kernels/conv/depthwise_conv.h"
#include "kernels/conv/transpose_conv.h"

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
    int32_t ins[3] = {kt_tensor_f32(4, ind, in, 16), kt_tensor_f32(4, fd, filter, 12),
                      kt_tensor_f32(1, bd, bias, 3)};
    int32_t outs[1] = {kt_tensor_f32(4, od, out, 12)};
    kt_opts o;
    const int32_t f[6] = {1 /* VALID */, 2, 2, 0, 1, 1};
    CHECK_EQ(kh_run(pl_conv_registration(), ins, 3, outs, 1, kt_make_opts(&o, f, 6)), PL_OK);
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
    int32_t ins[2] = {kt_tensor_f32(4, d, in, 9), kt_tensor_f32(4, fd, filter, 9)};
    int32_t outs[1] = {kt_tensor_f32(4, d, out, 9)};
    kt_opts o;
    const int32_t f[4] = {0 /* SAME */, 1, 1, 3 /* RELU6 */};
    CHECK_EQ(kh_run(pl_conv_registration(), ins, 2, outs, 1, kt_make_opts(&o, f, 4)), PL_OK);
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
    int32_t ins[3] = {kt_tensor_q(PL_INT8, 4, d, in, 1, 0.5f, 1),
                      kh_tensor(PL_INT8, 4, fd, filter, 2, fs, zps, 2, 0),
                      kh_tensor(PL_INT32, 1, bd, bias, 8, bs, zps, 2, 0)};
    int32_t outs[1] = {kt_tensor_q(PL_INT8, 4, od, out, 2, 1.0f, -1)};
    kt_opts o;
    const int32_t f[4] = {1, 1, 1, 0};
    CHECK_EQ(kh_run(pl_conv_registration(), ins, 3, outs, 1, kt_make_opts(&o, f, 4)), PL_OK);
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
    int32_t ins[3] = {kt_tensor_q(PL_INT16, 4, d, in, 2, 0.5f, 0),
                      kt_tensor_q(PL_INT8, 4, d, filter, 1, 0.5f, 0),
                      kt_tensor_q(PL_INT64, 1, bd, bias, 8, 0.25f, 0)};
    int32_t outs[1] = {kt_tensor_q(PL_INT16, 4, d, out, 2, 0.5f, 0)};
    kt_opts o;
    const int32_t f[4] = {1, 1, 1, 0};
    CHECK_EQ(kh_run(pl_conv_registration(), ins, 3, outs, 1, kt_make_opts(&o, f, 4)), PL_OK);
    CHECK_EQ(out[0], 2000);
}

static void conv_rejects_uint8(void)
{
    uint8_t in[1] = {0}, out[1] = {0};
    int8_t filter[1] = {1};
    kh_setup();
    int32_t d[4] = {1, 1, 1, 1};
    int32_t ins[2] = {kt_tensor_q(PL_UINT8, 4, d, in, 1, 1.0f, 0),
                      kt_tensor_q(PL_INT8, 4, d, filter, 1, 1.0f, 0)};
    int32_t outs[1] = {kt_tensor_q(PL_UINT8, 4, d, out, 1, 1.0f, 0)};
    kt_opts o;
    const int32_t f[4] = {1, 1, 1, 0};
    CHECK_EQ(kh_run(pl_conv_registration(), ins, 2, outs, 1, kt_make_opts(&o, f, 4)),
             PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "UINT8");
}

/* Hybrid, one filter scale: {1, -0.5} quantizes symmetrically to {127, -64} at 1/127; with
** the filter {2, 4} (scale 0.5) the dot is -2, so out = -2 * (1/127 * 0.5) + bias 1. */
static void conv_hybrid_per_tensor_by_hand(void)
{
    float in[2] = {1.0f, -0.5f}, bias[1] = {1.0f}, out[1] = {0};
    int8_t filter[2] = {2, 4};
    kh_setup();
    int32_t d[4] = {1, 1, 1, 2}, bd[1] = {1}, od[4] = {1, 1, 1, 1};
    int32_t ins[3] = {kt_tensor_f32(4, d, in, 2), kt_tensor_q(PL_INT8, 4, d, filter, 2, 0.5f, 0),
                      kt_tensor_f32(1, bd, bias, 1)};
    int32_t outs[1] = {kt_tensor_f32(4, od, out, 1)};
    kt_opts o;
    const int32_t f[4] = {1, 1, 1, 0};
    CHECK_EQ(kh_run(pl_conv_registration(), ins, 3, outs, 1, kt_make_opts(&o, f, 4)), PL_OK);
    CHECK(out[0] == -2.0f * ((1.0f / 127.0f) * 0.5f) + 1.0f);
}

/* Hybrid, per-channel scales {0.5, 0.25}: {1, -0.5} quantizes asymmetrically with scale
** 1.5/255 and zero point -43 to {127, -128}, i.e. {170, -85} above the zero point; the
** filters {2, 4} and {-3, 1} give 0 and -595, scaled by filter scale then input scale. */
static void conv_hybrid_per_channel_by_hand(void)
{
    float in[2] = {1.0f, -0.5f}, bias[2] = {1.0f, -1.0f}, out[2] = {0};
    int8_t filter[4] = {2, 4, -3, 1};
    const float fs[2] = {0.5f, 0.25f};
    const int64_t zps[2] = {0, 0};
    kh_setup();
    int32_t d[4] = {1, 1, 1, 2}, fd[4] = {2, 1, 1, 2}, bd[1] = {2}, od[4] = {1, 1, 1, 2};
    int32_t ins[3] = {kt_tensor_f32(4, d, in, 2),
                      kh_tensor(PL_INT8, 4, fd, filter, 4, fs, zps, 2, 0),
                      kt_tensor_f32(1, bd, bias, 2)};
    int32_t outs[1] = {kt_tensor_f32(4, od, out, 2)};
    kt_opts o;
    const int32_t f[4] = {1, 1, 1, 0};
    CHECK_EQ(kh_run(pl_conv_registration(), ins, 3, outs, 1, kt_make_opts(&o, f, 4)), PL_OK);
    const float s = 1.5f / 255.0f;
    CHECK(out[0] == 0.0f * 0.5f * s + 1.0f);
    CHECK(out[1] == -595.0f * 0.25f * s - 1.0f);
    /* LiteRT's per-channel hybrid kernel drops the dilation: refused */
    kh_setup();
    int32_t dins[3] = {kt_tensor_f32(4, d, in, 2),
                       kh_tensor(PL_INT8, 4, fd, filter, 4, fs, zps, 2, 0),
                       kt_tensor_f32(1, bd, bias, 2)};
    int32_t douts[1] = {kt_tensor_f32(4, od, out, 2)};
    const int32_t dilated[6] = {1, 1, 1, 0, 2, 2};
    CHECK_EQ(kh_run(pl_conv_registration(), dins, 3, douts, 1, kt_make_opts(&o, dilated, 6)),
             PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "dilation");
}

/* The kernel gives the output [1,2,2,1]; the test's buffer holds only 2 floats. */
static void conv_rejects_a_wrong_output_shape(void)
{
    float in[4] = {0}, filter[1] = {1}, out[4] = {0};
    kh_setup();
    int32_t d[4] = {1, 2, 2, 1}, fd[4] = {1, 1, 1, 1}, od[4] = {1, 2, 1, 1};
    int32_t ins[2] = {kt_tensor_f32(4, d, in, 4), kt_tensor_f32(4, fd, filter, 1)};
    int32_t outs[1] = {kt_tensor_f32(4, od, out, 2)};
    kt_opts o;
    const int32_t f[4] = {1, 1, 1, 0};
    CHECK_EQ(kh_run(pl_conv_registration(), ins, 2, outs, 1, kt_make_opts(&o, f, 4)),
             PL_ERR_MODEL);
    CHECK_STR_CONTAINS(kh.message, "needs 16 bytes");
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
    int32_t ins[3] = {kt_tensor_f32(4, ind, in, 12), kt_tensor_f32(4, fd, filter, 16),
                      kt_tensor_f32(1, bd, bias, 4)};
    int32_t outs[1] = {kt_tensor_f32(4, od, out, 8)};
    kt_opts o;
    const int32_t f[7] = {1 /* VALID */, 1, 1, 2, 0, 1, 1};
    CHECK_EQ(kh_run(pl_depthwise_conv_registration(), ins, 3, outs, 1, kt_make_opts(&o, f, 7)),
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
    int32_t ins[2] = {kt_tensor_q(PL_INT8, 4, d, in, 2, 0.5f, 1),
                      kh_tensor(PL_INT8, 4, fd, filter, 2, fs, zps, 2, 3)};
    int32_t outs[1] = {kt_tensor_q(PL_INT8, 4, d, out, 2, 1.0f, -1)};
    kt_opts o;
    const int32_t f[5] = {1, 1, 1, 1, 1 /* RELU */};
    CHECK_EQ(kh_run(pl_depthwise_conv_registration(), ins, 2, outs, 1, kt_make_opts(&o, f, 5)),
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
    int32_t ins[3] = {kt_tensor_q(PL_INT16, 4, d, in, 2, 1.0f, 0),
                      kt_tensor_q(PL_INT8, 4, d, filter, 1, 1.0f, 0),
                      kt_tensor_q(PL_INT32, 1, bd, bias, 4, 1.0f, 0)};
    int32_t outs[1] = {kt_tensor_q(PL_INT16, 4, d, out, 2, 1.0f, 0)};
    kt_opts o;
    const int32_t f[5] = {1, 1, 1, 1, 0};
    CHECK_EQ(kh_run(pl_depthwise_conv_registration(), ins, 3, outs, 1, kt_make_opts(&o, f, 5)),
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
                      kt_tensor_f32(4, fd, filter, 9), kt_tensor_f32(4, shape, in, 16)};
    kh.tensors[ins[0]].is_constant = true;
    int32_t outs[1] = {kt_tensor_f32(4, shape, out, 16)};
    kt_opts o;
    const int32_t f[4] = {0 /* SAME */, 1, 1, 0};
    CHECK_EQ(kh_run(pl_transpose_conv_registration(), ins, 3, outs, 1, kt_make_opts(&o, f, 4)),
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
                      kt_tensor_q(PL_INT8, 4, fd, filter, 4, 0.5f, 0),
                      kt_tensor_q(PL_INT8, 4, id, in, 1, 1.0f, 1),
                      kt_tensor_q(PL_INT32, 1, bd, bias, 4, 0.5f, 0)};
    int32_t outs[1] = {kt_tensor_q(PL_INT8, 4, shape, out, 4, 1.0f, 0)};
    kt_opts o;
    const int32_t f[4] = {1 /* VALID */, 2, 2, 0};
    CHECK_EQ(kh_run(pl_transpose_conv_registration(), ins, 4, outs, 1, kt_make_opts(&o, f, 4)),
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
                      kt_tensor_f32(4, fd, filter, 4), kt_tensor_f32(4, id, in, 1)};
    int32_t outs[1] = {kt_tensor_f32(4, od, out, 4)};
    kt_opts o;
    const int32_t f[4] = {1 /* VALID */, 2, 2, 0};
    CHECK_EQ(kh_run(pl_transpose_conv_registration(), ins, 3, outs, 1, kt_make_opts(&o, f, 4)),
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
                      kt_tensor_f32(4, shape, filter, 1),
                      kt_tensor_q(PL_INT8, 4, shape, in, 1, 1.0f, 0)};
    int32_t outs[1] = {kt_tensor_q(PL_INT8, 4, shape, out, 1, 1.0f, 0)};
    kt_opts o;
    const int32_t f[4] = {1, 1, 1, 0};
    CHECK_EQ(kh_run(pl_transpose_conv_registration(), ins, 3, outs, 1, kt_make_opts(&o, f, 4)),
             PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "weights FLOAT32");
}

/* Shape sweeps against the reference loops written out plainly (TFLite's tap order, out-of-
** image taps skipped), so the fast paths (gathered windows, runs, channel blocks, depth
** multipliers) must agree bit for bit, float included. */
static uint32_t sweep_seed = 12345u;

static int32_t sweep_rand(int32_t lo, int32_t hi)
{
    sweep_seed = sweep_seed * 1103515245u + 12345u;
    return lo + (int32_t)((sweep_seed >> 8) % (uint32_t)(hi - lo + 1));
}

typedef struct sweep_shape {
    int32_t in_h, in_w, in_d, out_d, f_h, f_w, stride, dilation, padding, groups;
} sweep_shape;

static const sweep_shape conv_sweep[] = {
    {5, 6, 3, 8, 3, 3, 1, 1, PL_PADDING_SAME, 1},   {7, 5, 16, 9, 3, 3, 2, 1, PL_PADDING_SAME, 1},
    {6, 6, 8, 4, 3, 2, 1, 2, PL_PADDING_SAME, 1},   {9, 4, 1, 32, 5, 4, 2, 1, PL_PADDING_SAME, 1},
    {4, 4, 300, 5, 2, 2, 1, 1, PL_PADDING_SAME, 1}, {5, 5, 8, 6, 3, 3, 1, 1, PL_PADDING_VALID, 2},
    {3, 3, 17, 7, 1, 1, 1, 1, PL_PADDING_VALID, 1}, {6, 7, 300, 4, 2, 3, 2, 2, PL_PADDING_SAME, 2},
};

static int8_t sweep_in8[8 * 8 * 300], sweep_f8[9 * 6 * 300], sweep_out8[4 * 8 * 64];
static float sweep_inf[8 * 8 * 300], sweep_ff[9 * 6 * 300], sweep_outf[4 * 8 * 64];
static int32_t sweep_bias[128], sweep_mult[128], sweep_shift[128];
static float sweep_biasf[128];

static void sweep_params(const sweep_shape *s, pl_conv_params *p, int32_t *in_dims,
                         int32_t *f_dims, int32_t *out_dims)
{
    memset(p, 0, sizeof *p);
    p->stride_w = p->stride_h = s->stride;
    p->dilation_w = p->dilation_h = s->dilation;
    int32_t oh = pl_pad_out_size(s->padding, s->in_h, s->f_h, s->stride, s->dilation);
    int32_t ow = pl_pad_out_size(s->padding, s->in_w, s->f_w, s->stride, s->dilation);
    p->pad_h = pl_pad_before(s->stride, s->dilation, s->in_h, s->f_h, oh, NULL);
    p->pad_w = pl_pad_before(s->stride, s->dilation, s->in_w, s->f_w, ow, NULL);
    const int32_t id[4] = {1, s->in_h, s->in_w, s->in_d};
    const int32_t fd[4] = {s->out_d, s->f_h, s->f_w, s->in_d / s->groups};
    const int32_t od[4] = {1, oh, ow, s->out_d};
    memcpy(in_dims, id, sizeof id);
    memcpy(f_dims, fd, sizeof fd);
    memcpy(out_dims, od, sizeof od);
    for (int32_t c = 0; c < s->out_d; c++) {
        sweep_bias[c] = sweep_rand(-5000, 5000);
        sweep_biasf[c] = (float)sweep_rand(-100, 100) / 64.0f;
        sweep_mult[c] = (1 << 30) + sweep_rand(0, 1 << 29);
        sweep_shift[c] = sweep_rand(-12, -7);
    }
    p->multiplier = sweep_mult;
    p->shift = sweep_shift;
    p->input_offset = sweep_rand(-127, 128);
    p->output_offset = sweep_rand(-128, 127);
    p->act_min = -128;
    p->act_max = 127;
}

/* The reference loops for output channel oc at (oy, ox): int8 with offsets, and float. */
static void sweep_reference(const pl_conv_params *p, const int32_t *id, const int32_t *fd,
                            const int32_t *od, int32_t oy, int32_t ox, int32_t oc,
                            int32_t *acc, float *total)
{
    int32_t per_group = od[3] / (id[3] / fd[3]), c0 = (oc / per_group) * fd[3];
    *acc = 0;
    *total = 0.0f;
    for (int32_t fy = 0; fy < fd[1]; fy++) {
        for (int32_t fx = 0; fx < fd[2]; fx++) {
            int32_t iy = oy * p->stride_h - p->pad_h + p->dilation_h * fy;
            int32_t ix = ox * p->stride_w - p->pad_w + p->dilation_w * fx;
            if (iy < 0 || iy >= id[1] || ix < 0 || ix >= id[2])
                continue;
            for (int32_t ic = 0; ic < fd[3]; ic++) {
                size_t i = ((size_t)iy * (size_t)id[2] + (size_t)ix) * (size_t)id[3] +
                           (size_t)(c0 + ic);
                size_t f = (((size_t)oc * (size_t)fd[1] + (size_t)fy) * (size_t)fd[2] +
                            (size_t)fx) * (size_t)fd[3] + (size_t)ic;
                *acc += sweep_f8[f] * (sweep_in8[i] + p->input_offset);
                *total += sweep_inf[i] * sweep_ff[f];
            }
        }
    }
}

static void conv_fast_paths_match_the_reference_loops(void)
{
    for (size_t k = 0; k < sizeof conv_sweep / sizeof conv_sweep[0]; k++) {
        const sweep_shape *s = &conv_sweep[k];
        pl_conv_params p;
        int32_t id[4], fd[4], od[4];
        sweep_params(s, &p, id, fd, od);
        size_t ni = (size_t)id[1] * (size_t)id[2] * (size_t)id[3];
        size_t nf = (size_t)fd[0] * (size_t)fd[1] * (size_t)fd[2] * (size_t)fd[3];
        for (size_t i = 0; i < ni; i++) {
            sweep_in8[i] = (int8_t)sweep_rand(-128, 127);
            sweep_inf[i] = (float)sweep_rand(-1000, 1000) / 256.0f;
        }
        for (size_t i = 0; i < nf; i++) {
            sweep_f8[i] = (int8_t)sweep_rand(-127, 127);
            sweep_ff[i] = (float)sweep_rand(-1000, 1000) / 1024.0f;
        }
        pl_conv_s8(&p, id, sweep_in8, fd, sweep_f8, sweep_bias, od, sweep_out8);
        p.f_act_min = -1e30f;
        p.f_act_max = 1e30f;
        pl_conv_f32(&p, id, sweep_inf, fd, sweep_ff, sweep_biasf, od, false, sweep_outf);
        p.act_min = -128;
        p.act_max = 127;
        int32_t bad = 0;
        for (int32_t oy = 0; oy < od[1]; oy++) {
            for (int32_t ox = 0; ox < od[2]; ox++) {
                for (int32_t oc = 0; oc < od[3]; oc++) {
                    int32_t acc;
                    float total;
                    sweep_reference(&p, id, fd, od, oy, ox, oc, &acc, &total);
                    acc = pl_fx_mul_by_qm(acc + sweep_bias[oc], sweep_mult[oc],
                                          sweep_shift[oc]) + p.output_offset;
                    size_t o = ((size_t)oy * (size_t)od[2] + (size_t)ox) * (size_t)od[3] +
                               (size_t)oc;
                    bad += sweep_out8[o] != (int8_t)pl_fx_clamp(acc, -128, 127);
                    bad += sweep_outf[o] != total + sweep_biasf[oc];
                }
            }
        }
        if (bad != 0)
            fprintf(stderr, "conv sweep shape %zu: %d mismatches\n", k, bad);
        CHECK_EQ(bad, 0);
    }
}

/* Depthwise: the reference loops per output channel, multipliers 1, 3 and 8. */
static void depthwise_fast_paths_match_the_reference_loops(void)
{
    const int32_t shapes[][6] = {/* in_h, in_w, in_d, multiplier, filter, stride */
                                 {6, 5, 17, 1, 3, 1}, {9, 8, 1, 8, 4, 2}, {5, 7, 5, 3, 3, 2},
                                 {4, 4, 70, 1, 3, 1}, {7, 6, 16, 1, 5, 2}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        const int32_t *s = shapes[k];
        pl_depthwise_conv_params p;
        memset(&p, 0, sizeof p);
        p.stride_w = p.stride_h = s[5];
        p.dilation_w = p.dilation_h = 1;
        p.depth_multiplier = s[3];
        int32_t oh = pl_pad_out_size(PL_PADDING_SAME, s[0], s[4], s[5], 1);
        int32_t ow = pl_pad_out_size(PL_PADDING_SAME, s[1], s[4], s[5], 1);
        p.pad_h = pl_pad_before(s[5], 1, s[0], s[4], oh, NULL);
        p.pad_w = pl_pad_before(s[5], 1, s[1], s[4], ow, NULL);
        int32_t out_d = s[2] * s[3];
        const int32_t id[4] = {1, s[0], s[1], s[2]}, fd[4] = {1, s[4], s[4], out_d};
        const int32_t od[4] = {1, oh, ow, out_d};
        for (int32_t i = 0; i < s[0] * s[1] * s[2]; i++)
            sweep_in8[i] = (int8_t)sweep_rand(-128, 127);
        for (int32_t i = 0; i < s[4] * s[4] * out_d; i++)
            sweep_f8[i] = (int8_t)sweep_rand(-127, 127);
        for (int32_t c = 0; c < out_d; c++) {
            sweep_mult[c] = (1 << 30) + sweep_rand(0, 1 << 29);
            sweep_shift[c] = sweep_rand(-14, -7);
        }
        p.multiplier = sweep_mult;
        p.shift = sweep_shift;
        p.input_offset = sweep_rand(-127, 128);
        p.output_offset = sweep_rand(-128, 127);
        p.act_min = -128;
        p.act_max = 127;
        pl_depthwise_conv_s8(&p, id, sweep_in8, fd, sweep_f8, NULL, od, sweep_out8);
        int32_t bad = 0;
        for (int32_t oy = 0; oy < oh; oy++) {
            for (int32_t ox = 0; ox < ow; ox++) {
                for (int32_t oc = 0; oc < out_d; oc++) {
                    int32_t acc = 0;
                    for (int32_t fy = 0; fy < s[4]; fy++) {
                        for (int32_t fx = 0; fx < s[4]; fx++) {
                            int32_t iy = oy * s[5] - p.pad_h + fy, ix = ox * s[5] - p.pad_w + fx;
                            if (iy < 0 || iy >= s[0] || ix < 0 || ix >= s[1])
                                continue;
                            acc += sweep_f8[(fy * s[4] + fx) * out_d + oc] *
                                   (sweep_in8[(iy * s[1] + ix) * s[2] + oc / s[3]] +
                                    p.input_offset);
                        }
                    }
                    acc = pl_fx_mul_by_qm(acc, sweep_mult[oc], sweep_shift[oc]) +
                          p.output_offset;
                    bad += sweep_out8[(oy * ow + ox) * out_d + oc] !=
                           (int8_t)pl_fx_clamp(acc, -128, 127);
                }
            }
        }
        if (bad != 0)
            fprintf(stderr, "depthwise sweep shape %zu: %d mismatches\n", k, bad);
        CHECK_EQ(bad, 0);
    }
}

/* The inline output-stage rescale is pl_fx_mul_by_qm bit for bit: random accumulators,
** multipliers and shifts, the extremes of each, and hostile shifts past 31 either way. */
static void inline_rescale_matches_fixedpoint(void)
{
    const int32_t xs[] = {0, 1, -1, INT32_MAX, INT32_MIN, 12345, -12345, 1 << 30, -(1 << 30)};
    const int32_t ms[] = {0, 1 << 30, INT32_MAX, INT32_MIN, 1518500250, 1, -7};
    int32_t bad = 0;
    for (int32_t shift = -40; shift <= 40; shift++) {
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
            for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++)
                bad += pl_rescale_qm(xs[i], ms[j], shift) != pl_fx_mul_by_qm(xs[i], ms[j], shift);
        for (int32_t k = 0; k < 2000; k++) {
            int32_t x = (int32_t)((uint32_t)sweep_rand(0, 65535) << 16 |
                                  (uint32_t)sweep_rand(0, 65535));
            int32_t m = (1 << 30) + sweep_rand(0, (1 << 30) - 1);
            x = k % 3 == 0 ? x >> sweep_rand(0, 24) : x;
            bad += pl_rescale_qm(x, m, shift) != pl_fx_mul_by_qm(x, m, shift);
        }
    }
    CHECK_EQ(bad, 0);
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
    RUN(conv_rejects_uint8);
    RUN(conv_hybrid_per_tensor_by_hand);
    RUN(conv_hybrid_per_channel_by_hand);
    RUN(conv_rejects_a_wrong_output_shape);
    RUN(conv_fast_paths_match_the_reference_loops);
    RUN(depthwise_fast_paths_match_the_reference_loops);
    RUN(inline_rescale_matches_fixedpoint);
    return HARNESS_END();
}
