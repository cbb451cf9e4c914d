/* test_kernels_pool.c - AVERAGE_POOL_2D, MAX_POOL_2D and MEAN on hand-checked cases (float
** expectations from TFLite's pooling_test.cc; quantized ones from the reference formulas). */
#include <stdbool.h>
#include <stdint.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/pool/pooling.h"
#include "kernels/reduce/reduce.h"

/* 2x2 filter, stride 2, VALID over a 1x2x4x1 input; RELU6 when asked. */
static const int32_t pool_2x2_valid[6] = {1, 2, 2, 2, 2, 0};

static pl_status run_pool(const pl_registration *reg, const int32_t *fields, pl_type type,
                          void *in, void *out, float scale, int64_t zp)
{
    static kt_opts o;
    int32_t id[4] = {1, 2, 4, 1}, od[4] = {1, 1, 2, 1};
    size_t es = type == PL_FLOAT32 ? 4 : type == PL_INT16 ? 2 : 1;
    kh_setup();
    int32_t ins[1], outs[1];
    if (type == PL_FLOAT32) {
        ins[0] = kt_tensor_f32(4, id, in, 8);
        outs[0] = kt_tensor_f32(4, od, out, 2);
    } else {
        ins[0] = kt_tensor_q(type, 4, id, in, 8 * es, scale, zp);
        outs[0] = kt_tensor_q(type, 4, od, out, 2 * es, scale, zp);
    }
    return kh_run(reg, ins, 1, outs, 1, kt_make_opts(&o, fields, 6));
}

/* pooling_test.cc AveragePool / MaxPool float: {0, 6, 2, 4, 3, 2, 10, 7}. */
static void avg_and_max_float_match_tflite(void)
{
    float in[8] = {0, 6, 2, 4, 3, 2, 10, 7}, out[2] = {0};
    CHECK_EQ(run_pool(pl_pooling_avg_registration(), pool_2x2_valid, PL_FLOAT32, in, out, 0,
                      0), PL_OK);
    CHECK(out[0] == 2.75f && out[1] == 5.75f);
    CHECK_EQ(run_pool(pl_pooling_max_registration(), pool_2x2_valid, PL_FLOAT32, in, out, 0,
                      0), PL_OK);
    CHECK(out[0] == 6.0f && out[1] == 10.0f);
}

/* Windows sum to -6 and 5 over 4 taps: -1.5 rounds to -2, 1.25 to 1. */
static void avg_int8_rounds_half_away_from_zero(void)
{
    int8_t in[8] = {-1, -2, 1, 2, -1, -2, 1, 1}, out[2] = {0};
    CHECK_EQ(run_pool(pl_pooling_avg_registration(), pool_2x2_valid, PL_INT8, in, out, 0.5f,
                      0), PL_OK);
    CHECK_EQ(out[0], -2);
    CHECK_EQ(out[1], 1);
}

/* int16 average 2.5 -> 3, and max clamped by RELU6 at scale 1 (6). */
static void int16_average_and_relu6_max(void)
{
    int16_t in[8] = {1, 2, 100, 200, 3, 4, 300, 400}, out[2] = {0};
    int32_t relu6[6] = {1, 2, 2, 2, 2, 3};
    CHECK_EQ(run_pool(pl_pooling_avg_registration(), pool_2x2_valid, PL_INT16, in, out, 1.0f,
                      0), PL_OK);
    CHECK_EQ(out[0], 3);
    CHECK_EQ(out[1], 250);
    CHECK_EQ(run_pool(pl_pooling_max_registration(), relu6, PL_INT16, in, out, 1.0f, 0),
             PL_OK);
    CHECK_EQ(out[0], 4);
    CHECK_EQ(out[1], 6);
}

static void pool_rejects_int32_and_tanh(void)
{
    int32_t in[8] = {0}, out[2] = {0};
    CHECK_EQ(run_pool(pl_pooling_max_registration(), pool_2x2_valid, PL_INT32, in, out, 1.0f,
                      0), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "INT32");
    float fin[8] = {0}, fout[2] = {0};
    int32_t tanh_fields[6] = {1, 2, 2, 2, 2, 4};
    CHECK_EQ(run_pool(pl_pooling_avg_registration(), tanh_fields, PL_FLOAT32, fin, fout, 0,
                      0), PL_ERR_UNSUPPORTED);
}

