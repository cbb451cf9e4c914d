/* test_kernels_gather.c - GATHER, GATHER_ND, EMBEDDING_LOOKUP, ARG_MAX/ARG_MIN and CUMSUM:
** runtime indices outside the data refused at invoke, batch_dims, string buffers (their
** offsets checked, the output's room kept), hybrid dequantization,
** TFLite's NaN and tie rules, wrapping integer sums, TFLM's int8 CUMSUM rescaling. */
#include <math.h> /* NAN only */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/gather/arg_min_max.h"
#include "kernels/gather/cumsum.h"
#include "kernels/gather/embedding_lookup.h"
#include "kernels/gather/gather.h"

static int32_t tensor(pl_type type, int32_t ndims, const int32_t *dims, void *data,
                      size_t bytes)
{
    return kh_tensor(type, ndims, dims, data, bytes, NULL, NULL, 0, 0);
}

static void gather_refuses_out_of_range_index_at_invoke(void)
{
    kh_setup();
    static const int32_t dp[] = {2, 3}, di[] = {2}, dout[] = {2, 2};
    float p[6] = {1, 2, 3, 4, 5, 6}, got[4] = {0};
    int32_t idx[2] = {2, 3};
    int32_t in[2] = {tensor(PL_FLOAT32, 2, dp, p, sizeof p),
                     tensor(PL_INT32, 1, di, idx, sizeof idx)};
    int32_t out[1] = {tensor(PL_FLOAT32, 2, dout, got, sizeof got)};
    kt_opts o;
    int32_t f[2] = {-1, 0}; /* axis -1 */
    CHECK_EQ(kh_run(pl_gather_registration(), in, 2, out, 1, kt_make_opts(&o, f, 2)),
             PL_ERR_ARG);
    CHECK_STR_CONTAINS(kh.message, "index 3");
    CHECK(got[0] == 0 && got[1] == 0); /* nothing written before the check */
    idx[1] = -1;
    CHECK_EQ(kh_run(pl_gather_registration(), in, 2, out, 1, kt_make_opts(&o, f, 2)),
             PL_ERR_ARG);
    idx[1] = 0;
    CHECK_EQ(kh_run(pl_gather_registration(), in, 2, out, 1, kt_make_opts(&o, f, 2)), PL_OK);
    CHECK(got[0] == 3 && got[1] == 1 && got[2] == 6 && got[3] == 4);
}

static void gather_batch_dims_picks_per_batch(void)
{
    kh_setup();
    static const int32_t dp[] = {2, 3}, di[] = {2, 2}, dout[] = {2, 2};
    int16_t p[6] = {10, 11, 12, 20, 21, 22}, got[4];
    int64_t idx[4] = {2, 0, 1, 1};
    int32_t in[2] = {tensor(PL_INT16, 2, dp, p, sizeof p),
                     tensor(PL_INT64, 2, di, idx, sizeof idx)};
    int32_t out[1] = {tensor(PL_INT16, 2, dout, got, sizeof got)};
    kt_opts o;
    int32_t f[2] = {1, 1}; /* axis 1, batch_dims 1 */
    CHECK_EQ(kh_run(pl_gather_registration(), in, 2, out, 1, kt_make_opts(&o, f, 2)), PL_OK);
    CHECK(got[0] == 12 && got[1] == 10 && got[2] == 21 && got[3] == 21);
}

/* TFLite's string buffer of three strings: count, four offsets, the text. */
static const uint8_t three_strings[] = {3, 0, 0, 0, 20, 0, 0, 0, 22, 0, 0, 0, 22, 0, 0, 0,
                                        25, 0, 0, 0, 'a', 'b', 'x', 0, 'y'};

static void gather_strings_writes_a_string_buffer(void)
{
    kh_setup();
    static const int32_t dp[] = {3}, di[] = {4};
    uint8_t got[4 * 6 + 64 * 4] = {0};
    int64_t idx[4] = {2, 0, 1, 2};
    int32_t in[2] = {tensor(PL_STRING, 1, dp, (void *)three_strings, sizeof three_strings),
                     tensor(PL_INT64, 1, di, idx, sizeof idx)};
    int32_t out[1] = {tensor(PL_STRING, 1, di, got, sizeof got)};
    CHECK_EQ(kh_run(pl_gather_registration(), in, 2, out, 1, NULL), PL_OK);
    static const uint8_t want[] = {4, 0, 0, 0, 24, 0, 0, 0, 27, 0, 0, 0, 29, 0, 0, 0,
                                   29, 0, 0, 0, 32, 0, 0, 0, 'x', 0, 'y', 'a', 'b', 'x', 0,
                                   'y'};
    CHECK(memcmp(got, want, sizeof want) == 0);
}

