/* test_kernels_shape_ops.c - SHAPE, SLICE, FILL, BROADCAST_TO/ARGS, DYNAMIC_UPDATE_SLICE,
** MIRROR_PAD, REVERSE_V2 and SPACE_TO_BATCH_ND: shapes from dims, computed operands checked
** at invoke, TFLite's clamping and padding rules, rejections. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/shape/batch_space.h"
#include "kernels/shape/broadcast_to.h"
#include "kernels/shape/dynamic_update_slice.h"
#include "kernels/shape/fill.h"
#include "kernels/shape/mirror_pad.h"
#include "kernels/shape/reverse.h"
#include "kernels/shape/shape_op.h"
#include "kernels/shape/slice.h"
#include "kernels/shape/tile.h"

static int32_t tensor(pl_type type, int32_t ndims, const int32_t *dims, void *data,
                      size_t bytes, bool is_const)
{
    int32_t i = kh_tensor(type, ndims, dims, data, bytes, NULL, NULL, 0, 0);
    kh.tensors[i].is_constant = is_const;
    return i;
}

static void shape_writes_input_dims_as_int64(void)
{
    kh_setup();
    static const int32_t di[] = {3, 1, 7}, dout[] = {3};
    uint8_t x[21] = {0};
    int64_t got[3];
    int32_t in[1] = {tensor(PL_BOOL, 3, di, x, sizeof x, false)};
    int32_t out[1] = {tensor(PL_INT64, 1, dout, got, sizeof got, false)};
    CHECK_EQ(kh_run(pl_shape_registration(), in, 1, out, 1, NULL), PL_OK);
    CHECK(got[0] == 3 && got[1] == 1 && got[2] == 7);
    kt_opts o;
    int32_t f[1] = {PL_INT32}; /* out_type disagrees with the output tensor */
    CHECK_EQ(kh_run(pl_shape_registration(), in, 1, out, 1, kt_make_opts(&o, f, 1)),
             PL_ERR_UNSUPPORTED);
}

