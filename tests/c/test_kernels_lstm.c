/* test_kernels_lstm.c - UNIDIRECTIONAL_SEQUENCE_LSTM: float cases against the LSTM formulas
** (plain and CIFG with projection and clips), the integer path on cases whose gates are
** exact (zero weights: every sigmoid is 1/2, tanh(0) = 0), time-major order, the 16x8 path
** (zero points, cell clip) and the rejections. Bit-exactness against LiteRT is checked on
** the real models (mnist_lstm, dtln), the 16x8 path's against TFLM on tests/models/lstm16x8. */
#include <math.h>
#include <stdint.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/recurrent/lstm.h"

typedef struct opts {
    _Alignas(4) uint8_t buf[64];
    pl_table t;
} opts;

/* Options table: fields 0..n-1 present, 4 bytes each (floats as their bits). */
static const pl_table *make_opts(opts *o, const uint32_t *fields, uint32_t n)
{
    uint32_t vt_bytes = 4u + 2u * n, pos = (vt_bytes + 3u) & ~3u;
    memset(o->buf, 0, sizeof o->buf);
    o->buf[0] = (uint8_t)vt_bytes;
    o->buf[2] = (uint8_t)(4u + 4u * n);
    o->buf[pos] = (uint8_t)pos;
    for (uint32_t i = 0; i < n; i++) {
        o->buf[4 + 2 * i] = (uint8_t)(4u + 4u * i);
        for (uint32_t b = 0; b < 4; b++)
            o->buf[pos + 4 + 4 * i + b] = (uint8_t)(fields[i] >> (8 * b));
    }
    o->t.buf = o->buf;
    o->t.size = sizeof o->buf;
    o->t.pos = pos;
    o->t.vtable = 0;
    o->t.vt_bytes = (uint16_t)vt_bytes;
    return &o->t;
}

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static int32_t t3(pl_type type, int32_t d0, int32_t d1, int32_t d2, void *data, size_t bytes,
                  float scale, int64_t zp)
{
    int32_t dims[3] = {d0, d1, d2};
    int32_t nd = d2 > 0 ? 3 : d1 > 0 ? 2 : 1;
    return kh_tensor(type, nd, dims, data, bytes, &scale, &zp, scale > 0 ? 1u : 0u, 0);
}

/* Runs init/prepare/invoke with 24 inputs and the given intermediates. */
static pl_status run_lstm(const int32_t *ins, int32_t out, const pl_table *options,
                          const int32_t *inter, uint32_t ninter)
{
    static uint8_t inter_buf[5 * 4];
    pl_node node;
    memset(&node, 0, sizeof node);
    node.builtin_code = 44;
    node.inputs = kh_vec(0, ins, 24);
    node.outputs = kh_vec(1, &out, 1);
    for (uint32_t k = 0; k < ninter; k++) {
        for (int b = 0; b < 4; b++)
            inter_buf[4 * k + (uint32_t)b] = (uint8_t)((uint32_t)inter[k] >> (8 * b));
    }
    node.intermediates.p = inter_buf;
    node.intermediates.n = ninter;
    node.options = *options;
    const pl_registration *reg = pl_unidirectional_sequence_lstm_registration();
    kh.phase = PL_PHASE_INIT;
    PL_TRY(pl_registration_init(reg, &kh_ctx, &node, &node.user_data));
    kh.phase = PL_PHASE_PREPARE;
    PL_TRY(reg->prepare(&kh_ctx, &node));
    kh.phase = PL_PHASE_INVOKE;
    return reg->invoke(&kh_ctx, &node);
}

static void absent(int32_t *ins)
{
    for (int i = 0; i < 24; i++)
        ins[i] = -1;
}