static void gather_strings_checks_offsets_and_room(void)
{
    kh_setup();
    static const int32_t dp[] = {3}, di[] = {2}, d2[] = {2, 1};
    uint8_t bad[sizeof three_strings], got[4 * 4 + 1] = {0};
    memcpy(bad, three_strings, sizeof bad);
    bad[12] = 200; /* string 1 ends past the buffer */
    int32_t idx[2] = {1, 0};
    int32_t in[2] = {tensor(PL_STRING, 1, dp, bad, sizeof bad),
                     tensor(PL_INT32, 1, di, idx, sizeof idx)};
    int32_t out[1] = {tensor(PL_STRING, 1, di, got, sizeof got)};
    CHECK_EQ(kh_run(pl_gather_registration(), in, 2, out, 1, NULL), PL_ERR_ARG);
    CHECK_STR_CONTAINS(kh.message, "string 1 of params");
    memcpy(bad, three_strings, sizeof bad);
    CHECK_EQ(kh_run(pl_gather_registration(), in, 2, out, 1, NULL), PL_ERR_ARG);
    CHECK_STR_CONTAINS(kh.message, "need more than the output's 17 bytes");
    kh_setup(); /* TFLite's kernel takes 1-D string params only */
    int32_t in2[2] = {tensor(PL_STRING, 2, d2, bad, sizeof bad),
                      tensor(PL_INT32, 1, di, idx, sizeof idx)};
    int32_t out2[1] = {tensor(PL_STRING, 2, d2, got, sizeof got)};
    CHECK_EQ(kh_run(pl_gather_registration(), in2, 2, out2, 1, NULL), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "must be 1-D");
}

static void gather_nd_refuses_out_of_range_tuple(void)
{
    kh_setup();
    static const int32_t dp[] = {2, 2}, di[] = {2, 2}, dout[] = {2};
    int8_t p[4] = {1, 2, 3, 4}, got[2];
    int32_t idx[4] = {1, 0, 0, 2};
    int32_t in[2] = {tensor(PL_INT8, 2, dp, p, sizeof p),
                     tensor(PL_INT32, 2, di, idx, sizeof idx)};
    int32_t out[1] = {tensor(PL_INT8, 1, dout, got, sizeof got)};
    CHECK_EQ(kh_run(pl_gather_nd_registration(), in, 2, out, 1, NULL), PL_ERR_ARG);
    CHECK_STR_CONTAINS(kh.message, "index 2");
    idx[3] = 1;
    CHECK_EQ(kh_run(pl_gather_nd_registration(), in, 2, out, 1, NULL), PL_OK);
    CHECK(got[0] == 3 && got[1] == 2);
}

static void embedding_lookup_hybrid_scales_per_row_and_checks_ids(void)
{
    kh_setup();
    static const int32_t dl[] = {2}, dv[] = {3, 2}, dout[] = {2, 2};
    int32_t ids[2] = {2, 0};
    int8_t v[6] = {1, 2, 3, 4, -5, 6};
    float got[4], scales[3] = {0.5f, 1.0f, 0.25f};
    int64_t zps[3] = {0, 0, 0};
    int32_t in[2] = {tensor(PL_INT32, 1, dl, ids, sizeof ids),
                     kh_tensor(PL_INT8, 2, dv, v, sizeof v, scales, zps, 3, 0)};
    int32_t out[1] = {tensor(PL_FLOAT32, 2, dout, got, sizeof got)};
    CHECK_EQ(kh_run(pl_embedding_lookup_registration(), in, 2, out, 1, NULL), PL_OK);
    CHECK(got[0] == -1.25f && got[1] == 1.5f && got[2] == 0.5f && got[3] == 1.0f);
    ids[1] = 3;
    CHECK_EQ(kh_run(pl_embedding_lookup_registration(), in, 2, out, 1, NULL), PL_ERR_ARG);
    CHECK_STR_CONTAINS(kh.message, "outside 0..2");
}

