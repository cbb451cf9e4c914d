/* test_kernels_fc.c - FULLY_CONNECTED and BATCH_MATMUL on hand-checked cases (float ones from
** TFLite's fully_connected_test.cc / batch_matmul_test.cc; quantized ones worked from the
** reference formulas). */
#include <stdint.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/conv/batch_matmul.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/conv/fully_connected.h"

static const float simple_in[20] = {1, 2, 3, 4, 5, 6, 7, 8, -9, -10,
                                    1, 2, 3, 4, 5, 6, 7, -8, 9, -10};

static void fc_float_matches_tflite_simple_test(void)
{
    float in[20], w[30], bias[3] = {1, 2, 3}, out[6] = {0};
    const float want[6] = {24, 25, 26, 58, 59, 60};
    memcpy(in, simple_in, sizeof in);
    for (int i = 0; i < 30; i++)
        w[i] = (float)(i % 10 + 1);
    kh_setup();
    int32_t id[2] = {2, 10}, wd[2] = {3, 10}, bd[1] = {3}, od[2] = {2, 3};
    int32_t ins[3] = {kt_tensor_f32(2, id, in, 20), kt_tensor_f32(2, wd, w, 30),
                      kt_tensor_f32(1, bd, bias, 3)};
    int32_t outs[1] = {kt_tensor_f32(2, od, out, 6)};
    CHECK_EQ(kh_run(pl_fully_connected_registration(), ins, 3, outs, 1, NULL), PL_OK);
    for (int i = 0; i < 6; i++)
        CHECK(out[i] == want[i]);
}

/* The same data in int8: input scale 0.5 zp -1, weights scale 1, output scale 1 zp -1;
** TFLite's SimpleTestQuantizedInt8 expects the raw outputs 23 24 25 57 58 59. */
static void fc_int8_per_tensor_matches_tflite_raw_outputs(void)
{
    int8_t in[20], w[30], out[6] = {0};
    int32_t bias[3] = {2, 4, 6};
    const int8_t want[6] = {23, 24, 25, 57, 58, 59};
    for (int i = 0; i < 20; i++)
        in[i] = (int8_t)(simple_in[i] * 2.0f - 1.0f);
    for (int i = 0; i < 30; i++)
        w[i] = (int8_t)(i % 10 + 1);
    kh_setup();
    int32_t id[2] = {2, 10}, wd[2] = {3, 10}, bd[1] = {3}, od[2] = {2, 3};
    int32_t ins[3] = {kt_tensor_q(PL_INT8, 2, id, in, 20, 0.5f, -1),
                      kt_tensor_q(PL_INT8, 2, wd, w, 30, 1.0f, 0),
                      kt_tensor_q(PL_INT32, 1, bd, bias, 12, 0.5f, 0)};
    int32_t outs[1] = {kt_tensor_q(PL_INT8, 2, od, out, 6, 1.0f, -1)};
    CHECK_EQ(kh_run(pl_fully_connected_registration(), ins, 3, outs, 1, NULL), PL_OK);
    for (int i = 0; i < 6; i++)
        CHECK_EQ(out[i], want[i]);
}

/* Per-channel weights, RELU, keep_num_dims on a [1, 2, 2] input: unit scales {1, 0.5};
** input scale 1 zp 0; rows x0={3,4}, x1={-1,2}; w0={1,1}, w1={2,-2};
** real: u0 = x.sum(), u1 = 0.5*2*(a-b) -> x0: 7, -1 -> relu 0; x1: 1, -3 -> 0. */
static void fc_int8_per_channel_relu_keep_num_dims(void)
{
    int8_t in[4] = {3, 4, -1, 2}, w[4] = {1, 1, 2, -2}, out[4] = {9, 9, 9, 9};
    float ws[2] = {1.0f, 0.5f};
    int64_t zps[2] = {0, 0};
    kh_setup();
    int32_t id[3] = {1, 2, 2}, wd[2] = {2, 2};
    int32_t ins[3] = {kt_tensor_q(PL_INT8, 3, id, in, 4, 1.0f, 0),
                      kh_tensor(PL_INT8, 2, wd, w, 4, ws, zps, 2, 0), -1};
    int32_t outs[1] = {kt_tensor_q(PL_INT8, 3, id, out, 4, 1.0f, 0)};
    kt_opts o;
    const int32_t f[3] = {1 /* RELU */, 0, 1 /* keep_num_dims */};
    CHECK_EQ(kh_run(pl_fully_connected_registration(), ins, 3, outs, 1, kt_make_opts(&o, f, 3)),
             PL_OK);
    CHECK_EQ(out[0], 7);
    CHECK_EQ(out[1], 0);
    CHECK_EQ(out[2], 1);
    CHECK_EQ(out[3], 0);
}

