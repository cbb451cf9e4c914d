/* test_kernels_compare.c - the compare family by hand: int8 comparisons by real value across
** quantizations, int16 ordering on stored integers (LiteRT), broadcasting and the output
** shape, bool EQUAL, the logical ops, SELECT_V2's three-way broadcast, SELECT's element,
** scalar and row choices, and refusals. */
#include <stdbool.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernels/compare/compare.h"
#include "kernels/compare/logical.h"
#include "kernels/compare/select.h"

static int32_t tq(pl_type type, int32_t ndims, const int32_t *dims, void *data, size_t bytes,
                  float scale, int64_t zp)
{
    return kh_tensor(type, ndims, dims, data, bytes, &scale, &zp, scale > 0 ? 1u : 0u, 0);
}

/* a: scale 0.5 zp 0; b: scale 0.25 zp 10. (2, 14) both hold 1.0; (4, 11) hold 2.0 and 0.25,
** so the stored integers order them the other way round from their values. */
static void int8_compares_real_values_across_scales(void)
{
    int32_t dims[1] = {3};
    int8_t a[3] = {2, 4, -2}, b[3] = {14, 11, 6};
    bool eq[3], gt[3];
    kh_setup();
    int32_t in[2] = {tq(PL_INT8, 1, dims, a, 3, 0.5f, 0), tq(PL_INT8, 1, dims, b, 3, 0.25f, 10)};
    int32_t out = tq(PL_BOOL, 1, dims, eq, 3, 0, 0);
    CHECK_EQ(kh_run(pl_equal_registration(), in, 2, &out, 1, NULL), PL_OK);
    CHECK(eq[0] && !eq[1] && eq[2]); /* -2 * 0.5 == (6 - 10) * 0.25 */
    kh_setup();
    in[0] = tq(PL_INT8, 1, dims, a, 3, 0.5f, 0);
    in[1] = tq(PL_INT8, 1, dims, b, 3, 0.25f, 10);
    out = tq(PL_BOOL, 1, dims, gt, 3, 0, 0);
    CHECK_EQ(kh_run(pl_greater_registration(), in, 2, &out, 1, NULL), PL_OK);
    CHECK(!gt[0] && gt[1] && !gt[2]);
}

/* LiteRT's LESS on int16 compares stored integers even when quantized; EQUAL rescales. */
static void int16_orders_stored_values_but_equal_rescales(void)
{
    int32_t dims[1] = {2};
    int16_t a[2] = {100, 50}, b[2] = {200, 100};
    bool lt[2], eq[2];
    kh_setup();
    int32_t in[2] = {tq(PL_INT16, 1, dims, a, 4, 0.5f, 0), tq(PL_INT16, 1, dims, b, 4, 0.25f, 0)};
    int32_t out = tq(PL_BOOL, 1, dims, lt, 2, 0, 0);
    CHECK_EQ(kh_run(pl_less_registration(), in, 2, &out, 1, NULL), PL_OK);
    CHECK(lt[0] && lt[1]);
    kh_setup();
    in[0] = tq(PL_INT16, 1, dims, a, 4, 0.5f, 0);
    in[1] = tq(PL_INT16, 1, dims, b, 4, 0.25f, 0);
    out = tq(PL_BOOL, 1, dims, eq, 2, 0, 0);
    CHECK_EQ(kh_run(pl_equal_registration(), in, 2, &out, 1, NULL), PL_OK);
    CHECK(eq[0] && eq[1]);
}

/* (2, 3) <= (3,) gives a (2, 3) output, shape set by the kernel; NaN compares false. */
static void float_broadcast_sets_output_shape(void)
{
    int32_t da[2] = {2, 3}, db[1] = {3}, dz[1] = {6};
    float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {3, 3, NAN};
    bool le[6];
    kh_setup();
    int32_t in[2] = {tq(PL_FLOAT32, 2, da, a, sizeof a, 0, 0),
                     tq(PL_FLOAT32, 1, db, b, sizeof b, 0, 0)};
    int32_t out = tq(PL_BOOL, 1, dz, le, 6, 0, 0);
    CHECK_EQ(kh_run(pl_less_equal_registration(), in, 2, &out, 1, NULL), PL_OK);
    CHECK_EQ(kh.tensors[out].ndims, 2);
    CHECK(kh.tensors[out].dims[0] == 2 && kh.tensors[out].dims[1] == 3);
    CHECK(le[0] && le[1] && !le[2] && !le[3] && !le[4] && !le[5]);
}