/* LiteRT 2.3's SLICE keeps an output whose signature has no -1 and refuses another slice. */
static void slice_keeps_an_output_shape_the_model_fixes(void)
{
    kh_setup();
    static const int32_t di[] = {2, 4}, dv[] = {2}, dout[] = {1, 3}, grown[] = {2, 5};
    int16_t x[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, got[4];
    int32_t begin[2] = {1, 1}, size[2] = {1, -1};
    int32_t in[3] = {tensor(PL_INT16, 2, di, x, 8 * sizeof *x, false),
                     tensor(PL_INT32, 1, dv, begin, sizeof begin, true),
                     tensor(PL_INT32, 1, dv, size, sizeof size, true)};
    int32_t out[1] = {tensor(PL_INT16, 2, dout, got, sizeof got, false)};
    CHECK_EQ(kh_run(pl_slice_registration(), in, 3, out, 1, NULL), PL_OK);
    CHECK(got[0] == 5 && got[1] == 6 && got[2] == 7);
    memcpy(kh.tensors[in[0]].dims, grown, sizeof grown); /* the input resized to [2, 5] */
    kh.tensors[in[0]].bytes = sizeof x;
    kh.tensors[out[0]].dims[1] = 3;
    CHECK_EQ(kh_run(pl_slice_registration(), in, 3, out, 1, NULL), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(kh.message, "dim 1 of the slice is 4, the model fixes the output at 3");
    kh.signature[out[0]][1] = -1; /* a dim the converter left open takes the slice's */
    CHECK_EQ(kh_run(pl_slice_registration(), in, 3, out, 1, NULL), PL_OK);
    CHECK(kh.tensors[out[0]].dims[1] == 4 && got[0] == 6 && got[3] == 9);
}

static void slice_checks_computed_begin_at_invoke(void)
{
    kh_setup();
    static const int32_t di[] = {2, 4}, dv[] = {2}, dout[] = {1, 3};
    int16_t x[8] = {0, 1, 2, 3, 4, 5, 6, 7}, got[3];
    int32_t begin[2] = {1, 1}, size[2] = {1, -1};
    int32_t in[3] = {tensor(PL_INT16, 2, di, x, sizeof x, false),
                     tensor(PL_INT32, 1, dv, begin, sizeof begin, false),
                     tensor(PL_INT32, 1, dv, size, sizeof size, false)};
    int32_t out[1] = {tensor(PL_INT16, 2, dout, got, sizeof got, false)};
    CHECK_EQ(kh_run(pl_slice_registration(), in, 3, out, 1, NULL), PL_OK);
    CHECK(got[0] == 5 && got[1] == 6 && got[2] == 7);
    begin[1] = 2; /* gives [1, 2], not the output's [1, 3] */
    CHECK_EQ(kh_run(pl_slice_registration(), in, 3, out, 1, NULL), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(kh.message, "dim 1 = 2");
    begin[1] = 5;
    CHECK_EQ(kh_run(pl_slice_registration(), in, 3, out, 1, NULL), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(kh.message, "outside");
}

static void fill_copies_value_and_checks_computed_dims(void)
{
    kh_setup();
    static const int32_t dd[] = {2}, dout[] = {2, 3};
    int64_t dims[2] = {2, 3};
    int32_t value = -7, got[6];
    int32_t in[2] = {tensor(PL_INT64, 1, dd, dims, sizeof dims, false),
                     tensor(PL_INT32, 0, dd, &value, sizeof value, false)};
    int32_t out[1] = {tensor(PL_INT32, 2, dout, got, sizeof got, false)};
    CHECK_EQ(kh_run(pl_fill_registration(), in, 2, out, 1, NULL), PL_OK);
    CHECK(got[0] == -7 && got[5] == -7);
    dims[1] = 4;
    CHECK_EQ(kh_run(pl_fill_registration(), in, 2, out, 1, NULL), PL_ERR_MODEL);
}

static void broadcast_args_refuses_incompatible_shapes(void)
{
    kh_setup();
    static const int32_t da[] = {3}, db[] = {2};
    int32_t a[3] = {4, 1, 5}, b[2] = {3, 1}, got[3];
    int32_t in[2] = {tensor(PL_INT32, 1, da, a, sizeof a, false),
                     tensor(PL_INT32, 1, db, b, sizeof b, false)};
    int32_t out[1] = {tensor(PL_INT32, 1, da, got, sizeof got, false)};
    CHECK_EQ(kh_run(pl_broadcast_args_registration(), in, 2, out, 1, NULL), PL_OK);
    CHECK(got[0] == 4 && got[1] == 3 && got[2] == 5);
    b[1] = 2;
    CHECK_EQ(kh_run(pl_broadcast_args_registration(), in, 2, out, 1, NULL), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(kh.message, "5 and 2");
}

static void broadcast_to_repeats_unit_dims(void)
{
    kh_setup();
    static const int32_t di[] = {2, 1}, ds[] = {3}, dout[] = {2, 2, 3};
    int8_t x[2] = {4, -4}, got[12];
    int32_t shape[3] = {2, 2, 3};
    int32_t in[2] = {tensor(PL_INT8, 2, di, x, sizeof x, false),
                     tensor(PL_INT32, 1, ds, shape, sizeof shape, true)};
    int32_t out[1] = {tensor(PL_INT8, 3, dout, got, sizeof got, false)};
    CHECK_EQ(kh_run(pl_broadcast_to_registration(), in, 2, out, 1, NULL), PL_OK);
    CHECK(got[0] == 4 && got[2] == 4 && got[3] == -4 && got[6] == 4 && got[11] == -4);
    shape[2] = 2;
    x[0] = 1;
    static const int32_t bad[] = {3, 2};
    kh.tensors[in[0]].ndims = 2;
    memcpy(kh.tensors[in[0]].dims, bad, sizeof bad);
    CHECK_EQ(kh_run(pl_broadcast_to_registration(), in, 2, out, 1, NULL), PL_ERR_MODEL);
}

static void dynamic_update_slice_clamps_start_like_tflite(void)
{
    kh_setup();
    static const int32_t da[] = {2, 4}, du[] = {1, 2}, ds[] = {2};
    float a[8] = {0, 1, 2, 3, 4, 5, 6, 7}, u[2] = {-1, -2}, got[8];
    int32_t start[2] = {9, -3};
    int32_t in[3] = {tensor(PL_FLOAT32, 2, da, a, sizeof a, false),
                     tensor(PL_FLOAT32, 2, du, u, sizeof u, false),
                     tensor(PL_INT32, 1, ds, start, sizeof start, false)};
    int32_t out[1] = {tensor(PL_FLOAT32, 2, da, got, sizeof got, false)};
    CHECK_EQ(kh_run(pl_dynamic_update_slice_registration(), in, 3, out, 1, NULL), PL_OK);
    CHECK(got[4] == -1 && got[5] == -2 && got[6] == 6 && got[0] == 0 && got[3] == 3);
}

static void mirror_pad_reflect_and_limit(void)
{
    kh_setup();
    static const int32_t di[] = {3}, dp[] = {1, 2}, dout[] = {7};
    int32_t x[3] = {1, 2, 3}, got[7], pads[2] = {2, 2};
    int32_t in[2] = {tensor(PL_INT32, 1, di, x, sizeof x, false),
                     tensor(PL_INT32, 2, dp, pads, sizeof pads, true)};
    int32_t out[1] = {tensor(PL_INT32, 1, dout, got, sizeof got, false)};
    kt_opts o;
    int32_t reflect[1] = {0}, symmetric[1] = {1};
    CHECK_EQ(kh_run(pl_mirror_pad_registration(), in, 2, out, 1,
                    kt_make_opts(&o, reflect, 1)), PL_OK);
    static const int32_t want_r[7] = {3, 2, 1, 2, 3, 2, 1};
    CHECK(memcmp(got, want_r, sizeof got) == 0);
    CHECK_EQ(kh_run(pl_mirror_pad_registration(), in, 2, out, 1,
                    kt_make_opts(&o, symmetric, 1)), PL_OK);
    static const int32_t want_s[7] = {2, 1, 1, 2, 3, 3, 2};
    CHECK(memcmp(got, want_s, sizeof got) == 0);
    pads[0] = 3; /* REFLECT pads at most dim - 1 */
    CHECK_EQ(kh_run(pl_mirror_pad_registration(), in, 2, out, 1,
                    kt_make_opts(&o, reflect, 1)), PL_ERR_MODEL);
}

static void reverse_refuses_repeated_axis(void)
{
    kh_setup();
    static const int32_t di[] = {2, 2}, da[] = {2};
    uint8_t x[4] = {1, 2, 3, 4}, got[4];
    int32_t axes[2] = {0, -1};
    int32_t in[2] = {tensor(PL_UINT8, 2, di, x, sizeof x, false),
                     tensor(PL_INT32, 1, da, axes, sizeof axes, true)};
    int32_t out[1] = {tensor(PL_UINT8, 2, di, got, sizeof got, false)};
    CHECK_EQ(kh_run(pl_reverse_v2_registration(), in, 2, out, 1, NULL), PL_OK);
    CHECK(got[0] == 4 && got[1] == 3 && got[2] == 2 && got[3] == 1);
    axes[1] = -2;
    CHECK_EQ(kh_run(pl_reverse_v2_registration(), in, 2, out, 1, NULL), PL_ERR_MODEL);
}

/* LiteRT pads int8 with the output's zero point; TFLM with its never-set output_offset, 0 on
** a fresh firmware. */
static void space_to_batch_pads_with_zero_point(void)
{
    kh_setup();
    kh_ctx.arith = PL_ARITH_LITERT;
    static const int32_t di[] = {1, 2, 1}, db[] = {1}, dp[] = {1, 2}, dout[] = {2, 2, 1};
    int8_t x[2] = {5, 6}, got[4];
    int32_t block[1] = {2}, pads[2] = {1, 1};
    float s = 0.5f;
    int64_t zp = -3;
    int32_t in[3] = {kh_tensor(PL_INT8, 3, di, x, sizeof x, &s, &zp, 1, 0),
                     tensor(PL_INT32, 1, db, block, sizeof block, true),
                     tensor(PL_INT32, 2, dp, pads, sizeof pads, true)};
    int32_t out[1] = {kh_tensor(PL_INT8, 3, dout, got, sizeof got, &s, &zp, 1, 0)};
    CHECK_EQ(kh_run(pl_space_to_batch_nd_registration(), in, 3, out, 1, NULL), PL_OK);
    /* padded [-3, 5, 6, -3]: batch 0 takes even rows, batch 1 odd ones */
    CHECK(got[0] == -3 && got[1] == 6 && got[2] == 5 && got[3] == -3);
    kh_ctx.arith = PL_ARITH_TFLM;
    CHECK_EQ(kh_run(pl_space_to_batch_nd_registration(), in, 3, out, 1, NULL), PL_OK);
    CHECK(got[0] == 0 && got[1] == 6 && got[2] == 5 && got[3] == 0);
}

/* TILE: a 2x3 int16 input by (2, 2) is 4x6, row r column c holding x[r % 2][c % 3]; an
** INT64 multiples vector works the same; a negative multiple is refused. */
static void tile_repeats_each_axis(void)
{
    static const int32_t di[] = {2, 3}, dm[] = {2}, dout[] = {4, 6};
    int16_t x[6] = {1, 2, 3, 4, 5, 6}, got[24];
    int32_t mult[2] = {2, 2};
    kh_setup();
    int32_t in[2] = {tensor(PL_INT16, 2, di, x, sizeof x, false),
                     tensor(PL_INT32, 1, dm, mult, sizeof mult, true)};
    int32_t out[1] = {tensor(PL_INT16, 2, dout, got, sizeof got, false)};
    CHECK_EQ(kh_run(pl_tile_registration(), in, 2, out, 1, NULL), PL_OK);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 6; c++)
            CHECK_EQ(got[r * 6 + c], x[(r % 2) * 3 + c % 3]);
    int64_t mult64[2] = {1, 3};
    static const int32_t dout2[] = {2, 9};
    kh_setup();
    in[0] = tensor(PL_INT16, 2, di, x, sizeof x, false);
    in[1] = tensor(PL_INT64, 1, dm, mult64, sizeof mult64, true);
    out[0] = tensor(PL_INT16, 2, dout2, got, 18 * sizeof got[0], false);
    CHECK_EQ(kh_run(pl_tile_registration(), in, 2, out, 1, NULL), PL_OK);
    CHECK(got[0] == 1 && got[3] == 1 && got[8] == 3 && got[9] == 4 && got[17] == 6);
    mult[0] = -1;
    kh_setup();
    in[0] = tensor(PL_INT16, 2, di, x, sizeof x, false);
    in[1] = tensor(PL_INT32, 1, dm, mult, sizeof mult, true);
    out[0] = tensor(PL_INT16, 2, dout, got, sizeof got, false);
    CHECK_EQ(kh_run(pl_tile_registration(), in, 2, out, 1, NULL), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(kh.message, "negative");
}

int main(void)
{
    RUN(shape_writes_input_dims_as_int64);
    RUN(slice_checks_computed_begin_at_invoke);
    RUN(slice_keeps_an_output_shape_the_model_fixes);
    RUN(fill_copies_value_and_checks_computed_dims);
    RUN(broadcast_args_refuses_incompatible_shapes);
    RUN(broadcast_to_repeats_unit_dims);
    RUN(dynamic_update_slice_clamps_start_like_tflite);
    RUN(mirror_pad_reflect_and_limit);
    RUN(reverse_refuses_repeated_axis);
    RUN(space_to_batch_pads_with_zero_point);
    RUN(tile_repeats_each_axis);
    return HARNESS_END();
}