static double sig(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

/* One cell, one input, two steps, batch-major [1, 2, 1]. */
static void lstm_float_follows_the_formulas(void)
{
    float x[2] = {1.0f, 2.0f}, out[2] = {0}, h[1] = {0}, c[1] = {0};
    float wx[4] = {0.5f, 1.0f, -1.0f, 2.0f}, wh[4] = {0.1f, 0.2f, 0.3f, 0.4f};
    float b[4] = {0.0f, 1.0f, 0.0f, -1.0f};
    int32_t ins[24];
    opts o;
    uint32_t fields[4] = {PL_ACT_TANH, 0, 0, 0};
    kh_setup();
    absent(ins);
    ins[0] = t3(PL_FLOAT32, 1, 2, 1, x, sizeof x, 0, 0);
    for (int g = 0; g < 4; g++) {
        ins[1 + g] = t3(PL_FLOAT32, 1, 1, 0, &wx[g], sizeof(float), 0, 0);
        ins[5 + g] = t3(PL_FLOAT32, 1, 1, 0, &wh[g], sizeof(float), 0, 0);
        ins[12 + g] = t3(PL_FLOAT32, 1, 0, 0, &b[g], sizeof(float), 0, 0);
    }
    ins[18] = t3(PL_FLOAT32, 1, 1, 0, h, sizeof h, 0, 0);
    ins[19] = t3(PL_FLOAT32, 1, 1, 0, c, sizeof c, 0, 0);
    kh.tensors[ins[18]].is_variable = kh.tensors[ins[19]].is_variable = true;
    int32_t out_i = t3(PL_FLOAT32, 1, 2, 1, out, sizeof out, 0, 0);
    CHECK_EQ(run_lstm(ins, out_i, make_opts(&o, fields, 4), NULL, 0), PL_OK);
    double hh = 0, cc = 0;
    for (int t = 0; t < 2; t++) {
        double i = sig(0.5 * x[t] + 0.1 * hh), f = sig(x[t] + 0.2 * hh + 1.0);
        double g = tanh(-x[t] + 0.3 * hh), og = sig(2.0 * x[t] + 0.4 * hh - 1.0);
        cc = f * cc + i * g;
        hh = og * tanh(cc);
        CHECK(fabs(out[t] - hh) < 1e-6);
    }
    CHECK(fabs(h[0] - hh) < 1e-6 && fabs(c[0] - cc) < 1e-6);
}

/* CIFG (input gate = 1 - forget), projection to 1 output with bias, cell clip 0.1,
** projection clip 0.05; two cells, time-major [2, 1, 1]. */
static void lstm_float_cifg_projection_and_clips(void)
{
    float x[2] = {3.0f, -1.0f}, out[2] = {0}, h[1] = {0}, c[2] = {0};
    float wx[3][2] = {{1.0f, -1.0f}, {2.0f, 0.5f}, {1.0f, 1.0f}};  /* f, c, o */
    float wh[3][2] = {{0.5f, 0.5f}, {-0.5f, 0.5f}, {0.25f, 0.0f}};
    float b[3][2] = {{0, 0}, {0, 0}, {0, 0}}, pw[2] = {1.0f, -0.5f}, pb[1] = {0.01f};
    int32_t ins[24];
    opts o;
    uint32_t fields[4] = {PL_ACT_TANH, bits(0.1f), bits(0.05f), 1};
    kh_setup();
    absent(ins);
    ins[0] = t3(PL_FLOAT32, 2, 1, 1, x, sizeof x, 0, 0);
    for (int g = 0; g < 3; g++) {
        ins[2 + g] = t3(PL_FLOAT32, 2, 1, 0, wx[g], sizeof wx[g], 0, 0);
        ins[6 + g] = t3(PL_FLOAT32, 2, 1, 0, wh[g], sizeof wh[g], 0, 0);
        ins[13 + g] = t3(PL_FLOAT32, 2, 0, 0, b[g], sizeof b[g], 0, 0);
    }
    ins[16] = t3(PL_FLOAT32, 1, 2, 0, pw, sizeof pw, 0, 0);
    ins[17] = t3(PL_FLOAT32, 1, 0, 0, pb, sizeof pb, 0, 0);
    ins[18] = t3(PL_FLOAT32, 1, 1, 0, h, sizeof h, 0, 0);
    ins[19] = t3(PL_FLOAT32, 1, 2, 0, c, sizeof c, 0, 0);
    kh.tensors[ins[18]].is_variable = kh.tensors[ins[19]].is_variable = true;
    int32_t out_i = t3(PL_FLOAT32, 2, 1, 1, out, sizeof out, 0, 0);
    CHECK_EQ(run_lstm(ins, out_i, make_opts(&o, fields, 4), NULL, 0), PL_OK);
    double hh = 0, cc[2] = {0, 0};
    for (int t = 0; t < 2; t++) {
        double hid[2];
        for (int k = 0; k < 2; k++) {
            double f = sig(wx[0][k] * x[t] + wh[0][k] * hh);
            double g = tanh(wx[1][k] * x[t] + wh[1][k] * hh);
            double og = sig(wx[2][k] * x[t] + wh[2][k] * hh);
            cc[k] = fmin(fmax(f * cc[k] + (1.0 - f) * g, -0.1), 0.1);
            hid[k] = og * tanh(cc[k]);
        }
        hh = fmin(fmax(pw[0] * hid[0] + pw[1] * hid[1] + pb[0], -0.05), 0.05);
        CHECK(fabs(out[t] - hh) < 1e-6);
    }
}

/* Integer, zero weights and biases: every gate is 0 in Q3.12, so f = i = o = 1/2 exactly
** (16384), the cell gate is 0, the cell state halves each step (rounded) and the output is
** o * tanh(cell) requantized, plus the hidden zero point. */
static void lstm_int8_zero_weights_halve_the_cell(void)
{
    int8_t x[2] = {5, -7}, out[2] = {0}, h[1] = {0}, w[1] = {0};
    int16_t c[1] = {1000};
    int32_t b[1] = {0};
    int32_t ins[24];
    opts o;
    uint32_t fields[4] = {PL_ACT_TANH, 0, 0, 0};
    kh_setup();
    absent(ins);
    ins[0] = t3(PL_INT8, 1, 2, 1, x, sizeof x, 0.5f, 1);
    for (int g = 0; g < 4; g++) {
        ins[1 + g] = t3(PL_INT8, 1, 1, 0, w, sizeof w, 0.01f, 0);
        ins[5 + g] = t3(PL_INT8, 1, 1, 0, w, sizeof w, 0.01f, 0);
        ins[12 + g] = t3(PL_INT32, 1, 0, 0, b, sizeof b, 0.005f, 0);
    }
    ins[18] = t3(PL_INT8, 1, 1, 0, h, sizeof h, 1.0f / 128, 3);
    ins[19] = t3(PL_INT16, 1, 1, 0, c, sizeof c, 1.0f / 2048, 0);
    kh.tensors[ins[18]].is_variable = kh.tensors[ins[19]].is_variable = true;
    int32_t out_i = t3(PL_INT8, 1, 2, 1, out, sizeof out, 1.0f / 128, 3);
    int32_t inter[5];
    for (int k = 0; k < 4; k++)
        inter[k] = t3(PL_INT8, 1, 0, 0, NULL, 0, 0, 0);
    inter[4] = t3(PL_INT8, 1, 0, 0, NULL, 0, 1.0f / 128, 3);
    CHECK_EQ(run_lstm(ins, out_i, make_opts(&o, fields, 4), inter, 5), PL_OK);
    CHECK_EQ(c[0], 250); /* 1000 -> 500 -> 250 */
    /* hidden = 0.5 * tanh(250 / 2048) in 1/128 steps plus 3: 7.76 -> 8 + 3 */
    double want = 0.5 * tanh(250.0 / 2048.0) * 128.0 + 3.0;
    CHECK(fabs(out[1] - want) <= 1.0);
    CHECK_EQ(h[0], out[1]);
    CHECK_EQ(out[0], 3 + 15); /* 0.5 * tanh(500 / 2048) * 128 = 15.4 */
}

/* Integer, nonzero weights whose products cancel only once the zero points are taken off
** (rows {1, 1} and {3, 3} against x - zp = {4, -4} and h - zp = {5, -5}): every gate is 0
** again, so both cells halve. Checks the zero points in the fused four-gate sums. */
static void lstm_int8_zero_points_cancel_in_the_gate_sums(void)
{
    int8_t x[2] = {5, -3}, out[2] = {0}, h[2] = {8, -2}, w[4] = {1, 1, 3, 3};
    int16_t c[2] = {1000, -600};
    int32_t b[2] = {0, 0};
    int32_t ins[24];
    opts o;
    uint32_t fields[4] = {PL_ACT_TANH, 0, 0, 0};
    kh_setup();
    absent(ins);
    ins[0] = t3(PL_INT8, 1, 1, 2, x, sizeof x, 0.5f, 1);
    for (int g = 0; g < 4; g++) {
        ins[1 + g] = t3(PL_INT8, 2, 2, 0, w, sizeof w, 0.01f, 0);
        ins[5 + g] = t3(PL_INT8, 2, 2, 0, w, sizeof w, 0.01f, 0);
        ins[12 + g] = t3(PL_INT32, 2, 0, 0, b, sizeof b, 0.005f, 0);
    }
    ins[18] = t3(PL_INT8, 1, 2, 0, h, sizeof h, 1.0f / 128, 3);
    ins[19] = t3(PL_INT16, 1, 2, 0, c, sizeof c, 1.0f / 2048, 0);
    kh.tensors[ins[18]].is_variable = kh.tensors[ins[19]].is_variable = true;
    int32_t out_i = t3(PL_INT8, 1, 1, 2, out, sizeof out, 1.0f / 128, 3);
    int32_t inter[5];
    for (int k = 0; k < 4; k++)
        inter[k] = t3(PL_INT8, 1, 0, 0, NULL, 0, 0, 0);
    inter[4] = t3(PL_INT8, 1, 0, 0, NULL, 0, 1.0f / 128, 3);
    CHECK_EQ(run_lstm(ins, out_i, make_opts(&o, fields, 4), inter, 5), PL_OK);
    CHECK_EQ(c[0], 500);
    CHECK_EQ(c[1], -300);
    CHECK(fabs(out[0] - (0.5 * tanh(500.0 / 2048.0) * 128.0 + 3.0)) <= 1.0);
    CHECK(fabs(out[1] - (0.5 * tanh(-300.0 / 2048.0) * 128.0 + 3.0)) <= 1.0);
    CHECK_EQ(h[0], out[0]);
    CHECK_EQ(h[1], out[1]);
}

/* The 16x8 LSTM's tensors: int16 input [1, steps, 2] and hidden state (zero points 100 and
** 3), int8 weight rows {1, 1} and {3, 3}, int64 zero biases, int16 cell state at 2^-11.
** Its products cancel once the zero points are off (x - zp = {4, -4}, h - zp = {5, -5}), so
** every gate is 0 in Q3.12 as in the int8 case above. */
static int32_t s16_tensors(int32_t *ins, int16_t *x, int32_t steps, int16_t *h, int16_t *c,
                           int16_t *out)
{
    static int8_t w[4] = {1, 1, 3, 3};
    static int64_t b[2] = {0, 0};
    absent(ins);
    ins[0] = t3(PL_INT16, 1, steps, 2, x, sizeof(int16_t) * 2 * (size_t)steps, 0.001f, 100);
    for (int g = 0; g < 4; g++) {
        ins[1 + g] = t3(PL_INT8, 2, 2, 0, w, sizeof w, 0.01f, 0);
        ins[5 + g] = t3(PL_INT8, 2, 2, 0, w, sizeof w, 0.02f, 0);
        ins[12 + g] = t3(PL_INT64, 2, 0, 0, b, sizeof b, 0.00001f, 0);
    }
    ins[18] = t3(PL_INT16, 1, 2, 0, h, sizeof(int16_t) * 2, 1.0f / 32768, 3);
    ins[19] = t3(PL_INT16, 1, 2, 0, c, sizeof(int16_t) * 2, 1.0f / 2048, 0);
    kh.tensors[ins[18]].is_variable = kh.tensors[ins[19]].is_variable = true;
    return t3(PL_INT16, 1, steps, 2, out, sizeof(int16_t) * 2 * (size_t)steps, 1.0f / 32768,
              3);
}

/* 0.5 * tanh(cell / 2048) in 1/32768 steps, plus the hidden zero point 3. */
static double s16_hidden(double cell)
{
    return 0.5 * tanh(cell / 2048.0) * 32768.0 + 3.0;
}

static void lstm_s16_zero_points_cancel_and_the_cell_halves(void)
{
    int16_t x[2] = {104, 96}, h[2] = {8, -2}, c[2] = {1000, -600}, out[2] = {0};
    int32_t ins[24];
    opts o;
    uint32_t fields[4] = {PL_ACT_TANH, 0, 0, 0};
    kh_setup();
    int32_t out_i = s16_tensors(ins, x, 1, h, c, out);
    CHECK_EQ(run_lstm(ins, out_i, make_opts(&o, fields, 4), NULL, 0), PL_OK);
    CHECK_EQ(c[0], 500);
    CHECK_EQ(c[1], -300);
    CHECK(fabs(out[0] - s16_hidden(500)) <= 2.0);
    CHECK(fabs(out[1] - s16_hidden(-300)) <= 2.0);
    CHECK_EQ(h[0], out[0]);
    CHECK_EQ(h[1], out[1]);
}

/* cell_clip 0.1 at 2^-11 is 204 (truncated): the halved cell 500 is clipped to it. */
static void lstm_s16_clips_the_cell(void)
{
    int16_t x[2] = {104, 96}, h[2] = {8, -2}, c[2] = {1000, -600}, out[2] = {0};
    int32_t ins[24];
    opts o;
    uint32_t fields[4] = {PL_ACT_TANH, bits(0.1f), 0, 0};
    kh_setup();
    int32_t out_i = s16_tensors(ins, x, 1, h, c, out);
    CHECK_EQ(run_lstm(ins, out_i, make_opts(&o, fields, 4), NULL, 0), PL_OK);
    CHECK_EQ(c[0], 204);
    CHECK_EQ(c[1], -204);
    CHECK(fabs(out[0] - s16_hidden(204)) <= 2.0);
}

/* TFLM's 16x8 kernel runs the standard LSTM with int64 biases and a tanh cell only. */
static void lstm_s16_rejects_variants(void)
{
    int16_t x[2] = {0}, h[2] = {0}, c[2] = {0}, out[2] = {0};
    int8_t pw[4] = {0};
    int32_t b32[2] = {0};
    int32_t ins[24];
    opts o;
    uint32_t tanh_fields[4] = {PL_ACT_TANH, 0, 0, 0}, relu_fields[4] = {PL_ACT_RELU, 0, 0, 0};
    kh_setup();
    int32_t out_i = s16_tensors(ins, x, 1, h, c, out);
    CHECK_EQ(run_lstm(ins, out_i, make_opts(&o, relu_fields, 4), NULL, 0), PL_ERR_UNSUPPORTED);
    CHECK(strstr(kh.message, "TANH") != NULL);
    ins[16] = t3(PL_INT8, 2, 2, 0, pw, sizeof pw, 0.01f, 0);
    CHECK_EQ(run_lstm(ins, out_i, make_opts(&o, tanh_fields, 4), NULL, 0), PL_ERR_UNSUPPORTED);
    CHECK(strstr(kh.message, "standard") != NULL);
    ins[16] = -1;
    for (int g = 0; g < 4; g++)
        ins[12 + g] = t3(PL_INT32, 2, 0, 0, b32, sizeof b32, 0.00001f, 0);
    CHECK_EQ(run_lstm(ins, out_i, make_opts(&o, tanh_fields, 4), NULL, 0), PL_ERR_UNSUPPORTED);
    CHECK(strstr(kh.message, "bias INT32") != NULL);
}

/* A constant int64 bias lies in the model's buffer, which the flatbuffer aligns to 4 bytes
** only: the kernel reads it at any address (UBSan reports a misaligned int64 load). The
** same nonzero bias at an 8-aligned and a 4-past-8 address gives the same bytes. */
static void lstm_s16_reads_a_bias_at_any_address(void)
{
    static _Alignas(8) uint8_t raw[2 * 8 + 4];
    int64_t bias[2] = {3000, -7000};
    int16_t outs[2][2];
    for (int shift = 0; shift <= 4; shift += 4) {
        int16_t x[2] = {104, 96}, h[2] = {8, -2}, c[2] = {1000, -600}, out[2] = {0};
        int32_t ins[24];
        opts o;
        uint32_t fields[4] = {PL_ACT_TANH, 0, 0, 0};
        kh_setup();
        memcpy(raw + shift, bias, sizeof bias);
        int32_t out_i = s16_tensors(ins, x, 1, h, c, out);
        for (int g = 0; g < 4; g++)
            ins[12 + g] = t3(PL_INT64, 2, 0, 0, raw + shift, sizeof bias, 0.00001f, 0);
        CHECK_EQ(run_lstm(ins, out_i, make_opts(&o, fields, 4), NULL, 0), PL_OK);
        memcpy(outs[shift / 4], out, sizeof out);
    }
    CHECK_EQ(outs[0][0], outs[1][0]);
    CHECK_EQ(outs[0][1], outs[1][1]);
    CHECK(outs[0][0] != outs[0][1]);
}

static void lstm_rejects_layer_norm_hybrid_and_missing_intermediates(void)
{
    float xf[1] = {0}, of[1] = {0}, hf[1] = {0}, cf[1] = {0}, wf[1] = {0}, bf[1] = {0};
    int8_t w8[1] = {0};
    int32_t ins[24];
    opts o;
    uint32_t fields[4] = {PL_ACT_TANH, 0, 0, 0};
    kh_setup();
    absent(ins);
    ins[0] = t3(PL_FLOAT32, 1, 1, 1, xf, sizeof xf, 0, 0);
    for (int g = 0; g < 4; g++) {
        ins[1 + g] = t3(PL_FLOAT32, 1, 1, 0, wf, sizeof wf, 0, 0);
        ins[5 + g] = t3(PL_FLOAT32, 1, 1, 0, wf, sizeof wf, 0, 0);
        ins[12 + g] = t3(PL_FLOAT32, 1, 0, 0, bf, sizeof bf, 0, 0);
    }
    ins[18] = t3(PL_FLOAT32, 1, 1, 0, hf, sizeof hf, 0, 0);
    ins[19] = t3(PL_FLOAT32, 1, 1, 0, cf, sizeof cf, 0, 0);
    kh.tensors[ins[18]].is_variable = kh.tensors[ins[19]].is_variable = true;
    int32_t out_i = t3(PL_FLOAT32, 1, 1, 1, of, sizeof of, 0, 0);
    ins[21] = t3(PL_FLOAT32, 1, 0, 0, bf, sizeof bf, 0, 0);
    CHECK_EQ(run_lstm(ins, out_i, make_opts(&o, fields, 4), NULL, 0), PL_ERR_UNSUPPORTED);
    CHECK(strstr(kh.message, "layer normalisation") != NULL);
    ins[21] = -1;
    ins[2] = t3(PL_INT8, 1, 1, 0, w8, sizeof w8, 1.0f, 0); /* hybrid weights */
    CHECK_EQ(run_lstm(ins, out_i, make_opts(&o, fields, 4), NULL, 0), PL_ERR_UNSUPPORTED);
    CHECK(strstr(kh.message, "hybrid") != NULL);
    ins[2] = ins[1];
    kh.tensors[ins[18]].is_variable = false;
    CHECK_EQ(run_lstm(ins, out_i, make_opts(&o, fields, 4), NULL, 0), PL_ERR_MODEL);
}

int main(void)
{
    RUN(lstm_float_follows_the_formulas);
    RUN(lstm_float_cifg_projection_and_clips);
    RUN(lstm_int8_zero_weights_halve_the_cell);
    RUN(lstm_int8_zero_points_cancel_in_the_gate_sums);
    RUN(lstm_s16_zero_points_cancel_and_the_cell_halves);
    RUN(lstm_s16_clips_the_cell);
    RUN(lstm_s16_rejects_variants);
    RUN(lstm_s16_reads_a_bias_at_any_address);
    RUN(lstm_rejects_layer_norm_hybrid_and_missing_intermediates);
    return HARNESS_END();
}