/* 16x8 with an int64 bias: 1000*3 + 2000*(-1) + 500 = 1500, times 0.5 -> 750. */
static void fc_16x8_int64_bias_by_hand(void)
{
    int16_t in[2] = {1000, 2000}, out[1] = {0};
    int8_t w[2] = {3, -1};
    int64_t bias[1] = {500};
    kh_setup();
    int32_t id[2] = {1, 2}, wd[2] = {1, 2}, bd[1] = {1}, od[2] = {1, 1};
    int32_t ins[3] = {kt_tensor_q(PL_INT16, 2, id, in, 4, 0.5f, 0),
                      kt_tensor_q(PL_INT8, 2, wd, w, 2, 1.0f, 0),
                      kt_tensor_q(PL_INT64, 1, bd, bias, 8, 0.5f, 0)};
    int32_t outs[1] = {kt_tensor_q(PL_INT16, 2, od, out, 2, 1.0f, 0)};
    CHECK_EQ(kh_run(pl_fully_connected_registration(), ins, 3, outs, 1, NULL), PL_OK);
    CHECK_EQ(out[0], 750);
}

static void fc_rejects_shuffled_weights(void)
{
    int8_t in[16] = {0}, w[16] = {0}, out[1] = {0};
    kh_setup();
    int32_t id[2] = {1, 16}, wd[2] = {1, 16}, od[2] = {1, 1};
    int32_t ins[2] = {kt_tensor_q(PL_INT8, 2, id, in, 16, 1.0f, 0),
                      kt_tensor_q(PL_INT8, 2, wd, w, 16, 1.0f, 0)};
    int32_t outs[1] = {kt_tensor_q(PL_INT8, 2, od, out, 1, 1.0f, 0)};
    kt_opts o;
    const int32_t f[2] = {0, 1 /* SHUFFLED4x16INT8 */};
    CHECK_EQ(kh_run(pl_fully_connected_registration(), ins, 2, outs, 1, kt_make_opts(&o, f, 2)),
             PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "SHUFFLED4x16INT8");
}

/* Legacy uint8: (1 * 2 + -1 * -8) = 10 around zero points 128, output zero point 100. */
static void fc_uint8_offsets_weights_and_input(void)
{
    uint8_t in[2] = {130, 120}, w[2] = {129, 127}, out[1] = {0};
    kh_setup();
    int32_t id[2] = {1, 2}, od[2] = {1, 1};
    int32_t ins[2] = {kt_tensor_q(PL_UINT8, 2, id, in, 2, 1.0f, 128),
                      kt_tensor_q(PL_UINT8, 2, id, w, 2, 1.0f, 128)};
    int32_t outs[1] = {kt_tensor_q(PL_UINT8, 2, od, out, 1, 1.0f, 100)};
    CHECK_EQ(kh_run(pl_fully_connected_registration(), ins, 2, outs, 1, NULL), PL_OK);
    CHECK_EQ(out[0], 110);
}

static void fc_rejects_uint8_input_with_int8_weights(void)
{
    uint8_t in[2] = {0}, out[1] = {0};
    int8_t w[2] = {0};
    kh_setup();
    int32_t id[2] = {1, 2}, od[2] = {1, 1};
    int32_t ins[2] = {kt_tensor_q(PL_UINT8, 2, id, in, 2, 1.0f, 0),
                      kt_tensor_q(PL_INT8, 2, id, w, 2, 1.0f, 0)};
    int32_t outs[1] = {kt_tensor_q(PL_UINT8, 2, od, out, 1, 1.0f, 0)};
    CHECK_EQ(kh_run(pl_fully_connected_registration(), ins, 2, outs, 1, NULL),
             PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "input UINT8, weights INT8");
}

