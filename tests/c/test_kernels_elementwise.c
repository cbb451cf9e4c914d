/* test_kernels_elementwise.c - ADD, SUB, MUL: hand-checked cases and LiteRT golden outputs.
**
** The golden_* cases were produced once by running single-op models through LiteRT with
** OpResolverType.BUILTIN_REF (random inputs, seed 7); their outputs are pasted here. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "kernel_harness.h"
#include "opts_table.h"
#include "kernels/elementwise/elementwise.h"

typedef struct bin_case {
    pl_type type;
    int32_t na;
    const int32_t *da;
    int32_t nb;
    const int32_t *db;
    int32_t no;
    const int32_t *dout;
    void *a, *b, *out;
    size_t out_bytes;
    float scale[3];
    int64_t zp[3];
    int32_t act;
    int32_t pot; /* -1: field absent */
} bin_case;

static size_t count_of(int32_t n, const int32_t *d)
{
    size_t c = 1;
    for (int32_t i = 0; i < n; i++)
        c *= (size_t)d[i];
    return c;
}

static pl_status run_bin(const pl_registration *reg, const bin_case *c)
{
    kh_setup();
    size_t esz = pl_type_size(c->type);
    uint32_t q = c->type == PL_INT8 || c->type == PL_INT16 || c->type == PL_UINT8 ? 1u : 0u;
    int32_t in[2], out[1];
    in[0] = kh_tensor(c->type, c->na, c->da, c->a, esz * count_of(c->na, c->da), &c->scale[0],
                      &c->zp[0], q, 0);
    in[1] = kh_tensor(c->type, c->nb, c->db, c->b, esz * count_of(c->nb, c->db), &c->scale[1],
                      &c->zp[1], q, 0);
    out[0] = kh_tensor(c->type, c->no, c->dout, c->out, c->out_bytes, &c->scale[2], &c->zp[2],
                       q, 0);
    opt_buf ob;
    int32_t vals[2] = {c->act, c->pot < 0 ? OPT_ABSENT : c->pot};
    pl_table t = make_opts(&ob, 2, vals);
    return kh_run(reg, in, 2, out, 1, &t);
}

static void add_f32_broadcasts_row(void)
{
    static const int32_t da[] = {2, 3}, db[] = {3};
    float a[] = {1, 2, 3, 4, 5, 6}, b[] = {10, 20, 30}, got[6];
    bin_case c = {PL_FLOAT32, 2, da, 1, db, 2, da, a, b, got, sizeof got,
                  {0, 0, 0}, {0, 0, 0}, 0, -1};
    CHECK_EQ(run_bin(pl_add_registration(), &c), PL_OK);
    static const float want[] = {11, 22, 33, 14, 25, 36};
    CHECK(memcmp(got, want, sizeof want) == 0);
}

static void sub_f32_relu_n1_to_1_clamps(void)
{
    static const int32_t da[] = {1, 4}, db[] = {1, 1};
    float a[] = {-3, 0.5f, 1, 4}, b[] = {0.25f}, got[4];
    bin_case c = {PL_FLOAT32, 2, da, 2, db, 2, da, a, b, got, sizeof got,
                  {0, 0, 0}, {0, 0, 0}, 2, -1};
    CHECK_EQ(run_bin(pl_sub_registration(), &c), PL_OK);
    static const float want[] = {-1, 0.25f, 0.75f, 1};
    CHECK(memcmp(got, want, sizeof want) == 0);
}

static void mul_f32_broadcasts_both_ways_with_relu(void)
{
    static const int32_t da[] = {2, 1}, db[] = {1, 3}, dout[] = {2, 3};
    float a[] = {2, -1}, b[] = {1, -2, 3}, got[6];
    bin_case c = {PL_FLOAT32, 2, da, 2, db, 2, dout, a, b, got, sizeof got,
                  {0, 0, 0}, {0, 0, 0}, 1, -1};
    CHECK_EQ(run_bin(pl_mul_registration(), &c), PL_OK);
    static const float want[] = {2, 0, 6, 0, 2, 0};
    CHECK(memcmp(got, want, sizeof want) == 0);
}

