/* svdf.c - SVDF: float32 and full integer (see svdf.h). No scratch: each unit sums its rank
** filters' time products directly, in LiteRT's order (bias first, then filter by filter). */
#include "svdf.h"

#include <math.h>
#include <string.h>

#include "kernels/common/fixedpoint.h"
#include "kernels/common/fmath.h"
#include "kernels/common/madd.h"
#include "picolite/pl_node_io.h"

/* SVDFOptions field ids (schema.fbs). */
enum { OPT_RANK = 0, OPT_ACTIVATION, OPT_ASYMMETRIC_QUANTIZE_INPUTS };

enum { IN_INPUT = 0, IN_WEIGHTS_FEATURE, IN_WEIGHTS_TIME, IN_BIAS, IN_STATE };

typedef struct op_data {
    pl_svdf_params p;
    uint8_t state_type; /* pl_type: FLOAT32, INT16 or INT8 */
    uint8_t cmsis;      /* an int8 state as TFLM + CMSIS-NN runs it (pl_svdf_s8_s8_cmsis):
                        ** 0 no, 1 yes, 2 on Helium */
} op_data;

/* The integer kernels (pl_svdf_s8_s16, pl_svdf_s8_s8, pl_svdf_s8_s8_cmsis) and shift_state,
** written once: the fast paths build the same body for each instruction set. */
#define PL_SVDF_INT(name) pl_svdf_##name
#include "kernels/recurrent/svdf_int_body.h"

/* tensor_utils::ApplyActivationToVector for the codes SVDF accepts. */
static float activate(int32_t activation, float x)
{
    switch (activation) {
    case PL_ACT_RELU:
        return x < 0.0f ? 0.0f : x;
    case PL_ACT_RELU_N1_TO_1:
        return pl_fx_clamp_f32(x, -1.0f, 1.0f);
    case PL_ACT_RELU6:
        return pl_fx_clamp_f32(x, 0.0f, 6.0f);
    case PL_ACT_TANH:
        return pl_fmath_tanhf(x);
    default:
        return x;
    }
}

void pl_svdf_f32(const pl_svdf_params *p, const float *in, const float *wf, const float *wt,
                 const float *bias, bool fused, float *state, float *out)
{
    size_t per_batch = (size_t)p->filters * (size_t)p->memory;
    shift_state(state, per_batch * (size_t)p->batches, sizeof(float));
    for (int32_t b = 0; b < p->batches; b++) {
        const float *x = in + (size_t)b * (size_t)p->input_size;
        float *s = state + (size_t)b * per_batch;
        for (int32_t f = 0; f < p->filters; f++) {
            const float *w = wf + (size_t)f * (size_t)p->input_size;
            float dot = 0.0f;
            for (int32_t c = 0; c < p->input_size; c++)
                dot = pl_madd_f32(dot, w[c], x[c], fused);
            s[(size_t)f * (size_t)p->memory + (size_t)p->memory - 1] = dot;
        }
        for (int32_t u = 0; u < p->units; u++) {
            float total = bias != NULL ? bias[u] : 0.0f;
            for (int32_t r = 0; r < p->rank; r++) {
                size_t f = (size_t)u * (size_t)p->rank + (size_t)r;
                const float *sv = s + f * (size_t)p->memory, *tv = wt + f * (size_t)p->memory;
                float dot = 0.0f;
                for (int32_t m = 0; m < p->memory; m++)
                    dot = pl_madd_f32(dot, tv[m], sv[m], fused);
                total += dot;
            }
            out[(size_t)b * (size_t)p->units + (size_t)u] = activate(p->activation, total);
        }
    }
}

typedef struct svdf_tensors {
    pl_tensor *in, *wf, *wt, *bias, *state, *out;
} svdf_tensors;