/* Hybrid: {1, -0.5} quantizes symmetrically to {127, -64} at scale 1/127; with weights {2, 4}
** (scale 0.5) the dot is -2, so out = bias 1 + -2 * (1/127 * 0.5). */
static void fc_hybrid_symmetric_by_hand(void)
{
    float in[2] = {1.0f, -0.5f}, bias[1] = {1.0f}, out[1] = {0};
    int8_t w[2] = {2, 4};
    kh_setup();
    int32_t id[2] = {1, 2}, bd[1] = {1}, od[2] = {1, 1};
    int32_t ins[3] = {kt_tensor_f32(2, id, in, 2), kt_tensor_q(PL_INT8, 2, id, w, 2, 0.5f, 0),
                      kt_tensor_f32(1, bd, bias, 1)};
    int32_t outs[1] = {kt_tensor_f32(2, od, out, 1)};
    CHECK_EQ(kh_run(pl_fully_connected_registration(), ins, 3, outs, 1, NULL), PL_OK);
    float scale = (1.0f / 127.0f) * 0.5f;
    CHECK(out[0] == 1.0f + -2.0f * scale);
}

/* batch_matmul_test.cc Float32Test_Simple and its RHS-adjoint twin. */
static void batch_matmul_float_matches_tflite(void)
{
    float lhs[6] = {1, 2, 3, 4, 5, 6}, out[8] = {0};
    float rhs[12] = {7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18};
    float rhs_t[12] = {7, 11, 15, 8, 12, 16, 9, 13, 17, 10, 14, 18};
    const float want[8] = {74, 80, 86, 92, 173, 188, 203, 218};
    int32_t ld[3] = {1, 2, 3}, rd[3] = {1, 3, 4}, rtd[3] = {1, 4, 3}, od[3] = {1, 2, 4};
    kt_opts o;
    const int32_t plain[2] = {0, 0}, adj_y[2] = {0, 1};
    kh_setup();
    int32_t ins[2] = {kt_tensor_f32(3, ld, lhs, 6), kt_tensor_f32(3, rd, rhs, 12)};
    int32_t outs[1] = {kt_tensor_f32(3, od, out, 8)};
    CHECK_EQ(kh_run(pl_batch_matmul_registration(), ins, 2, outs, 1, kt_make_opts(&o, plain, 2)),
             PL_OK);
    for (int i = 0; i < 8; i++)
        CHECK(out[i] == want[i]);
    kh_setup();
    int32_t tins[2] = {kt_tensor_f32(3, ld, lhs, 6), kt_tensor_f32(3, rtd, rhs_t, 12)};
    int32_t touts[1] = {kt_tensor_f32(3, od, out, 8)};
    memset(out, 0, sizeof out);
    CHECK_EQ(kh_run(pl_batch_matmul_registration(), tins, 2, touts, 1,
                    kt_make_opts(&o, adj_y, 2)), PL_OK);
    for (int i = 0; i < 8; i++)
        CHECK(out[i] == want[i]);
}

/* int8: {2, 3} (scale 0.5) x {4, -2} (scale 0.25) = 2 raw, rescaled by 0.5 -> 1. */
static void batch_matmul_int8_by_hand(void)
{
    int8_t lhs[2] = {2, 3}, rhs[2] = {4, -2}, out[1] = {0};
    int32_t ld[2] = {1, 2}, rd[2] = {2, 1}, od[2] = {1, 1};
    kh_setup();
    int32_t ins[2] = {kt_tensor_q(PL_INT8, 2, ld, lhs, 2, 0.5f, 0),
                      kt_tensor_q(PL_INT8, 2, rd, rhs, 2, 0.25f, 0)};
    int32_t outs[1] = {kt_tensor_q(PL_INT8, 2, od, out, 1, 0.25f, 0)};
    CHECK_EQ(kh_run(pl_batch_matmul_registration(), ins, 2, outs, 1, NULL), PL_OK);
    CHECK_EQ(out[0], 1);
}

static void batch_matmul_rejects_hybrid(void)
{
    float lhs[2] = {0}, out[1] = {0};
    int8_t rhs[2] = {0};
    int32_t ld[2] = {1, 2}, rd[2] = {2, 1}, od[2] = {1, 1};
    kh_setup();
    int32_t ins[2] = {kt_tensor_f32(2, ld, lhs, 2), kt_tensor_q(PL_INT8, 2, rd, rhs, 2, 1.0f, 0)};
    int32_t outs[1] = {kt_tensor_f32(2, od, out, 1)};
    CHECK_EQ(kh_run(pl_batch_matmul_registration(), ins, 2, outs, 1, NULL),
             PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "FLOAT32, INT8");
}