static void add_s32_relu6_and_5d_broadcast(void)
{
    static const int32_t da[] = {2, 1, 1, 1, 2}, db[] = {1, 2, 1, 1, 1}, dout[] = {2, 2, 1, 1, 2};
    int32_t a[] = {1, 2, 3, 4}, b[] = {0, 3}, got[8];
    bin_case c = {PL_INT32, 5, da, 5, db, 5, dout, a, b, got, sizeof got,
                  {0, 0, 0}, {0, 0, 0}, 3, -1};
    CHECK_EQ(run_bin(pl_add_registration(), &c), PL_OK);
    static const int32_t want[] = {1, 2, 4, 5, 3, 4, 6, 6};
    CHECK(memcmp(got, want, sizeof want) == 0);
}

static void mul_s32_multiplies(void)
{
    static const int32_t da[] = {3};
    int32_t a[] = {-2, 3, 40000}, b[] = {5, -7, 40000}, got[3];
    bin_case c = {PL_INT32, 1, da, 1, da, 1, da, a, b, got, sizeof got,
                  {0, 0, 0}, {0, 0, 0}, 0, -1};
    CHECK_EQ(run_bin(pl_mul_registration(), &c), PL_OK);
    CHECK_EQ(got[0], -10);
    CHECK_EQ(got[1], -21);
    CHECK_EQ(got[2], 1600000000);
}

static void s64_ops_wrap_free_and_clamp(void)
{
    /* expected values are LiteRT 2.3's for the same inputs */
    static const int32_t d[] = {6};
    int64_t a[] = {1, -2, 3, 1099511627776LL, -5, 7}, b[] = {5, 1, -9, 3, 1099511627776LL, 0};
    int64_t got[6];
    bin_case c = {PL_INT64, 1, d, 1, d, 1, d, a, b, got, sizeof got,
                  {0, 0, 0}, {0, 0, 0}, 0, -1};
    CHECK_EQ(run_bin(pl_mul_registration(), &c), PL_OK);
    static const int64_t want_mul[] = {5, -2, -27, 3298534883328LL, -5497558138880LL, 0};
    CHECK(memcmp(got, want_mul, sizeof got) == 0);
    c.act = 3;
    CHECK_EQ(run_bin(pl_sub_registration(), &c), PL_OK);
    static const int64_t want_sub[] = {0, 0, 6, 6, 0, 6};
    CHECK(memcmp(got, want_sub, sizeof got) == 0);
}

static void add_s8_same_scales_is_exact(void)
{
    static const int32_t da[] = {4};
    int8_t a[] = {10, -20, 100, -128}, b[] = {4, 6, 100, -128}, got[4];
    bin_case c = {PL_INT8, 1, da, 1, da, 1, da, a, b, got, sizeof got,
                  {0.5f, 0.5f, 0.5f}, {0, 0, 0}, 0, -1};
    CHECK_EQ(run_bin(pl_add_registration(), &c), PL_OK);
    static const int8_t want[] = {14, -14, 127, -128};
    CHECK(memcmp(got, want, sizeof want) == 0);
}

