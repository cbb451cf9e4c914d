/* test_kernels_image.c - RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR: the integer path's
** rounding of negative halves, nearest-neighbor rounding with align_corners and
** half_pixel_centers, and rejections. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/image/resize.h"

static int32_t tensor(pl_type type, int32_t ndims, const int32_t *dims, void *data,
                      size_t bytes, bool is_const)
{
    int32_t i = kh_tensor(type, ndims, dims, data, bytes, NULL, NULL, 0, 0);
    kh.tensors[i].is_constant = is_const;
    return i;
}

static void bilinear_int8_rounds_negative_half_away_from_zero(void)
{
    kh_setup();
    static const int32_t di[] = {1, 1, 2, 1}, ds[] = {2}, dout[] = {1, 1, 4, 1};
    int8_t x[2] = {0, -1}, got[4];
    int32_t size[2] = {1, 4};
    int32_t in[2] = {tensor(PL_INT8, 4, di, x, sizeof x, false),
                     tensor(PL_INT32, 1, ds, size, sizeof size, true)};
    int32_t out[1] = {tensor(PL_INT8, 4, dout, got, sizeof got, false)};
    CHECK_EQ(kh_run(pl_resize_bilinear_registration(), in, 2, out, 1, NULL), PL_OK);
    /* x = 1 sits halfway: -2^19 / 2^20 rounds to -1, not 0 */
    CHECK(got[0] == 0 && got[1] == -1 && got[2] == -1 && got[3] == -1);
}

static void bilinear_rejects_both_alignment_flags(void)
{
    kh_setup();
    static const int32_t di[] = {1, 2, 2, 1}, ds[] = {2}, dout[] = {1, 3, 3, 1};
    float x[4] = {0}, got[9];
    int32_t size[2] = {3, 3};
    int32_t in[2] = {tensor(PL_FLOAT32, 4, di, x, sizeof x, false),
                     tensor(PL_INT32, 1, ds, size, sizeof size, true)};
    int32_t out[1] = {tensor(PL_FLOAT32, 4, dout, got, sizeof got, false)};
    kt_opts o;
    int32_t f[4] = {0, 0, 1, 1};
    CHECK_EQ(kh_run(pl_resize_bilinear_registration(), in, 2, out, 1, kt_make_opts(&o, f, 4)),
             PL_ERR_MODEL);
    size[0] = 0;
    CHECK_EQ(kh_run(pl_resize_bilinear_registration(), in, 2, out, 1, NULL), PL_ERR_MODEL);
}

static void nearest_rounds_as_tflite(void)
{
    kh_setup();
    static const int32_t di[] = {1, 1, 3, 1}, ds[] = {2}, dout[] = {1, 1, 5, 1};
    int16_t x[3] = {10, 20, 30}, got[5];
    int32_t size[2] = {1, 5};
    int32_t in[2] = {tensor(PL_INT16, 4, di, x, sizeof x, false),
                     tensor(PL_INT32, 1, ds, size, sizeof size, true)};
    int32_t out[1] = {tensor(PL_INT16, 4, dout, got, sizeof got, false)};
    kt_opts o;
    int32_t align[2] = {1, 0}, half[2] = {0, 1};
    CHECK_EQ(kh_run(pl_resize_nearest_neighbor_registration(), in, 2, out, 1,
                    kt_make_opts(&o, align, 2)), PL_OK);
    static const int16_t want_a[5] = {10, 20, 20, 30, 30}; /* 0.5 and 1.5 round up */
    CHECK(memcmp(got, want_a, sizeof got) == 0);
    CHECK_EQ(kh_run(pl_resize_nearest_neighbor_registration(), in, 2, out, 1,
                    kt_make_opts(&o, half, 2)), PL_OK);
    static const int16_t want_h[5] = {10, 10, 20, 30, 30};
    CHECK(memcmp(got, want_h, sizeof got) == 0);
}

int main(void)
{
    RUN(bilinear_int8_rounds_negative_half_away_from_zero);
    RUN(bilinear_rejects_both_alignment_flags);
    RUN(nearest_rounds_as_tflite);
    return HARNESS_END();
}