/* Depth/unit sweeps against the reference loops written out plainly: weight and input
** offsets, per-tensor and per-unit scales, unit counts off the block of four, and 16x8 rows
** longer than the int32 chunk, so the fast paths must agree bit for bit (float too). */
static uint32_t fc_seed = 777u;

static int32_t fc_rand(int32_t lo, int32_t hi)
{
    fc_seed = fc_seed * 1103515245u + 12345u;
    return lo + (int32_t)((fc_seed >> 8) % (uint32_t)(hi - lo + 1));
}

static double fc_round(double v)
{
    return v < 0 ? -(double)(int64_t)(-v + 0.5) : (double)(int64_t)(v + 0.5);
}

static void fc_fast_paths_match_the_reference_loops(void)
{
    static int8_t x8[2 * 700], w8[11 * 700], o8[2 * 11];
    static int16_t x16[2 * 700], o16[2 * 11];
    static float xf[2 * 700], wf[11 * 700], of[2 * 11];
    static int32_t bias32[11];
    static int64_t bias64[11];
    static float biasf[11];
    static double scale[11];
    const int32_t shapes[][3] = {{1, 4, 16}, {2, 11, 31}, {1, 7, 700}, {2, 3, 1}, {1, 8, 300}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        pl_fully_connected_params p;
        memset(&p, 0, sizeof p);
        p.batches = shapes[k][0];
        p.units = shapes[k][1];
        p.depth = shapes[k][2];
        for (int32_t i = 0; i < p.batches * p.depth; i++) {
            x8[i] = (int8_t)fc_rand(-128, 127);
            x16[i] = (int16_t)fc_rand(-32768, 32767);
            xf[i] = (float)fc_rand(-1000, 1000) / 256.0f;
        }
        for (int32_t u = 0; u < p.units; u++) {
            for (int32_t d = 0; d < p.depth; d++) {
                int32_t i = u * p.depth + d;
                w8[i] = (int8_t)fc_rand(-127, 127);
                wf[i] = (float)fc_rand(-1000, 1000) / 1024.0f;
            }
            bias32[u] = fc_rand(-5000, 5000);
            bias64[u] = (int64_t)fc_rand(-5000, 5000) * 1000;
            biasf[u] = (float)fc_rand(-100, 100) / 64.0f;
            scale[u] = 1e-4 * fc_rand(1, 100);
        }
        p.scale = scale;
        p.per_channel = (k % 2) == 1;
        p.input_offset = fc_rand(-127, 128);
        p.filter_offset = p.per_channel ? 0 : fc_rand(-127, 128);
        p.output_offset = fc_rand(-128, 127);
        p.act_min = -128;
        p.act_max = 127;
        pl_fully_connected_s8(&p, x8, w8, bias32, o8);
        int32_t bad = 0;
        for (int32_t b = 0; b < p.batches; b++) {
            for (int32_t u = 0; u < p.units; u++) {
                int32_t acc = bias32[u];
                for (int32_t d = 0; d < p.depth; d++)
                    acc += (w8[u * p.depth + d] + p.filter_offset) *
                           (x8[b * p.depth + d] + p.input_offset);
                double v = fc_round((double)acc * scale[p.per_channel ? u : 0]);
                bad += o8[b * p.units + u] !=
                       (int8_t)pl_fx_clamp((int32_t)v + p.output_offset, -128, 127);
            }
        }
        p.input_offset = p.output_offset = 0;
        p.act_min = INT16_MIN;
        p.act_max = INT16_MAX;
        pl_fully_connected_s16(&p, x16, w8, bias64, true, o16);
        for (int32_t b = 0; b < p.batches; b++) {
            for (int32_t u = 0; u < p.units; u++) {
                int64_t acc = bias64[u];
                for (int32_t d = 0; d < p.depth; d++)
                    acc += (int64_t)(w8[u * p.depth + d] + p.filter_offset) *
                           x16[b * p.depth + d];
                double v = fc_round((double)acc * scale[p.per_channel ? u : 0]);
                bad += o16[b * p.units + u] != (int16_t)pl_fx_clamp((int32_t)v, INT16_MIN,
                                                                    INT16_MAX);
            }
        }
        p.f_act_min = -1e30f;
        p.f_act_max = 1e30f;
        pl_fully_connected_f32(&p, xf, wf, biasf, of);
        for (int32_t b = 0; b < p.batches; b++) {
            for (int32_t u = 0; u < p.units; u++) {
                float total = 0.0f;
                for (int32_t d = 0; d < p.depth; d++)
                    total += xf[b * p.depth + d] * wf[u * p.depth + d];
                bad += of[b * p.units + u] != total + biasf[u];
            }
        }
        if (bad != 0)
            fprintf(stderr, "fc sweep shape %zu: %d mismatches\n", k, bad);
        CHECK_EQ(bad, 0);
    }
}

