/* test_kernels_reduce.c - REDUCE_MAX/MIN/ALL/ANY and L2_POOL_2D: TFLite's identities for
** empty reductions, NaN never winning, logical folds, the L2 window clipped to the image;
** the MEAN/SUM sums equal an element-by-element walk for every shape and axis set. */
#include <float.h>
#include <math.h> /* NAN and sqrtf */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernel_tests.h"
#include "kernels/pool/l2_pool.h"
#include "kernels/reduce/reduce.h"

static int32_t tensor(pl_type type, int32_t ndims, const int32_t *dims, void *data,
                      size_t bytes, bool is_const)
{
    int32_t i = kh_tensor(type, ndims, dims, data, bytes, NULL, NULL, 0, 0);
    kh.tensors[i].is_constant = is_const;
    return i;
}

static void reduce_max_skips_nan_and_min_keeps_identity_on_empty_axis(void)
{
    kh_setup();
    static const int32_t di[] = {2, 3}, da[] = {1}, dout[] = {2};
    float x[6] = {NAN, -2, -1, 4, NAN, 3}, got[2];
    int32_t axis[1] = {-1};
    int32_t in[2] = {tensor(PL_FLOAT32, 2, di, x, sizeof x, false),
                     tensor(PL_INT32, 1, da, axis, sizeof axis, true)};
    int32_t out[1] = {tensor(PL_FLOAT32, 1, dout, got, sizeof got, false)};
    CHECK_EQ(kh_run(pl_reduce_max_registration(), in, 2, out, 1, NULL), PL_OK);
    CHECK(got[0] == -1 && got[1] == 4);
    static const int32_t de[] = {2, 0};
    int64_t e[1], ge[2];
    int32_t in2[2] = {tensor(PL_INT64, 2, de, e, 0, false), in[1]};
    int32_t out2[1] = {tensor(PL_INT64, 1, dout, ge, sizeof ge, false)};
    CHECK_EQ(kh_run(pl_reduce_min_registration(), in2, 2, out2, 1, NULL), PL_OK);
    CHECK(ge[0] == INT64_MAX && ge[1] == INT64_MAX);
}

static void reduce_all_and_any_fold_bools(void)
{
    kh_setup();
    static const int32_t di[] = {2, 3}, da[] = {1}, dout[] = {3};
    uint8_t x[6] = {1, 0, 1, 1, 0, 0}, got[3];
    int32_t axis[1] = {0};
    int32_t in[2] = {tensor(PL_BOOL, 2, di, x, sizeof x, false),
                     tensor(PL_INT32, 1, da, axis, sizeof axis, true)};
    int32_t out[1] = {tensor(PL_BOOL, 1, dout, got, sizeof got, false)};
    CHECK_EQ(kh_run(pl_reduce_all_registration(), in, 2, out, 1, NULL), PL_OK);
    CHECK(got[0] == 1 && got[1] == 0 && got[2] == 0);
    CHECK_EQ(kh_run(pl_reduce_any_registration(), in, 2, out, 1, NULL), PL_OK);
    CHECK(got[0] == 1 && got[1] == 0 && got[2] == 1);
    CHECK_EQ(kh_run(pl_reduce_max_registration(), in, 2, out, 1, NULL), PL_ERR_UNSUPPORTED);
}

static void l2_pool_averages_squares_of_in_image_taps(void)
{
    kh_setup();
    static const int32_t di[] = {1, 3, 3, 1}, dout[] = {1, 2, 2, 1};
    float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, got[4];
    int32_t in[1] = {tensor(PL_FLOAT32, 4, di, x, sizeof x, false)};
    int32_t out[1] = {tensor(PL_FLOAT32, 4, dout, got, sizeof got, false)};
    kt_opts o;
    int32_t f[6] = {0, 2, 2, 2, 2, 0}; /* SAME, stride 2, 2x2 filter */
    CHECK_EQ(kh_run(pl_l2_pool_registration(), in, 1, out, 1, kt_make_opts(&o, f, 6)), PL_OK);
    CHECK(got[0] == sqrtf((1.0f + 4.0f + 16.0f + 25.0f) / 4.0f));
    CHECK(got[3] == 9.0f); /* the corner window holds one tap */
    kh.tensors[in[0]].type = PL_INT8;
    kh.tensors[out[0]].type = PL_INT8;
    CHECK_EQ(kh_run(pl_l2_pool_registration(), in, 1, out, 1, kt_make_opts(&o, f, 6)),
             PL_ERR_UNSUPPORTED);
}

