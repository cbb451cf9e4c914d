/* test_kernels_svdf.c - SVDF on hand-worked cases: float (state shift across invocations,
** ReLU), int16 state (LiteRT's EvalIntegerSVDF), int8 state with a zero point (TFLM), and
** the rejections. */
#include <stdint.h>

#include "harness.h"
#include "kernel_harness.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/recurrent/svdf.h"

/* A flatbuffer options table with fields 0..n-1 present, each stored in 4 bytes. */
typedef struct opts {
    _Alignas(4) uint8_t buf[64];
    pl_table t;
} opts;

static const pl_table *make_opts(opts *o, const int32_t *fields, uint32_t n)
{
    uint32_t vt_bytes = 4u + 2u * n, pos = (vt_bytes + 3u) & ~3u;
    memset(o->buf, 0, sizeof o->buf);
    o->buf[0] = (uint8_t)vt_bytes;
    o->buf[2] = (uint8_t)(4u + 4u * n);
    o->buf[pos] = (uint8_t)pos;
    for (uint32_t i = 0; i < n; i++) {
        o->buf[4 + 2 * i] = (uint8_t)(4u + 4u * i);
        uint32_t v = (uint32_t)fields[i];
        for (uint32_t b = 0; b < 4; b++)
            o->buf[pos + 4 + 4 * i + b] = (uint8_t)(v >> (8 * b));
    }
    o->t.buf = o->buf;
    o->t.size = sizeof o->buf;
    o->t.pos = pos;
    o->t.vtable = 0;
    o->t.vt_bytes = (uint16_t)vt_bytes;
    return &o->t;
}

static int32_t tensor(pl_type type, int32_t d0, int32_t d1, void *data, size_t bytes,
                      float scale, int64_t zp)
{
    int32_t dims[2] = {d0, d1};
    int32_t ndims = d1 > 0 ? 2 : 1;
    if (ndims == 1)
        dims[0] = d0;
    return kh_tensor(type, ndims, dims, data, bytes, &scale, &zp, scale > 0 ? 1u : 0u, 0);
}

static int32_t variable(int32_t index)
{
    kh.tensors[index].is_variable = true;
    return index;
}

/* batch 1, input 2, filters 2, rank 1 (2 units), memory 2. Second step: the state shifts
** left over the whole buffer, so filter 0 keeps its previous newest value 3. */
static void svdf_float_shifts_state_and_applies_relu(void)
{
    float in[2] = {1, 1}, wf[4] = {1, 2, 3, -1}, wt[4] = {0.5f, 1, 2, -1};
    float bias[2] = {0.25f, -0.5f}, state[4] = {0}, out[2] = {0};
    opts o;
    int32_t fields[2] = {1, PL_ACT_NONE};
    kh_setup();
    int32_t ins[5] = {tensor(PL_FLOAT32, 1, 2, in, sizeof in, 0, 0),
                      tensor(PL_FLOAT32, 2, 2, wf, sizeof wf, 0, 0),
                      tensor(PL_FLOAT32, 2, 2, wt, sizeof wt, 0, 0),
                      tensor(PL_FLOAT32, 2, 0, bias, sizeof bias, 0, 0),
                      variable(tensor(PL_FLOAT32, 1, 4, state, sizeof state, 0, 0))};
    int32_t outs[1] = {tensor(PL_FLOAT32, 1, 2, out, sizeof out, 0, 0)};
    CHECK_EQ(kh_run(pl_svdf_registration(), ins, 5, outs, 1, make_opts(&o, fields, 2)), PL_OK);
    CHECK(out[0] == 3.25f && out[1] == -2.5f);
    CHECK(state[0] == 0 && state[1] == 3 && state[2] == 0 && state[3] == 2);
    in[0] = 2;
    in[1] = 0;
    fields[1] = PL_ACT_RELU;
    CHECK_EQ(kh_run(pl_svdf_registration(), ins, 5, outs, 1, make_opts(&o, fields, 2)), PL_OK);
    CHECK(state[0] == 3 && state[1] == 2 && state[2] == 2 && state[3] == 6);
    CHECK(out[0] == 3.75f && out[1] == 0.0f);
}

/* rank 2 (1 unit): scale_1 = 1 (exact), scale_2 = 0.5, input zero point 1, output -3. */
static void svdf_int16_state_matches_hand_arithmetic(void)
{
    int8_t in[2] = {3, -1}, wf[4] = {1, 2, 3, 1}, out[1] = {0};
    int16_t wt[4] = {1, 1, 1, 1}, state[4] = {0};
    int32_t bias[1] = {10};
    opts o;
    int32_t fields[2] = {2, PL_ACT_RELU};
    kh_setup();
    int32_t ins[5] = {tensor(PL_INT8, 1, 2, in, sizeof in, 1.0f, 1),
                      tensor(PL_INT8, 2, 2, wf, sizeof wf, 1.0f, 0),
                      tensor(PL_INT16, 2, 2, wt, sizeof wt, 0.5f, 0),
                      tensor(PL_INT32, 1, 0, bias, sizeof bias, 0.5f, 0),
                      variable(tensor(PL_INT16, 1, 4, state, sizeof state, 1.0f, 0))};
    int32_t outs[1] = {tensor(PL_INT8, 1, 1, out, sizeof out, 1.0f, -3)};
    CHECK_EQ(kh_run(pl_svdf_registration(), ins, 5, outs, 1, make_opts(&o, fields, 2)), PL_OK);
    CHECK(state[1] == -2 && state[3] == 4);
    CHECK_EQ(out[0], 3); /* (10 - 2 + 4) / 2 - 3 */
    CHECK_EQ(kh_run(pl_svdf_registration(), ins, 5, outs, 1, make_opts(&o, fields, 2)), PL_OK);
    CHECK_EQ(out[0], 4); /* (10 - 4 + 8) / 2 - 3 */
}