/* TFLite's MultiplyByQuantizedMultiplier written out from its definition (not with the
** kernels' helpers): x times 2^left wrapping in int32, the doubled high half of the product
** with a nudge (ties away from zero, INT32_MIN * INT32_MIN saturated), then a right shift
** rounding half away from zero. */
static int32_t plain_qm(int32_t x, int32_t m, int32_t shift)
{
    int32_t left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    int64_t a = (int32_t)((uint32_t)x << left);
    if (a == INT32_MIN && m == INT32_MIN)
        return INT32_MAX;
    int64_t ab = a * m;
    int64_t high = (ab + (ab >= 0 ? (1LL << 30) : 1 - (1LL << 30))) / (1LL << 31);
    if (right == 0)
        return (int32_t)high;
    int64_t half = 1LL << (right - 1);
    return (int32_t)(high >= 0 ? (high + half) >> right : -((-high + half) >> right));
}

/* Its int64 overload: the multiplier rounded to 16 bits, one rounding shift (ties up). */
static int32_t plain_qm64(int64_t x, int32_t m, int32_t shift)
{
    int64_t reduced = m < 0x7FFF0000 ? ((int64_t)m + (1 << 15)) >> 16 : 0x7FFF;
    int32_t total = 15 - shift;
    return (int32_t)((x * reduced + (1LL << (total - 1))) >> total);
}