/* p for reducing dims over the axes in mask, as prepare fills it. */
static void plan_of(pl_reduce_params *p, int32_t ndims, const int32_t *dims, uint32_t mask)
{
    size_t stride = 1;
    p->ndims = ndims;
    p->reduced = 1;
    for (int32_t d = ndims - 1; d >= 0; d--) {
        bool red = (mask >> d) & 1u;
        p->dims[d] = dims[d];
        p->out_stride[d] = red ? 0 : stride;
        stride *= red ? 1 : (size_t)dims[d];
        p->reduced *= red ? dims[d] : 1;
    }
    p->out_count = stride;
}

/* Output slot of element i (row-major), from its coordinates. */
static size_t slot_of(const pl_reduce_params *p, size_t i)
{
    size_t slot = 0;
    for (int32_t d = p->ndims - 1; d >= 0; d--) {
        size_t coord = i % (size_t)p->dims[d];
        i /= (size_t)p->dims[d];
        slot += coord * p->out_stride[d];
    }
    return slot;
}

static void sums_follow_the_element_walk_for_every_axis_set(void)
{
    enum { MAX_N = 4 * 5 * 3 * 4 * 2 };
    static const int32_t shapes[][5] = {{1, 4, 5, 3, 0}, {2, 3, 1, 4, 0}, {4, 5, 3, 4, 2},
                                        {3, 1, 1, 5, 0}, {1, 1, 1, 1, 0}, {2, 0, 3, 2, 0}};
    static const int32_t ranks[] = {4, 4, 5, 4, 4, 4};
    float xf[MAX_N], accf[MAX_N], wantf[MAX_N];
    int16_t x16[MAX_N];
    int32_t acc[MAX_N], want[MAX_N];
    for (size_t i = 0; i < MAX_N; i++) {
        x16[i] = (int16_t)((int32_t)(i * 7919u % 65536u) - 32768);
        xf[i] = (float)x16[i] * 1.37e-3f + 1e7f * (float)(i % 3 == 0); /* order-sensitive */
    }
    for (size_t s = 0; s < sizeof ranks / sizeof ranks[0]; s++) {
        for (uint32_t mask = 0; mask < (1u << ranks[s]); mask++) {
            pl_reduce_params p;
            plan_of(&p, ranks[s], shapes[s], mask);
            size_t n = 1;
            for (int32_t d = 0; d < ranks[s]; d++)
                n *= (size_t)shapes[s][d];
            memset(wantf, 0, sizeof wantf);
            memset(want, 0, sizeof want);
            for (size_t i = 0; i < n; i++) {
                wantf[slot_of(&p, i)] += xf[i];
                want[slot_of(&p, i)] += x16[i];
            }
            pl_reduce_sum_f32(&p, xf, accf);
            CHECK(memcmp(accf, wantf, p.out_count * sizeof *accf) == 0);
            pl_reduce_sum_s32(&p, x16, PL_INT16, acc);
            CHECK(memcmp(acc, want, p.out_count * sizeof *acc) == 0);
            const int8_t *x8 = (const int8_t *)x16; /* the same bytes as int8 and uint8 */
            memset(want, 0, sizeof want);
            for (size_t i = 0; i < n; i++)
                want[slot_of(&p, i)] += x8[i];
            pl_reduce_sum_s32(&p, x8, PL_INT8, acc);
            CHECK(memcmp(acc, want, p.out_count * sizeof *acc) == 0);
            memset(want, 0, sizeof want);
            for (size_t i = 0; i < n; i++)
                want[slot_of(&p, i)] += (uint8_t)x8[i];
            pl_reduce_sum_s32(&p, x8, PL_UINT8, acc);
            CHECK(memcmp(acc, want, p.out_count * sizeof *acc) == 0);
        }
    }
}

int main(void)
{
    RUN(sums_follow_the_element_walk_for_every_axis_set);
    RUN(reduce_max_skips_nan_and_min_keeps_identity_on_empty_axis);
    RUN(reduce_all_and_any_fold_bools);
    RUN(l2_pool_averages_squares_of_in_image_taps);
    return HARNESS_END();
}