static void arg_max_skips_nan_and_keeps_first_tie(void)
{
    kh_setup();
    static const int32_t di[] = {2, 4}, dout[] = {2}, da[] = {1};
    float x[8] = {NAN, 1, 3, 3, 2, NAN, -1, 2};
    int32_t axis[1] = {-1};
    int64_t got[2];
    int32_t in[2] = {tensor(PL_FLOAT32, 2, di, x, sizeof x),
                     tensor(PL_INT32, 1, da, axis, sizeof axis)};
    kh.tensors[in[1]].is_constant = true;
    int32_t out[1] = {tensor(PL_INT64, 1, dout, got, sizeof got)};
    CHECK_EQ(kh_run(pl_arg_max_registration(), in, 2, out, 1, NULL), PL_OK);
    CHECK(got[0] == 2 && got[1] == 0);
    CHECK_EQ(kh_run(pl_arg_min_registration(), in, 2, out, 1, NULL), PL_OK);
    CHECK(got[0] == 1 && got[1] == 2);
}

static void cumsum_int32_wraps_and_reverses_exclusively(void)
{
    kh_setup();
    static const int32_t di[] = {3}, da[] = {1};
    int32_t x[3] = {INT32_MAX, 1, 5}, got[3], axis[1] = {0};
    int32_t in[2] = {tensor(PL_INT32, 1, di, x, sizeof x),
                     tensor(PL_INT32, 1, da, axis, sizeof axis)};
    int32_t out[1] = {tensor(PL_INT32, 1, di, got, sizeof got)};
    CHECK_EQ(kh_run(pl_cumsum_registration(), in, 2, out, 1, NULL), PL_OK);
    CHECK(got[0] == INT32_MAX && got[1] == INT32_MIN && got[2] == INT32_MIN + 5);
    kt_opts o;
    int32_t f[2] = {1, 1}; /* exclusive, reverse */
    CHECK_EQ(kh_run(pl_cumsum_registration(), in, 2, out, 1, kt_make_opts(&o, f, 2)), PL_OK);
    CHECK(got[2] == 0 && got[1] == 5 && got[0] == 6);
    axis[0] = 1;
    CHECK_EQ(kh_run(pl_cumsum_registration(), in, 2, out, 1, NULL), PL_ERR_ARG);
}

/* TFLM's int8 path: centered inputs shifted left by 20, halved (the input multiplier 0.5),
** summed, rescaled by 2 * in_scale / (2^20 * out_scale). Equal scales and zero points give
** the integer running sums back, clamped to int8. */
static void cumsum_int8_rescales_as_tflm(void)
{
    kh_setup();
    static const int32_t di[] = {4}, da[] = {1};
    int8_t x[4] = {2, 4, -6, 127}, got[4];
    int32_t axis[1] = {0};
    float s = 0.5f;
    int64_t zp = 0;
    int32_t in[2] = {kh_tensor(PL_INT8, 1, di, x, sizeof x, &s, &zp, 1, 0),
                     tensor(PL_INT32, 1, da, axis, sizeof axis)};
    int32_t out[1] = {kh_tensor(PL_INT8, 1, di, got, sizeof got, &s, &zp, 1, 0)};
    CHECK_EQ(kh_run(pl_cumsum_registration(), in, 2, out, 1, NULL), PL_OK);
    CHECK(got[0] == 2 && got[1] == 6 && got[2] == 0 && got[3] == 127);
}

int main(void)
{
    RUN(gather_refuses_out_of_range_index_at_invoke);
    RUN(gather_batch_dims_picks_per_batch);
    RUN(gather_strings_writes_a_string_buffer);
    RUN(gather_strings_checks_offsets_and_room);
    RUN(gather_nd_refuses_out_of_range_tuple);
    RUN(embedding_lookup_hybrid_scales_per_row_and_checks_ids);
    RUN(arg_max_skips_nan_and_keeps_first_tie);
    RUN(cumsum_int32_wraps_and_reverses_exclusively);
    RUN(cumsum_int8_rescales_as_tflm);
    return HARNESS_END();
}
