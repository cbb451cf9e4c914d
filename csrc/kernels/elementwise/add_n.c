/* add_n.c - ADD_N (see add_n.h). */
#include "add_n.h"

#include <math.h>

#include "kernels/common/broadcast.h"
#include "kernels/common/fixedpoint.h"
#include "picolite/pl_node_io.h"

enum { OP_ADD_N = 106, LEFT_SHIFT = 20 };

/* At most this many inputs are summed in int8 (the per-element values sit on the stack). */
#define PL_ADD_N_MAX_S8_INPUTS 64

static int32_t scaled(const pl_add_n_params *p, int32_t q)
{
    return pl_fx_mul_by_qm((q + p->input_offset) * (1 << LEFT_SHIFT), p->input_multiplier,
                           p->input_shift);
}

int8_t pl_add_n_s8(const pl_add_n_params *p, const int8_t *values, size_t n)
{
    uint32_t acc = (uint32_t)scaled(p, 0); /* TFLite starts from the offset's scaled value */
    for (size_t j = 0; j < n; j++)
        acc += (uint32_t)scaled(p, values[j]);
    int32_t raw = pl_fx_mul_by_qm((int32_t)acc, p->output_multiplier, p->output_shift) +
                  p->output_offset;
    return (int8_t)pl_fx_clamp(raw, INT8_MIN, INT8_MAX);
}

/* TFLM's CalculateOpData: one input quantization for all, multipliers in double. */
static pl_status prepare_s8(pl_context *ctx, const pl_tensor *first, const pl_tensor *out,
                            pl_add_n_params *p)
{
    if (first->q.count == 0 || out->q.count == 0 || !(first->q.scale[0] > 0.0f) ||
        !(out->q.scale[0] > 0.0f) || !isfinite(first->q.scale[0]))
        return ctx->fail(ctx, PL_ERR_MODEL, "int8 inputs and output need positive scales");
    if (first->q.zero_point[0] < INT8_MIN || first->q.zero_point[0] > INT8_MAX ||
        out->q.zero_point[0] < INT8_MIN || out->q.zero_point[0] > INT8_MAX)
        return ctx->fail(ctx, PL_ERR_MODEL, "zero points out of the int8 range");
    double twice = 2 * (double)first->q.scale[0];
    double out_m = twice / ((double)(1 << LEFT_SHIFT) * (double)out->q.scale[0]);
    if (!(out_m < 1.0))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "output multiplier %g is not below 1",
                         out_m);
    p->input_offset = -first->q.zero_point[0];
    p->output_offset = out->q.zero_point[0];
    pl_fx_quantize_multiplier((double)first->q.scale[0] / twice, &p->input_multiplier,
                              &p->input_shift);
    pl_fx_quantize_multiplier(out_m, &p->output_multiplier, &p->output_shift);
    return PL_OK;
}

static pl_status check_input(pl_context *ctx, const pl_tensor *first, const pl_tensor *t,
                             uint32_t i)
{
    if (t->type != first->type)
        return ctx->fail(ctx, PL_ERR_MODEL, "input %u is %s, input 0 %s", (unsigned)i,
                         pl_type_name(t->type), pl_type_name(first->type));
    if (!pl_bcast_same_dims(first, t))
        return ctx->fail(ctx, PL_ERR_MODEL, "input %u's shape differs from input 0's",
                         (unsigned)i);
    if (t->type == PL_INT8 && (t->q.count == 0 || first->q.count == 0 ||
                               t->q.scale[0] != first->q.scale[0] ||
                               t->q.zero_point[0] != first->q.zero_point[0]))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "int8 input %u's quantization differs "
                         "from input 0's", (unsigned)i);
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    PL_TRY(pl_node_check(ctx, node, PL_IO_OPT(2, PL_IO_ANY, 1)));
    pl_tensor *first = NULL, *t, *out;
    PL_TRY(pl_node_tensor(ctx, node, true, 0, &out));
    pl_type type = out->type;
    if (type != PL_FLOAT32 && type != PL_INT32 && type != PL_INT8)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "type %s is not supported",
                         pl_type_name(type));
    if (type == PL_INT8 && node->inputs.n > PL_ADD_N_MAX_S8_INPUTS)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%u int8 inputs, at most %d",
                         (unsigned)node->inputs.n, PL_ADD_N_MAX_S8_INPUTS);
    for (uint32_t i = 0; i < node->inputs.n; i++) {
        PL_TRY(pl_node_tensor(ctx, node, false, i, &t));
        if (i == 0)
            first = t;
        PL_TRY(check_input(ctx, first, t, i));
    }
    if (first->type != type)
        return ctx->fail(ctx, PL_ERR_MODEL, "inputs are %s, output %s",
                         pl_type_name(first->type), pl_type_name(type));
    PL_TRY(pl_set_output_like(ctx, out, first));
    return type == PL_INT8 ? prepare_s8(ctx, first, out, node->user_data) : PL_OK;
}

static void accumulate(pl_type type, uint32_t k, const void *in, void *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (type == PL_FLOAT32) {
            float x = ((const float *)in)[i];
            ((float *)out)[i] = k == 0 ? x : ((float *)out)[i] + x;
        } else {
            uint32_t x = (uint32_t)((const int32_t *)in)[i];
            uint32_t acc = k == 0 ? 0u : (uint32_t)((int32_t *)out)[i];
            ((int32_t *)out)[i] = (int32_t)(acc + x);
        }
    }
}

/* int8: the inputs' eval views are gathered first, as the output may not hold partial sums
** (each element is rescaled once from its full sum). */
static pl_status invoke_s8(pl_context *ctx, const pl_node *node, const pl_tensor *out,
                           size_t n)
{
    const int8_t *data[PL_ADD_N_MAX_S8_INPUTS];
    int8_t values[PL_ADD_N_MAX_S8_INPUTS];
    pl_tensor in;
    for (uint32_t k = 0; k < node->inputs.n; k++) {
        PL_TRY(pl_node_eval(ctx, node, false, k, &in));
        if (pl_tensor_count(&in) != n)
            return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
        data[k] = in.data;
    }
    for (size_t i = 0; i < n; i++) {
        for (uint32_t k = 0; k < node->inputs.n; k++)
            values[k] = data[k][i];
        ((int8_t *)out->data)[i] = pl_add_n_s8(node->user_data, values, node->inputs.n);
    }
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor out, in;
    PL_TRY(pl_node_evals(ctx, node, 0, 1, &out));
    size_t n = pl_tensor_count(&out);
    if (out.type == PL_INT8)
        return invoke_s8(ctx, node, &out, n);
    for (uint32_t k = 0; k < node->inputs.n; k++) {
        PL_TRY(pl_node_eval(ctx, node, false, k, &in));
        if (pl_tensor_count(&in) != n)
            return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
        accumulate(out.type, k, in.data, out.data, n);
    }
    return PL_OK;
}

const pl_registration *pl_add_n_registration(void)
{
    static const pl_registration r = {.name = "ADD_N", .builtin_code = OP_ADD_N,
                                      .prepare = prepare, .invoke = invoke,
                                      .user_data_size = sizeof(pl_add_n_params)};
    return &r;
}