/* int8 weights_time and state: the state zero point 5 is added after the clamp to int8 and
** taken out of every time product (the zeroed state reads as -5). */
static void svdf_int8_state_uses_its_zero_point(void)
{
    int8_t in[2] = {3, -1}, wf[4] = {1, 2, 3, 1}, out[1] = {0}, wt[4] = {1, 1, 1, 1};
    int8_t state[4] = {0};
    int32_t bias[1] = {10};
    opts o;
    int32_t fields[2] = {2, PL_ACT_RELU};
    kh_setup();
    int32_t ins[5] = {tensor(PL_INT8, 1, 2, in, sizeof in, 1.0f, 1),
                      tensor(PL_INT8, 2, 2, wf, sizeof wf, 1.0f, 0),
                      tensor(PL_INT8, 2, 2, wt, sizeof wt, 0.5f, 0),
                      tensor(PL_INT32, 1, 0, bias, sizeof bias, 0.5f, 0),
                      variable(tensor(PL_INT8, 1, 4, state, sizeof state, 1.0f, 5))};
    int32_t outs[1] = {tensor(PL_INT8, 1, 1, out, sizeof out, 1.0f, -3)};
    CHECK_EQ(kh_run(pl_svdf_registration(), ins, 5, outs, 1, make_opts(&o, fields, 2)), PL_OK);
    CHECK(state[1] == 3 && state[3] == 9);
    CHECK_EQ(out[0], -2); /* (10 + (-5 - 2) + (-5 + 4)) / 2 - 3 */
}

static void svdf_rejects_hybrid_and_integer_without_relu(void)
{
    float in[2] = {0}, bias[1] = {0}, state[4] = {0}, out[1] = {0};
    int8_t wf[4] = {0}, wt[4] = {0};
    opts o;
    int32_t fields[2] = {2, PL_ACT_NONE};
    kh_setup();
    int32_t ins[5] = {tensor(PL_FLOAT32, 1, 2, in, sizeof in, 0, 0),
                      tensor(PL_INT8, 2, 2, wf, sizeof wf, 1.0f, 0),
                      tensor(PL_INT8, 2, 2, wt, sizeof wt, 1.0f, 0),
                      tensor(PL_FLOAT32, 1, 0, bias, sizeof bias, 0, 0),
                      variable(tensor(PL_FLOAT32, 1, 4, state, sizeof state, 0, 0))};
    int32_t outs[1] = {tensor(PL_FLOAT32, 1, 1, out, sizeof out, 0, 0)};
    CHECK_EQ(kh_run(pl_svdf_registration(), ins, 5, outs, 1, make_opts(&o, fields, 2)),
             PL_ERR_UNSUPPORTED);
    CHECK(strstr(kh.message, "hybrid") != NULL);

    int8_t qin[2] = {0}, qout[1] = {0};
    int16_t wt16[4] = {0}, state16[4] = {0};
    int32_t qbias[1] = {0};
    kh_setup();
    int32_t qins[5] = {tensor(PL_INT8, 1, 2, qin, sizeof qin, 1.0f, 0),
                       tensor(PL_INT8, 2, 2, wf, sizeof wf, 1.0f, 0),
                       tensor(PL_INT16, 2, 2, wt16, sizeof wt16, 1.0f, 0),
                       tensor(PL_INT32, 1, 0, qbias, sizeof qbias, 1.0f, 0),
                       variable(tensor(PL_INT16, 1, 4, state16, sizeof state16, 1.0f, 0))};
    int32_t qouts[1] = {tensor(PL_INT8, 1, 1, qout, sizeof qout, 1.0f, 0)};
    CHECK_EQ(kh_run(pl_svdf_registration(), qins, 5, qouts, 1, make_opts(&o, fields, 2)),
             PL_ERR_UNSUPPORTED);
    fields[1] = PL_ACT_RELU;
    fields[0] = 3; /* 2 filters are not divisible by rank 3 */
    CHECK_EQ(kh_run(pl_svdf_registration(), qins, 5, qouts, 1, make_opts(&o, fields, 2)),
             PL_ERR_MODEL);
}

int main(void)
{
    RUN(svdf_float_shifts_state_and_applies_relu);
    RUN(svdf_int16_state_matches_hand_arithmetic);
    RUN(svdf_int8_state_uses_its_zero_point);
    RUN(svdf_rejects_hybrid_and_integer_without_relu);
    return HARNESS_END();
}