static pl_status get_tensors(pl_context *ctx, const pl_node *node, svdf_tensors *t)
{
    PL_TRY(pl_node_check(ctx, node, ((pl_io_spec){5, 5, 1, 1, NULL, 1u << IN_BIAS})));
    t->bias = NULL;
    PL_TRY(pl_node_tensor(ctx, node, false, IN_INPUT, &t->in));
    PL_TRY(pl_node_tensor(ctx, node, false, IN_WEIGHTS_FEATURE, &t->wf));
    PL_TRY(pl_node_tensor(ctx, node, false, IN_WEIGHTS_TIME, &t->wt));
    if (pl_node_input(node, IN_BIAS) >= 0)
        PL_TRY(pl_node_tensor(ctx, node, false, IN_BIAS, &t->bias));
    PL_TRY(pl_node_tensor(ctx, node, false, IN_STATE, &t->state));
    return pl_node_tensor(ctx, node, true, 0, &t->out);
}

/* TFLite's checks: input [batch, input_size], weights_feature [filters, input_size],
** weights_time [filters, memory], bias [units], state [batch, memory * filters], output
** [batch, units] with units = filters / rank (set here, as TFLite's Prepare resizes it). */
static pl_status check_shapes(pl_context *ctx, const svdf_tensors *t, int32_t rank,
                              pl_svdf_params *p)
{
    if (t->in->ndims != 2 || t->wf->ndims != 2 || t->wt->ndims != 2 || t->state->ndims != 2)
        return ctx->fail(ctx, PL_ERR_MODEL, "SVDF: input, weights and state must be 2-D");
    p->batches = t->in->dims[0];
    p->input_size = t->in->dims[1];
    p->filters = t->wf->dims[0];
    p->memory = t->wt->dims[1];
    if (rank <= 0 || p->filters % rank != 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "SVDF: rank %d does not divide %d filters", rank,
                         p->filters);
    p->rank = rank;
    p->units = p->filters / rank;
    int32_t out_dims[2] = {p->batches, p->units};
    PL_TRY(pl_set_output_shape(ctx, t->out, 2, out_dims));
    bool ok = t->wf->dims[1] == p->input_size && t->wt->dims[0] == p->filters &&
              t->state->dims[0] == p->batches &&
              (int64_t)t->state->dims[1] == (int64_t)p->memory * p->filters;
    if (t->bias != NULL)
        ok = ok && pl_tensor_count(t->bias) == (size_t)p->units;
    if (!ok || p->memory <= 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "SVDF: shapes do not agree (input [%d, %d], %d "
                         "filters, memory %d, rank %d)", p->batches, p->input_size,
                         p->filters, p->memory, rank);
    if (!t->state->is_variable)
        return ctx->fail(ctx, PL_ERR_MODEL, "SVDF: the state (input 4) must be a variable "
                         "tensor");
    return PL_OK;
}

static pl_status check_types(pl_context *ctx, const svdf_tensors *t, int32_t activation)
{
    pl_type in = t->in->type, wt = t->wt->type, st = t->state->type;
    bool ok;
    if (in == PL_FLOAT32) {
        ok = t->wf->type == PL_FLOAT32 && wt == PL_FLOAT32 && st == PL_FLOAT32 &&
             t->out->type == PL_FLOAT32 && (t->bias == NULL || t->bias->type == PL_FLOAT32);
        if (ok && (activation < 0 || activation > PL_ACT_TANH))
            return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "SVDF: fused activation %d is not "
                             "supported", activation);
    } else {
        ok = in == PL_INT8 && t->wf->type == PL_INT8 && t->out->type == PL_INT8 &&
             ((wt == PL_INT16 && st == PL_INT16) || (wt == PL_INT8 && st == PL_INT8)) &&
             (t->bias == NULL || t->bias->type == PL_INT32);
        if (ok && activation != PL_ACT_RELU)
            return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "SVDF: integer SVDF supports only the "
                             "RELU activation (got %d)", activation);
    }
    if (!ok)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "SVDF: input %s, weights %s/%s, state %s, "
                         "output %s is not supported (hybrid SVDF neither)", pl_type_name(in),
                         pl_type_name(t->wf->type), pl_type_name(wt), pl_type_name(st),
                         pl_type_name(t->out->type));
    return PL_OK;
}

static bool per_tensor(const pl_tensor *t)
{
    return t->q.count == 1;
}

/* a * b / c of the tensors' scales, in float then widened, or in double (wide). */
static double scale3(const pl_tensor *a, const pl_tensor *b, const pl_tensor *c, bool wide)
{
    return pl_fx_ratio3(a->q.scale[0], b->q.scale[0], c->q.scale[0], wide);
}