static void int64_and_bool_equality(void)
{
    int32_t dims[1] = {3};
    int64_t a[3] = {INT64_MIN, 5, -1}, b[3] = {INT64_MIN, 6, -1};
    bool x[3] = {true, false, true}, y[3] = {true, true, true}, ne[3], eq[3];
    kh_setup();
    int32_t in[2] = {tq(PL_INT64, 1, dims, a, sizeof a, 0, 0),
                     tq(PL_INT64, 1, dims, b, sizeof b, 0, 0)};
    int32_t out = tq(PL_BOOL, 1, dims, ne, 3, 0, 0);
    CHECK_EQ(kh_run(pl_not_equal_registration(), in, 2, &out, 1, NULL), PL_OK);
    CHECK(!ne[0] && ne[1] && !ne[2]);
    kh_setup();
    in[0] = tq(PL_BOOL, 1, dims, x, 3, 0, 0);
    in[1] = tq(PL_BOOL, 1, dims, y, 3, 0, 0);
    out = tq(PL_BOOL, 1, dims, eq, 3, 0, 0);
    CHECK_EQ(kh_run(pl_equal_registration(), in, 2, &out, 1, NULL), PL_OK);
    CHECK(eq[0] && !eq[1] && eq[2]);
    uint8_t bytes[3] = {2, 0, 255}, ones[3] = {1, 0, 1}; /* any non-zero byte is true */
    kh_setup();
    in[0] = tq(PL_BOOL, 1, dims, bytes, 3, 0, 0);
    in[1] = tq(PL_BOOL, 1, dims, ones, 3, 0, 0);
    out = tq(PL_BOOL, 1, dims, eq, 3, 0, 0);
    CHECK_EQ(kh_run(pl_equal_registration(), in, 2, &out, 1, NULL), PL_OK);
    CHECK(eq[0] && eq[1] && eq[2]);
}