/* Runs MEAN or SUM over a constant axis vector; in/out quantization when scale > 0. */
static pl_status run_reduce(const pl_registration *reg, pl_type type, int32_t ndims,
                            const int32_t *dims, void *in, size_t in_bytes, int32_t *axes,
                            int32_t naxes, bool keep, int32_t out_ndims,
                            const int32_t *out_dims, void *out, size_t out_bytes,
                            float in_scale, float out_scale)
{
    static kt_opts o;
    const int32_t f[1] = {keep ? 1 : 0};
    int32_t ad[1] = {naxes};
    kh_setup();
    int32_t ins[2], outs[1];
    if (in_scale > 0.0f) {
        ins[0] = kt_tensor_q(type, ndims, dims, in, in_bytes, in_scale, 0);
        outs[0] = kt_tensor_q(type, out_ndims, out_dims, out, out_bytes, out_scale, 0);
    } else {
        ins[0] = kh_tensor(type, ndims, dims, in, in_bytes, NULL, NULL, 0, 0);
        outs[0] = kh_tensor(type, out_ndims, out_dims, out, out_bytes, NULL, NULL, 0, 0);
    }
    ins[1] = kh_tensor(PL_INT32, 1, ad, axes, sizeof(int32_t) * (size_t)naxes, NULL, NULL, 0,
                       0);
    return kh_run(reg, ins, 2, outs, 1, kt_make_opts(&o, f, 1));
}

/* reduce_test.cc MeanOpTest NotKeepDims: axes {1, 0, -3, -3} of 1..24 in [4,3,2] -> 12, 13. */
static void mean_float_matches_tflite_not_keep_dims(void)
{
    float in[24], out[2] = {0};
    for (int i = 0; i < 24; i++)
        in[i] = (float)(i + 1);
    int32_t dims[3] = {4, 3, 2}, od[1] = {2}, axes[4] = {1, 0, -3, -3};
    CHECK_EQ(run_reduce(pl_reduce_mean_registration(), PL_FLOAT32, 3, dims, in, sizeof in,
                        axes, 4, false, 1, od, out, sizeof out, 0, 0), PL_OK);
    CHECK(out[0] == 12.0f && out[1] == 13.0f);
}

/* LiteRT folds 1/5 into the multiplier and rounds twice: a mean of 0.4 becomes 1. */
static void mean_int8_rounds_like_litert(void)
{
    int8_t in[5] = {0, 0, 0, 0, 2}, out[1] = {0};
    int32_t dims[2] = {1, 5}, od[2] = {1, 1}, axes[1] = {-1};
    CHECK_EQ(run_reduce(pl_reduce_mean_registration(), PL_INT8, 2, dims, in, sizeof in, axes,
                        1, true, 2, od, out, sizeof out, 1.0f, 1.0f), PL_OK);
    CHECK_EQ(out[0], 1);
}

/* int16 mean of {100, 200, 300, 401} rescaled by 1/2: 125.125 -> 125. */
static void mean_int16_rescales(void)
{
    int16_t in[4] = {100, 200, 300, 401}, out[1] = {0};
    int32_t dims[1] = {4}, od[1] = {1}, axes[1] = {0};
    CHECK_EQ(run_reduce(pl_reduce_mean_registration(), PL_INT16, 1, dims, in, sizeof in, axes,
                        1, false, 1, od, out, sizeof out, 1.0f, 2.0f), PL_OK);
    CHECK_EQ(out[0], 125);
}

static void sum_float_over_rows(void)
{
    float in[6] = {1, 2, 3, 4, 5, 6}, out[3] = {0};
    int32_t dims[2] = {2, 3}, od[2] = {1, 3}, axes[1] = {0};
    CHECK_EQ(run_reduce(pl_reduce_sum_registration(), PL_FLOAT32, 2, dims, in, sizeof in,
                        axes, 1, true, 2, od, out, sizeof out, 0, 0), PL_OK);
    CHECK(out[0] == 5.0f && out[1] == 7.0f && out[2] == 9.0f);
}