static void rejects_unsupported_type(void)
{
    static const int32_t da[] = {2};
    bool a[2] = {0}, b[2] = {0}, got[2];
    bin_case c = {PL_BOOL, 1, da, 1, da, 1, da, a, b, got, sizeof got,
                  {1, 1, 1}, {0, 0, 0}, 0, -1};
    CHECK_EQ(run_bin(pl_add_registration(), &c), PL_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(kh.message, "BOOL");
}

/* Legacy uint8: 1 + 5 = 6 and -14 + 10 = -4 on scale 0.5 around output zero point 128. */
static void add_uint8_with_zero_points(void)
{
    static const int32_t da[] = {2};
    uint8_t a[] = {130, 100}, b[] = {10, 20}, got[2];
    bin_case c = {PL_UINT8, 1, da, 1, da, 1, da, a, b, got, sizeof got,
                  {0.5f, 0.5f, 0.5f}, {128, 0, 128}, 0, -1};
    CHECK_EQ(run_bin(pl_add_registration(), &c), PL_OK);
    CHECK_EQ(got[0], 140);
    CHECK_EQ(got[1], 120);
}

static void rejects_wrong_output_shape(void)
{
    static const int32_t da[] = {2, 3}, db[] = {2}, dout[] = {2, 3};
    float a[6] = {0}, b[2] = {0}, got[6];
    bin_case c = {PL_FLOAT32, 2, da, 1, db, 2, dout, a, b, got, sizeof got,
                  {0, 0, 0}, {0, 0, 0}, 0, -1};
    CHECK_EQ(run_bin(pl_mul_registration(), &c), PL_ERR_MODEL);
}

static void rejects_tanh_activation(void)
{
    static const int32_t da[] = {2};
    float a[2] = {0}, b[2] = {0}, got[2];
    bin_case c = {PL_FLOAT32, 1, da, 1, da, 1, da, a, b, got, sizeof got,
                  {0, 0, 0}, {0, 0, 0}, 4, -1};
    CHECK_EQ(run_bin(pl_sub_registration(), &c), PL_ERR_UNSUPPORTED);
}

static void rejects_s16_pot_with_both_inputs_shifted(void)
{
    /* LiteRT refuses this too: only one input may be finer than the output */
    static const int32_t da[] = {2};
    int16_t a[2] = {0}, b[2] = {0}, got[2];
    bin_case c = {PL_INT16, 1, da, 1, da, 1, da, a, b, got, sizeof got,
                  {1.0f / 1024, 1.0f / 1024, 1.0f / 512}, {0, 0, 0}, 0, 1};
    CHECK_EQ(run_bin(pl_add_registration(), &c), PL_ERR_UNSUPPORTED);
}

static void s16_pot_add_runs_flat_but_refuses_broadcast(void)
{
    static const int32_t da[] = {1, 3}, db[] = {3}, dbig[] = {2, 3};
    int16_t a[] = {100, 200, 300}, b[] = {1000, 2002, -3}, got[3];
    bin_case c = {PL_INT16, 2, da, 1, db, 2, da, a, b, got, sizeof got,
                  {1.0f / 1024, 1.0f / 4096, 1.0f / 1024}, {0, 0, 0}, 0, 1};
    CHECK_EQ(run_bin(pl_add_registration(), &c), PL_OK);
    /* b is shifted right by 2 with rounding half away from zero */
    static const int16_t want[] = {350, 701, 299};
    CHECK(memcmp(got, want, sizeof want) == 0);
    int16_t big[6] = {0}, got6[6];
    bin_case d = {PL_INT16, 2, dbig, 1, db, 2, dbig, big, b, got6, sizeof got6,
                  {1.0f / 1024, 1.0f / 4096, 1.0f / 1024}, {0, 0, 0}, 0, 1};
    CHECK_EQ(run_bin(pl_add_registration(), &d), PL_ERR_UNSUPPORTED);
}

static void golden_add_s8_broadcast_none(void)
{
    static const int32_t da[] = {2, 3, 4}, db[] = {3, 1}, dout[] = {2, 3, 4};
    int8_t a[] = {
        113, 32, 47, 101, 20, 70, 85, -71, -114, -52,
        -56, 95, 105, -127, -1, 82, -95, 76, -98, -9,
        81, -51, -41, -57};
    int8_t b[] = {56, -63, 125};
    static const int8_t want[] = {
        126, 81, 90, 120, -71, -43, -35, -121, 85, 119,
        117, 127, 122, -7, 63, 109, -128, -40, -128, -87,
        127, 120, 125, 116};
    int8_t got[sizeof want / sizeof want[0]];
    bin_case c = {PL_INT8, 3, da, 2, db, 3, dout, a, b, got, sizeof got,
                  {0.05f, 0.11f, 0.09f}, {-3, 7, 2}, 0, -1};
    CHECK_EQ(run_bin(pl_add_registration(), &c), PL_OK);
    CHECK(memcmp(got, want, sizeof want) == 0);
}

static void golden_add_s8_relu6(void)
{
    static const int32_t da[] = {2, 3, 4}, db[] = {2, 3, 4}, dout[] = {2, 3, 4};
    int8_t a[] = {
        -15, -6, 1, 21, 13, 2, 126, 78, 74, 51,
        31, -41, 125, -9, -73, 88, -87, 91, 28, -99,
        -117, -15, -119, -92};
    int8_t b[] = {
        3, 120, -9, 78, 106, 82, 33, -16, 3, -60,
        -1, -31, -65, 126, -125, -104, -79, 120, 49, 97,
        -77, 56, -34, -3};
    static const int8_t want[] = {
        -20, 121, -20, 92, 120, 82, 122, 25, 45, -20,
        6, -20, 4, 126, -20, -20, -20, 127, 63, 19,
        -20, 37, -20, -20};
    int8_t got[sizeof want / sizeof want[0]];
    bin_case c = {PL_INT8, 3, da, 3, db, 3, dout, a, b, got, sizeof got,
                  {0.02f, 0.03f, 0.025f}, {-10, 5, -20}, 3, -1};
    CHECK_EQ(run_bin(pl_add_registration(), &c), PL_OK);
    CHECK(memcmp(got, want, sizeof want) == 0);
}

static void golden_sub_s8_broadcast_relu(void)
{
    static const int32_t da[] = {3, 1, 4}, db[] = {1, 2, 4}, dout[] = {3, 2, 4};
    int8_t a[] = {
        -128, 30, 84, 41, -89, 8, -60, 119, 97, -81,
        2, 112};
    int8_t b[] = {88, 53, 35, -118, 61, -7, -105, -66};
    static const int8_t want[] = {
        4, 4, 23, 127, 4, 27, 127, 105, 4, 4,
        4, 127, 4, 8, 66, 127, 4, 4, 4, 127,
        4, 4, 118, 127};
    int8_t got[sizeof want / sizeof want[0]];
    bin_case c = {PL_INT8, 3, da, 3, db, 3, dout, a, b, got, sizeof got,
                  {0.05f, 0.07f, 0.06f}, {0, -9, 4}, 1, -1};
    CHECK_EQ(run_bin(pl_sub_registration(), &c), PL_OK);
    CHECK(memcmp(got, want, sizeof want) == 0);
}

static void golden_mul_s8_broadcast(void)
{
    static const int32_t da[] = {2, 1, 3}, db[] = {4, 1}, dout[] = {2, 4, 3};
    int8_t a[] = {10, 58, 1, 28, 95, 47};
    int8_t b[] = {-36, 36, 25, -101};
    static const int8_t want[] = {
        -7, -22, -4, -2, 18, -6, -3, 12, -6, -12,
        -57, -3, -13, -33, -18, 6, 34, 13, 3, 24,
        9, -29, -92, -47};
    int8_t got[sizeof want / sizeof want[0]];
    bin_case c = {PL_INT8, 3, da, 2, db, 3, dout, a, b, got, sizeof got,
                  {0.05f, 0.04f, 0.2f}, {3, -6, -5}, 0, -1};
    CHECK_EQ(run_bin(pl_mul_registration(), &c), PL_OK);
    CHECK(memcmp(got, want, sizeof want) == 0);
}

static void golden_add_s16_general(void)
{
    static const int32_t da[] = {2, 6}, db[] = {2, 6}, dout[] = {2, 6};
    int16_t a[] = {
        -28885, 10496, -7365, 6444, -11598, -17980, -22925, -7761, 20731, -6489,
        -7901, 4940};
    int16_t b[] = {
        31375, -7062, 5897, -3966, 6884, -3559, 9043, 3090, 11563, 29934,
        -22886, 4039};
    static const int16_t want[] = {
        -4615, 3702, -2158, 2445, -4519, -13648, -11063, -3732, 19217, 9643,
        -15947, 5178};
    int16_t got[sizeof want / sizeof want[0]];
    bin_case c = {PL_INT16, 2, da, 2, db, 2, dout, a, b, got, sizeof got,
                  {0.001f, 0.0007f, 0.0015f}, {0, 0, 0}, 0, 0};
    CHECK_EQ(run_bin(pl_add_registration(), &c), PL_OK);
    CHECK(memcmp(got, want, sizeof want) == 0);
}

static void golden_add_s16_pot(void)
{
    static const int32_t da[] = {2, 6}, db[] = {2, 6}, dout[] = {2, 6};
    int16_t a[] = {
        -3912, -9307, -17068, -29344, -6390, 21375, -26431, -6154, 30659, 29587,
        -18678, -32271};
    int16_t b[] = {
        11256, -31834, -13080, -193, 24515, -26683, 10630, 2164, -24143, 22650,
        22614, -1134};
    static const int16_t want[] = {
        10278, -32768, -17347, -7529, 22917, -21339, 4022, 625, -16478, 30047,
        17944, -9202};
    int16_t got[sizeof want / sizeof want[0]];
    bin_case c = {PL_INT16, 2, da, 2, db, 2, dout, a, b, got, sizeof got,
                  {0.000244140625f, 0.0009765625f, 0.0009765625f}, {0, 0, 0}, 0, 1};
    CHECK_EQ(run_bin(pl_add_registration(), &c), PL_OK);
    CHECK(memcmp(got, want, sizeof want) == 0);
}

static void golden_sub_s16_pot_broadcast(void)
{
    static const int32_t da[] = {2, 6}, db[] = {6}, dout[] = {2, 6};
    int16_t a[] = {
        29160, 7003, 26471, 30184, 4569, -14362, -23236, 4118, -20155, 16398,
        28043, -16683};
    int16_t b[] = {3429, -29546, -20936, -8050, 25169, 30769};
    static const int16_t want[] = {
        28731, 10696, 29088, 31190, 1423, -18208, -23665, 7811, -17538, 17404,
        24897, -20529};
    int16_t got[sizeof want / sizeof want[0]];
    bin_case c = {PL_INT16, 2, da, 1, db, 2, dout, a, b, got, sizeof got,
                  {0.0009765625f, 0.0001220703125f, 0.0009765625f}, {0, 0, 0}, 0, 1};
    CHECK_EQ(run_bin(pl_sub_registration(), &c), PL_OK);
    CHECK(memcmp(got, want, sizeof want) == 0);
}

static void golden_sub_s16_general_broadcast(void)
{
    static const int32_t da[] = {2, 6}, db[] = {6}, dout[] = {2, 6};
    int16_t a[] = {
        9278, 5469, 4567, -28796, -8108, 31675, -5836, -18789, -17073, 13983,
        -30274, 30763};
    int16_t b[] = {24655, 4425, -2115, 17133, 3121, -1496};
    static const int16_t want[] = {
        -5320, 1581, 4032, -27193, -6862, 21815, -15396, -14591, -10395, 1327,
        -21639, 21207};
    int16_t got[sizeof want / sizeof want[0]];
    bin_case c = {PL_INT16, 2, da, 1, db, 2, dout, a, b, got, sizeof got,
                  {0.001f, 0.0007f, 0.0015f}, {0, 0, 0}, 0, 0};
    CHECK_EQ(run_bin(pl_sub_registration(), &c), PL_OK);
    CHECK(memcmp(got, want, sizeof want) == 0);
}

static void golden_mul_s16_broadcast_relu(void)
{
    static const int32_t da[] = {2, 6}, db[] = {1, 6}, dout[] = {2, 6};
    int16_t a[] = {
        -11655, -3491, 16470, -29158, -31117, 14443, -8377, 19905, -30779, 26686,
        -24715, -5518};
    int16_t b[] = {30615, -25658, 10339, 14934, -4705, -27590};
    static const int16_t want[] = {
        0, 5971, 11352, 0, 9760, 0, 0, 0, 0, 26569,
        7752, 10149};
    int16_t got[sizeof want / sizeof want[0]];
    bin_case c = {PL_INT16, 2, da, 2, db, 2, dout, a, b, got, sizeof got,
                  {0.001f, 0.002f, 0.03f}, {0, 0, 0}, 1, -1};
    CHECK_EQ(run_bin(pl_mul_registration(), &c), PL_OK);
    CHECK(memcmp(got, want, sizeof want) == 0);
}

static void golden_add_s16_pot_default_options(void)
{
    static const int32_t da[] = {2, 6}, db[] = {2, 6}, dout[] = {2, 6};
    int16_t a[] = {
        1555, -4369, 24432, 11945, -10210, -28965, 5917, -14445, 12037, 23843,
        -9476, 26435};
    int16_t b[] = {
        1251, 2020, 17383, 18948, 26815, 32714, -22868, -5728, 28404, -12606,
        -32429, 4985};
    static const int16_t want[] = {
        2029, -165, 29599, 24921, 21710, 18231, -19909, -12951, 32767, -684,
        -32768, 18203};
    int16_t got[sizeof want / sizeof want[0]];
    bin_case c = {PL_INT16, 2, da, 2, db, 2, dout, a, b, got, sizeof got,
                  {0.00048828125f, 0.0009765625f, 0.0009765625f}, {0, 0, 0}, 0, -1};
    CHECK_EQ(run_bin(pl_add_registration(), &c), PL_OK);
    CHECK(memcmp(got, want, sizeof want) == 0);
}

/* LiteRT's int16 power-of-two path: the tests above run in target litert's arithmetic. */
#define RUN_LITERT(fn)                  \
    do {                                \
        kh_ctx.arith = PL_ARITH_LITERT; \
        RUN(fn);                        \
        kh_ctx.arith = PL_ARITH_TFLM;   \
    } while (0)

/* TFLM has no power-of-two int16 path: with power-of-two scales and the option set, ADD and
** SUB compute what LiteRT computes with the option off (the general rescale). */
static void tflm_s16_pot_scales_take_the_general_path(void)
{
    static const int32_t da[] = {2, 6};
    int16_t a[12], b[12], general[12], got[12];
    for (int i = 0; i < 12; i++) {
        a[i] = (int16_t)(i * 5003 - 29000);
        b[i] = (int16_t)(31000 - i * 4999);
    }
    const pl_registration *regs[2] = {pl_add_registration(), pl_sub_registration()};
    for (int k = 0; k < 2; k++) {
        bin_case c = {PL_INT16, 2, da, 2, da, 2, da, a, b, general, sizeof general,
                      {0.000244140625f, 0.0009765625f, 0.0009765625f}, {0, 0, 0}, 0, 0};
        kh_ctx.arith = PL_ARITH_LITERT;
        CHECK_EQ(run_bin(regs[k], &c), PL_OK);
        kh_ctx.arith = PL_ARITH_TFLM;
        c.out = got;
        c.pot = 1;
        CHECK_EQ(run_bin(regs[k], &c), PL_OK);
        CHECK(memcmp(got, general, sizeof got) == 0);
    }
}

int main(void)
{
    RUN(add_f32_broadcasts_row);
    RUN(sub_f32_relu_n1_to_1_clamps);
    RUN(mul_f32_broadcasts_both_ways_with_relu);
    RUN(add_s32_relu6_and_5d_broadcast);
    RUN(mul_s32_multiplies);
    RUN(s64_ops_wrap_free_and_clamp);
    RUN(add_s8_same_scales_is_exact);
    RUN(rejects_unsupported_type);
    RUN(add_uint8_with_zero_points);
    RUN(rejects_wrong_output_shape);
    RUN(rejects_tanh_activation);
    RUN_LITERT(rejects_s16_pot_with_both_inputs_shifted);
    RUN_LITERT(s16_pot_add_runs_flat_but_refuses_broadcast);
    RUN(golden_add_s8_broadcast_none);
    RUN(golden_add_s8_relu6);
    RUN(golden_sub_s8_broadcast_relu);
    RUN(golden_mul_s8_broadcast);
    RUN(golden_add_s16_general);
    RUN_LITERT(golden_add_s16_pot);
    RUN_LITERT(golden_sub_s16_pot_broadcast);
    RUN(golden_sub_s16_general_broadcast);
    RUN(golden_mul_s16_broadcast_relu);
    RUN_LITERT(golden_add_s16_pot_default_options);
    RUN(tflm_s16_pot_scales_take_the_general_path);
    return HARNESS_END();
}