/* LiteRT's and TFLM 90b983c's effective scales are float products, widened to double for
** QuantizeMultiplier; the wheel's TFLM takes double products of the widened scales. */
static pl_status prepare_quant(pl_context *ctx, const svdf_tensors *t, pl_svdf_params *p)
{
    if (!per_tensor(t->in) || !per_tensor(t->wf) || !per_tensor(t->wt) ||
        !per_tensor(t->state) || !per_tensor(t->out))
        return ctx->fail(ctx, PL_ERR_MODEL, "SVDF: integer tensors need one scale each");
    if (t->state->type == PL_INT16 && t->state->q.zero_point[0] != 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "SVDF: an int16 state must have zero point 0");
    bool wide = pl_arith_wide(ctx->arith);
    pl_fx_quantize_multiplier(scale3(t->in, t->wf, t->state, wide), &p->mult1, &p->shift1);
    pl_fx_quantize_multiplier(scale3(t->state, t->wt, t->out, wide), &p->mult2, &p->shift2);
    p->input_zp = (int32_t)t->in->q.zero_point[0];
    p->state_zp = (int32_t)t->state->q.zero_point[0];
    p->output_zp = (int32_t)t->out->q.zero_point[0];
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    svdf_tensors t;
    PL_TRY(get_tensors(ctx, node, &t));
    int32_t activation = pl_table_i8(&node->options, OPT_ACTIVATION, 0);
    PL_TRY(check_types(ctx, &t, activation));
    PL_TRY(check_shapes(ctx, &t, pl_table_i32(&node->options, OPT_RANK, 0), &d->p));
    d->p.activation = activation;
    d->state_type = (uint8_t)t.state->type;
    d->cmsis = t.state->type != PL_INT8 || !pl_arith_cmsis_nn(ctx->arith) ? 0
               : ctx->arith == PL_ARITH_CMSIS_NN_MVE ? 2 : 1;
    if (t.in->type == PL_INT8)
        PL_TRY(prepare_quant(ctx, &t, &d->p));
    return PL_OK;
}

pl_status pl_svdf_invoke_with(pl_context *ctx, pl_node *node, const pl_svdf_int_kernels *k)
{
    const op_data *d = node->user_data;
    pl_tensor in, wf, wt, bias, state, out;
    PL_TRY(pl_node_eval(ctx, node, false, IN_INPUT, &in));
    PL_TRY(pl_node_eval(ctx, node, false, IN_WEIGHTS_FEATURE, &wf));
    PL_TRY(pl_node_eval(ctx, node, false, IN_WEIGHTS_TIME, &wt));
    PL_TRY(pl_node_eval(ctx, node, false, IN_BIAS, &bias));
    PL_TRY(pl_node_eval(ctx, node, false, IN_STATE, &state));
    PL_TRY(pl_node_evals(ctx, node, 0, 1, &out));
    if (d->state_type == PL_FLOAT32)
        pl_svdf_f32(&d->p, in.data, wf.data, wt.data, bias.data, ctx->fused_madd, state.data,
                    out.data);
    else if (d->state_type == PL_INT16)
        k->s8_s16(&d->p, in.data, wf.data, wt.data, bias.data, state.data, out.data);
    else if (d->cmsis)
        k->s8_s8_cmsis(&d->p, d->cmsis == 2, in.data, wf.data, wt.data, bias.data, state.data,
                       out.data);
    else
        k->s8_s8(&d->p, in.data, wf.data, wt.data, bias.data, state.data, out.data);
    return PL_OK;
}

bool pl_svdf_is_integer(const pl_node *node)
{
    return ((const op_data *)node->user_data)->state_type != PL_FLOAT32;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    static const pl_svdf_int_kernels portable = {pl_svdf_s8_s16, pl_svdf_s8_s8,
                                                 pl_svdf_s8_s8_cmsis};
    return pl_svdf_invoke_with(ctx, node, &portable);
}

const pl_registration *pl_svdf_registration(void)
{
    static const pl_registration reg = {.name = "SVDF", .builtin_code = 27, .prepare = prepare,
                                        .invoke = invoke, .user_data_size = sizeof(op_data)};
    return &reg;
}