/* int8 SUM as LiteRT 2.3.0's reference kernel: bytes summed as uint8 (-1 counts 255),
** rescaled once, clamped to [0, 255], the byte stored (200 reads back as -56). */
static void sum_int8_sums_bytes_as_uint8_like_litert(void)
{
    int8_t in[8] = {1, 2, 3, 4, 100, 100, -1, -1}, out[4] = {0};
    int32_t dims[2] = {4, 2}, od[1] = {4}, axes[1] = {1};
    kh_ctx.arith = PL_ARITH_LITERT;
    CHECK_EQ(run_reduce(pl_reduce_sum_registration(), PL_INT8, 2, dims, in, sizeof in, axes,
                        1, false, 1, od, out, sizeof out, 1.0f, 1.0f), PL_OK);
    CHECK_EQ(out[0], 3);
    CHECK_EQ(out[1], 7);
    CHECK_EQ(out[2], -56); /* 200 */
    CHECK_EQ(out[3], -1);  /* 510 clamps to 255 */
    CHECK_EQ(run_reduce(pl_reduce_sum_registration(), PL_INT8, 2, dims, in, sizeof in, axes,
                        1, false, 1, od, out, sizeof out, 1.0f, 4.0f), PL_OK);
    CHECK_EQ(out[0], 1);   /* 0.75 rounds up */
    CHECK_EQ(out[1], 2);   /* 1.75 */
    CHECK_EQ(out[2], 50);
    CHECK_EQ(out[3], -128); /* 127.5 rounds to 128 */
    kh_ctx.arith = PL_ARITH_TFLM;
}

/* TFLM's int8 SUM sums int8 values (QuantizedMeanOrSum<int8_t>) and clamps to int8. */
static void sum_int8_sums_int8_values_like_tflm(void)
{
    int8_t in[8] = {1, 2, 3, 4, 100, 100, -1, -1}, out[4] = {0};
    int32_t dims[2] = {4, 2}, od[1] = {4}, axes[1] = {1};
    CHECK_EQ(run_reduce(pl_reduce_sum_registration(), PL_INT8, 2, dims, in, sizeof in, axes,
                        1, false, 1, od, out, sizeof out, 1.0f, 1.0f), PL_OK);
    CHECK(out[0] == 3 && out[1] == 7 && out[2] == 127 && out[3] == -2);
    CHECK_EQ(run_reduce(pl_reduce_sum_registration(), PL_INT8, 2, dims, in, sizeof in, axes,
                        1, false, 1, od, out, sizeof out, 1.0f, 4.0f), PL_OK);
    CHECK(out[0] == 1 && out[1] == 2 && out[2] == 50 && out[3] == -1); /* -0.5: away from 0 */
}

/* int16 SUM as TFLM: the sum rescaled by in/out scale (2) and saturated to int16. */
static void sum_int16_as_tflm(void)
{
    int16_t in[4] = {1000, -3000, 20000, 15000}, out[1] = {0};
    int32_t dims[1] = {4}, od[1] = {1}, axes[1] = {0};
    CHECK_EQ(run_reduce(pl_reduce_sum_registration(), PL_INT16, 1, dims, in, sizeof in, axes,
                        1, false, 1, od, out, sizeof out, 1.0f, 2.0f), PL_OK);
    CHECK_EQ(out[0], 16500);
    in[2] = 32767;
    in[3] = 32767;
    CHECK_EQ(run_reduce(pl_reduce_sum_registration(), PL_INT16, 1, dims, in, sizeof in, axes,
                        1, false, 1, od, out, sizeof out, 1.0f, 1.0f), PL_OK);
    CHECK_EQ(out[0], INT16_MAX);
}

