/* test_kernels_abs.c - ABS by hand: float32, int32 (INT32_MIN wraps), plain int16, int8 with
** zero points (same scale: no rescale) and with a rescale, and a rejected type. */
#include <stdint.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernels/elementwise/abs.h"

static int32_t t1(pl_type type, int32_t n, void *data, size_t bytes, float scale, int64_t zp)
{
    int32_t dims[1] = {n};
    return kh_tensor(type, 1, dims, data, bytes, &scale, &zp, scale > 0 ? 1u : 0u, 0);
}

static void abs_float_int32_and_plain_int16(void)
{
    float fi[3] = {-1.5f, 0.0f, 2.25f}, fo[3];
    int32_t ii[3] = {-7, INT32_MIN, 5}, io[3];
    int16_t si[3] = {-300, INT16_MIN, 12}, so[3];
    kh_setup();
    int32_t in = t1(PL_FLOAT32, 3, fi, sizeof fi, 0, 0);
    int32_t out = t1(PL_FLOAT32, 3, fo, sizeof fo, 0, 0);
    CHECK_EQ(kh_run(pl_abs_registration(), &in, 1, &out, 1, NULL), PL_OK);
    CHECK(fo[0] == 1.5f && fo[1] == 0.0f && fo[2] == 2.25f);
    kh_setup();
    in = t1(PL_INT32, 3, ii, sizeof ii, 0, 0);
    out = t1(PL_INT32, 3, io, sizeof io, 0, 0);
    CHECK_EQ(kh_run(pl_abs_registration(), &in, 1, &out, 1, NULL), PL_OK);
    CHECK(io[0] == 7 && io[1] == INT32_MIN && io[2] == 5);
    kh_setup();
    in = t1(PL_INT16, 3, si, sizeof si, 0, 0);
    out = t1(PL_INT16, 3, so, sizeof so, 0, 0);
    CHECK_EQ(kh_run(pl_abs_registration(), &in, 1, &out, 1, NULL), PL_OK);
    CHECK(so[0] == 300 && so[1] == INT16_MIN && so[2] == 12);
}

/* in zp 25, out zp -128: same scale gives |q - 25| - 128; scale ratio 2 doubles it. */
static void abs_int8_zero_points_and_rescale(void)
{
    int8_t qi[4] = {25, 20, 127, -128}, qo[4];
    kh_setup();
    int32_t in = t1(PL_INT8, 4, qi, sizeof qi, 0.5f, 25);
    int32_t out = t1(PL_INT8, 4, qo, sizeof qo, 0.5f, -128);
    CHECK_EQ(kh_run(pl_abs_registration(), &in, 1, &out, 1, NULL), PL_OK);
    CHECK(qo[0] == -128 && qo[1] == -123 && qo[2] == -26 && qo[3] == 25);
    kh_setup();
    in = t1(PL_INT8, 4, qi, sizeof qi, 0.5f, 25);
    out = t1(PL_INT8, 4, qo, sizeof qo, 0.25f, -128);
    CHECK_EQ(kh_run(pl_abs_registration(), &in, 1, &out, 1, NULL), PL_OK);
    CHECK(qo[0] == -128 && qo[1] == -118 && qo[2] == 76 && qo[3] == 127);
}

static void abs_rejects_uint8(void)
{
    uint8_t ui[2] = {1, 2}, uo[2];
    kh_setup();
    int32_t in = t1(PL_UINT8, 2, ui, sizeof ui, 1.0f, 0);
    int32_t out = t1(PL_UINT8, 2, uo, sizeof uo, 1.0f, 0);
    CHECK_EQ(kh_run(pl_abs_registration(), &in, 1, &out, 1, NULL), PL_ERR_UNSUPPORTED);
}

int main(void)
{
    RUN(abs_float_int32_and_plain_int16);
    RUN(abs_int8_zero_points_and_rescale);
    RUN(abs_rejects_uint8);
    return HARNESS_END();
}