static void compare_refuses_hostile_inputs(void)
{
    int32_t d3[1] = {3}, d4[1] = {4};
    int8_t a[4] = {0}, b[4] = {0};
    int16_t c[4] = {0};
    bool o[4];
    kh_setup(); /* mixed types */
    int32_t in[2] = {tq(PL_INT8, 1, d3, a, 3, 0.5f, 0), tq(PL_INT16, 1, d3, c, 6, 0.5f, 0)};
    int32_t out = tq(PL_BOOL, 1, d3, o, 3, 0, 0);
    CHECK_EQ(kh_run(pl_less_registration(), in, 2, &out, 1, NULL), PL_ERR_MODEL);
    kh_setup(); /* shapes that do not broadcast */
    in[0] = tq(PL_INT8, 1, d3, a, 3, 0.5f, 0);
    in[1] = tq(PL_INT8, 1, d4, b, 4, 0.5f, 0);
    out = tq(PL_BOOL, 1, d4, o, 4, 0, 0);
    CHECK_EQ(kh_run(pl_less_registration(), in, 2, &out, 1, NULL), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(kh.message, "do not broadcast");
    kh_setup(); /* a scale the rescaled comparison cannot represent */
    in[0] = tq(PL_INT8, 1, d3, a, 3, 4.0f, 0);
    in[1] = tq(PL_INT8, 1, d3, b, 3, 0.5f, 0);
    out = tq(PL_BOOL, 1, d3, o, 3, 0, 0);
    CHECK_EQ(kh_run(pl_equal_registration(), in, 2, &out, 1, NULL), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "scale 4");
    kh_setup(); /* ordering bools */
    in[0] = tq(PL_BOOL, 1, d3, o, 3, 0, 0);
    in[1] = tq(PL_BOOL, 1, d3, o, 3, 0, 0);
    out = tq(PL_BOOL, 1, d3, o, 3, 0, 0);
    CHECK_EQ(kh_run(pl_greater_registration(), in, 2, &out, 1, NULL), PL_ERR_UNSUPPORTED);
}

static void logical_ops_broadcast(void)
{
    int32_t da[2] = {2, 2}, db[1] = {2};
    bool a[4] = {true, false, true, true}, b[2] = {true, false}, o[4], n[4];
    kh_setup();
    int32_t in[2] = {tq(PL_BOOL, 2, da, a, 4, 0, 0), tq(PL_BOOL, 1, db, b, 2, 0, 0)};
    int32_t out = tq(PL_BOOL, 2, da, o, 4, 0, 0);
    CHECK_EQ(kh_run(pl_logical_and_registration(), in, 2, &out, 1, NULL), PL_OK);
    CHECK(o[0] && !o[1] && o[2] && !o[3]);
    CHECK_EQ(kh_run(pl_logical_or_registration(), in, 2, &out, 1, NULL), PL_OK);
    CHECK(o[0] && !o[1] && o[2] && o[3]);
    kh_setup();
    in[0] = tq(PL_BOOL, 2, da, a, 4, 0, 0);
    out = tq(PL_BOOL, 2, da, n, 4, 0, 0);
    CHECK_EQ(kh_run(pl_logical_not_registration(), in, 1, &out, 1, NULL), PL_OK);
    CHECK(!n[0] && n[1] && !n[2] && !n[3]);
}

/* condition (2, 1), x (1, 3), y (1,) -> (2, 3). */
static void select_v2_broadcasts_three_ways(void)
{
    int32_t dc[2] = {2, 1}, dx[2] = {1, 3}, dy[1] = {1}, dout[2] = {2, 3};
    bool c[2] = {true, false};
    int16_t x[3] = {1, 2, 3}, y[1] = {-9}, o[6];
    kh_setup();
    int32_t in[3] = {tq(PL_BOOL, 2, dc, c, 2, 0, 0), tq(PL_INT16, 2, dx, x, 6, 0, 0),
                     tq(PL_INT16, 1, dy, y, 2, 0, 0)};
    int32_t out = tq(PL_INT16, 2, dout, o, sizeof o, 0, 0);
    CHECK_EQ(kh_run(pl_select_v2_registration(), in, 3, &out, 1, NULL), PL_OK);
    CHECK(o[0] == 1 && o[1] == 2 && o[2] == 3 && o[3] == -9 && o[4] == -9 && o[5] == -9);
    kh_setup(); /* x and y of different types */
    in[0] = tq(PL_BOOL, 2, dc, c, 2, 0, 0);
    in[1] = tq(PL_INT16, 2, dx, x, 6, 0, 0);
    in[2] = tq(PL_INT8, 1, dy, y, 1, 0, 0);
    out = tq(PL_INT16, 2, dout, o, sizeof o, 0, 0);
    CHECK_EQ(kh_run(pl_select_v2_registration(), in, 3, &out, 1, NULL), PL_ERR_MODEL);
}

/* SELECT (version one): an elementwise condition, a scalar one, a vector choosing rows, and
** the broadcast SELECT_V2 takes refused. */
static void select_v1_picks_elements_all_or_rows(void)
{
    int32_t dx[2] = {2, 3}, dv[1] = {2}, dbad[2] = {1, 3};
    bool ce[6] = {true, false, true, false, false, true}, cs[1] = {false}, cr[2] = {false, true};
    int16_t x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {-1, -2, -3, -4, -5, -6}, o[6];
    const int16_t want_e[6] = {1, -2, 3, -4, -5, 6}, want_r[6] = {-1, -2, -3, 4, 5, 6};
    kh_setup();
    int32_t in[3] = {tq(PL_BOOL, 2, dx, ce, 6, 0, 0), tq(PL_INT16, 2, dx, x, 12, 0, 0),
                     tq(PL_INT16, 2, dx, y, 12, 0, 0)};
    int32_t out = tq(PL_INT16, 2, dx, o, sizeof o, 0, 0);
    CHECK_EQ(kh_run(pl_select_registration(), in, 3, &out, 1, NULL), PL_OK);
    CHECK(memcmp(o, want_e, sizeof o) == 0);
    kh_setup(); /* scalar condition: all of y */
    in[0] = tq(PL_BOOL, 0, dx, cs, 1, 0, 0);
    in[1] = tq(PL_INT16, 2, dx, x, 12, 0, 0);
    in[2] = tq(PL_INT16, 2, dx, y, 12, 0, 0);
    out = tq(PL_INT16, 2, dx, o, sizeof o, 0, 0);
    CHECK_EQ(kh_run(pl_select_registration(), in, 3, &out, 1, NULL), PL_OK);
    CHECK(memcmp(o, y, sizeof o) == 0);
    kh_setup(); /* a condition per row */
    in[0] = tq(PL_BOOL, 1, dv, cr, 2, 0, 0);
    in[1] = tq(PL_INT16, 2, dx, x, 12, 0, 0);
    in[2] = tq(PL_INT16, 2, dx, y, 12, 0, 0);
    out = tq(PL_INT16, 2, dx, o, sizeof o, 0, 0);
    CHECK_EQ(kh_run(pl_select_registration(), in, 3, &out, 1, NULL), PL_OK);
    CHECK(memcmp(o, want_r, sizeof o) == 0);
    kh_setup(); /* a condition of shape (1, 3) would broadcast in SELECT_V2 only */
    in[0] = tq(PL_BOOL, 2, dbad, ce, 3, 0, 0);
    in[1] = tq(PL_INT16, 2, dx, x, 12, 0, 0);
    in[2] = tq(PL_INT16, 2, dx, y, 12, 0, 0);
    out = tq(PL_INT16, 2, dx, o, sizeof o, 0, 0);
    CHECK_EQ(kh_run(pl_select_registration(), in, 3, &out, 1, NULL), PL_ERR_MODEL);
}

int main(void)
{
    RUN(int8_compares_real_values_across_scales);
    RUN(int16_orders_stored_values_but_equal_rescales);
    RUN(float_broadcast_sets_output_shape);
    RUN(int64_and_bool_equality);
    RUN(compare_refuses_hostile_inputs);
    RUN(logical_ops_broadcast);
    RUN(select_v2_broadcasts_three_ways);
    RUN(select_v1_picks_elements_all_or_rows);
    return HARNESS_END();
}