static void mean_rejects_int32_and_a_bad_axis(void)
{
    int32_t in[4] = {0}, out[1] = {0}, dims[1] = {4}, od[1] = {1}, axes[1] = {0};
    CHECK_EQ(run_reduce(pl_reduce_mean_registration(), PL_INT32, 1, dims, in, sizeof in,
                        axes, 1, false, 1, od, out, sizeof out, 0, 0), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "INT32");
    float fin[4] = {0}, fout[1] = {0};
    int32_t bad[1] = {3};
    CHECK_EQ(run_reduce(pl_reduce_mean_registration(), PL_FLOAT32, 1, dims, fin, sizeof fin,
                        bad, 1, false, 1, od, fout, sizeof fout, 0, 0), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(kh.message, "axis 3 is out of range");
}

/* Shape sweeps against the reference loops written out plainly (TFLite's clipped window,
** taps in order): channel blocks of 64 with leftovers, SAME borders, strides. */
static uint32_t pool_seed = 4242u;

static int32_t pool_rand(int32_t lo, int32_t hi)
{
    pool_seed = pool_seed * 1103515245u + 12345u;
    return lo + (int32_t)((pool_seed >> 8) % (uint32_t)(hi - lo + 1));
}

static void pool_fast_paths_match_the_reference_loops(void)
{
    static int8_t x8[9 * 9 * 130], a8[9 * 9 * 130], m8[9 * 9 * 130];
    static float xf[9 * 9 * 130], af[9 * 9 * 130], mf[9 * 9 * 130];
    const int32_t shapes[][5] = {/* h, w, depth, filter, stride */
                                 {9, 9, 3, 3, 2}, {6, 7, 130, 2, 1}, {5, 5, 64, 3, 3},
                                 {8, 6, 17, 4, 2}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        const int32_t *s = shapes[k];
        pl_pooling_params p;
        memset(&p, 0, sizeof p);
        p.stride_w = p.stride_h = s[4];
        p.filter_w = p.filter_h = s[3];
        int32_t oh = (s[0] + s[4] - 1) / s[4], ow = (s[1] + s[4] - 1) / s[4]; /* SAME */
        int32_t pad_h = ((oh - 1) * s[4] + s[3] - s[0]) / 2;
        int32_t pad_w = ((ow - 1) * s[4] + s[3] - s[1]) / 2;
        p.pad_h = pad_h > 0 ? pad_h : 0;
        p.pad_w = pad_w > 0 ? pad_w : 0;
        p.act_min = -128;
        p.act_max = 127;
        p.f_act_min = -1e30f;
        p.f_act_max = 1e30f;
        const int32_t id[4] = {1, s[0], s[1], s[2]}, od[4] = {1, oh, ow, s[2]};
        for (int32_t i = 0; i < s[0] * s[1] * s[2]; i++) {
            x8[i] = (int8_t)pool_rand(-128, 127);
            xf[i] = (float)pool_rand(-1000, 1000) / 7.0f;
        }
        pl_pooling_avg_s8(&p, id, x8, od, a8);
        pl_pooling_max_s8(&p, id, x8, od, m8);
        pl_pooling_avg_f32(&p, id, xf, od, af);
        pl_pooling_max_f32(&p, id, xf, od, mf);
        int32_t bad = 0;
        for (int32_t oy = 0; oy < oh; oy++) {
            for (int32_t ox = 0; ox < ow; ox++) {
                for (int32_t c = 0; c < s[2]; c++) {
                    int32_t sum = 0, count = 0, max = -128;
                    float total = 0.0f, fcount = 0.0f, fmax = -3.0e38f;
                    for (int32_t fy = 0; fy < s[3]; fy++) {
                        for (int32_t fx = 0; fx < s[3]; fx++) {
                            int32_t iy = oy * s[4] - p.pad_h + fy, ix = ox * s[4] - p.pad_w + fx;
                            if (iy < 0 || iy >= s[0] || ix < 0 || ix >= s[1])
                                continue;
                            int32_t i = (iy * s[1] + ix) * s[2] + c;
                            sum += x8[i];
                            count++;
                            max = max < x8[i] ? x8[i] : max;
                            total += xf[i];
                            fcount += 1.0f;
                            fmax = fmax < xf[i] ? xf[i] : fmax;
                        }
                    }
                    int32_t avg = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
                    int32_t o = (oy * ow + ox) * s[2] + c;
                    bad += a8[o] != (int8_t)avg;
                    bad += m8[o] != (int8_t)max;
                    bad += af[o] != total / fcount;
                    bad += mf[o] != fmax;
                }
            }
        }
        if (bad != 0)
            fprintf(stderr, "pool sweep shape %zu: %d mismatches\n", k, bad);
        CHECK_EQ(bad, 0);
    }
}

int main(void)
{
    RUN(mean_float_matches_tflite_not_keep_dims);
    RUN(mean_int8_rounds_like_litert);
    RUN(mean_int16_rescales);
    RUN(sum_float_over_rows);
    RUN(sum_int8_sums_bytes_as_uint8_like_litert);
    RUN(sum_int8_sums_int8_values_like_tflm);
    RUN(sum_int16_as_tflm);
    RUN(mean_rejects_int32_and_a_bad_axis);
    RUN(avg_and_max_float_match_tflite);
    RUN(avg_int8_rounds_half_away_from_zero);
    RUN(int16_average_and_relu6_max);
    RUN(pool_rejects_int32_and_tanh);
    RUN(pool_fast_paths_match_the_reference_loops);
    return HARNESS_END();
}