/* TFLM's FullyConnected / FullyConnectedPerChannel against plain loops, through prepare
** (the multipliers from the tensors' scales): int8 with weight and input offsets, 16x8
** summed in int32 (wrapping: rows of 700 full-scale products overflow it) and in int64,
** per-tensor and per-unit, with output scales that saturate or round most sums away. */
static void fc_tflm_rescale_matches_plain_loops(void)
{
    static int8_t x8[3 * 700], w8[13 * 700], o8[3 * 13];
    static int16_t x16[3 * 700], o16[3 * 13];
    static int32_t bias32[13];
    static int64_t bias64[13];
    for (int k = 0; k < 60; k++) {
        int32_t batches = fc_rand(1, 3), units = fc_rand(1, 13), depth = fc_rand(1, 700);
        bool per_channel = k % 2 == 1, s16 = k % 3 != 0, acc64 = k % 3 == 2;
        float in_scale = (float)fc_rand(1, 100) / 1000.0f, f_scale[13], bias_scale[13];
        float out_scale = (float[]){0.05f, 0.3f, 2.0f, 0.0005f, 90.0f}[fc_rand(0, 4)];
        int64_t zeros[13] = {0}, in_zp = s16 ? 0 : fc_rand(-128, 127);
        int64_t out_zp = s16 ? 0 : fc_rand(-128, 127), w_zp = per_channel ? 0 : fc_rand(-5, 5);
        for (int32_t u = 0; u < units; u++) {
            f_scale[u] = (float)fc_rand(1, 100) / 5000.0f;
            bias_scale[u] = in_scale * f_scale[per_channel ? u : 0];
            bias32[u] = fc_rand(-30000, 30000);
            bias64[u] = (int64_t)fc_rand(-30000, 30000) * fc_rand(1, 3000);
        }
        for (int32_t i = 0; i < batches * depth; i++) {
            x8[i] = (int8_t)fc_rand(-128, 127);
            x16[i] = (int16_t)(fc_rand(0, 3) == 0 ? fc_rand(0, 1) * 65535 - 32768
                                                  : fc_rand(-32768, 32767));
        }
        for (int32_t i = 0; i < units * depth; i++)
            w8[i] = (int8_t)(fc_rand(0, 3) == 0 ? 127 : fc_rand(-127, 127));
        kh_setup();
        /* TFLM 90b983c, and the wheel's release (its per-tensor product in double) */
        bool wide = k % 4 >= 2;
        kh_ctx.arith = wide ? PL_ARITH_TFLM_WIDE : PL_ARITH_TFLM;
        pl_type io = s16 ? PL_INT16 : PL_INT8;
        int32_t ind[2] = {batches, depth}, fd[2] = {units, depth}, bd[1] = {units};
        int32_t od[2] = {batches, units};
        int32_t ins[3], outs[1];
        ins[0] = kh_tensor(io, 2, ind, s16 ? (void *)x16 : (void *)x8,
                           (size_t)(batches * depth) * (s16 ? 2u : 1u), &in_scale, &in_zp, 1, 0);
        ins[1] = kh_tensor(PL_INT8, 2, fd, w8, (size_t)(units * depth), f_scale,
                           per_channel ? zeros : &w_zp, per_channel ? (uint32_t)units : 1u, 0);
        ins[2] = kh_tensor(acc64 ? PL_INT64 : PL_INT32, 1, bd,
                           acc64 ? (void *)bias64 : (void *)bias32,
                           (size_t)units * (acc64 ? 8u : 4u), bias_scale, zeros,
                           per_channel ? (uint32_t)units : 1u, 0);
        outs[0] = kh_tensor(io, 2, od, s16 ? (void *)o16 : (void *)o8,
                            (size_t)(batches * units) * (s16 ? 2u : 1u), &out_scale, &out_zp,
                            1, 0);
        CHECK_EQ(kh_run(pl_fully_connected_registration(), ins, 3, outs, 1, NULL), PL_OK);
        int32_t bad = 0, lo = s16 ? INT16_MIN : -128, hi = s16 ? INT16_MAX : 127;
        for (int32_t u = 0; u < units; u++) {
            int32_t m, shift;
            double product = per_channel || wide
                                 ? (double)in_scale * (double)f_scale[per_channel ? u : 0]
                                 : (double)(in_scale * f_scale[0]);
            pl_fx_quantize_multiplier(product / (double)out_scale, &m, &shift);
            for (int32_t b = 0; b < batches; b++) {
                int64_t acc = acc64 ? bias64[u] : bias32[u];
                uint32_t acc32 = (uint32_t)bias32[u];
                for (int32_t d = 0; d < depth; d++) {
                    int32_t x = s16 ? x16[b * depth + d] : x8[b * depth + d] - (int32_t)in_zp;
                    int32_t w = w8[u * depth + d] - (int32_t)w_zp;
                    acc += (int64_t)w * x;
                    acc32 += (uint32_t)(w * x);
                }
                int32_t v = acc64 ? plain_qm64(acc, m, shift)
                                  : plain_qm((int32_t)acc32, m, shift);
                int64_t want = pl_fx_clamp((int32_t)((int64_t)v + out_zp > INT32_MAX ? INT32_MAX
                                                     : (int64_t)v + out_zp < INT32_MIN ? INT32_MIN
                                                     : (int64_t)v + out_zp), lo, hi);
                int32_t got = s16 ? o16[b * units + u] : o8[b * units + u];
                bad += got != want;
            }
        }
        if (bad != 0)
            fprintf(stderr, "TFLM fc case %d (%s, %s, %s): %d mismatches\n", k,
                    s16 ? "16x8" : "int8", acc64 ? "int64" : "int32",
                    per_channel ? "per unit" : "per tensor", bad);
        CHECK_EQ(bad, 0);
    }
    kh_ctx.arith = PL_ARITH_TFLM;
}

int main(void)
{
    RUN(fc_hybrid_symmetric_by_hand);
    RUN(batch_matmul_float_matches_tflite);
    RUN(batch_matmul_int8_by_hand);
    RUN(batch_matmul_rejects_hybrid);
    RUN(fc_float_matches_tflite_simple_test);
    RUN(fc_int8_per_tensor_matches_tflite_raw_outputs);
    RUN(fc_int8_per_channel_relu_keep_num_dims);
    RUN(fc_16x8_int64_bias_by_hand);
    RUN(fc_rejects_shuffled_weights);
    RUN(fc_uint8_offsets_weights_and_input);
    RUN(fc_rejects_uint8_input_with_int8_weights);
    RUN(fc_fast_paths_match_the_reference_loops);
    RUN(fc_tflm_rescale_matches_plain_loops);
    return HARNESS_END();
}
