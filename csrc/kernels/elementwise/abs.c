/* abs.c - ABS (see abs.h). */
#include "abs.h"

#include <math.h>

#include "kernels/common/fixedpoint.h"
#include "picolite/pl_node_io.h"

typedef struct op_data {
    pl_abs_params p;
    pl_type type;
    bool quantized;
} op_data;

void pl_abs_f32(const float *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = fabsf(in[i]);
}

/* INT32_MIN stays INT32_MIN (two's complement wrap) instead of being undefined. */
void pl_abs_s32(const int32_t *in, int32_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = in[i] < 0 ? (int32_t)(0u - (uint32_t)in[i]) : in[i];
}

static int32_t abs_q(const pl_abs_params *p, int32_t q, int32_t lo, int32_t hi)
{
    int32_t v = q - p->input_zp;
    v = v < 0 ? -v : v;
    if (p->rescale)
        v = pl_fx_mul_by_qm(v, p->multiplier, p->shift);
    return pl_fx_clamp(v + p->output_zp, lo, hi);
}

void pl_abs_s8(const pl_abs_params *p, const int8_t *in, int8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (int8_t)abs_q(p, in[i], INT8_MIN, INT8_MAX);
}

void pl_abs_s16(const pl_abs_params *p, const int16_t *in, int16_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int32_t v = in[i] < 0 ? -in[i] : in[i];
        /* unquantized: -32768 wraps back to itself, as LiteRT's static_cast does */
        out[i] = p != NULL ? (int16_t)abs_q(p, in[i], INT16_MIN, INT16_MAX)
                           : (int16_t)(uint16_t)(uint32_t)v;
    }
}

static pl_status prepare_quant(pl_context *ctx, const pl_tensor *in, const pl_tensor *out,
                               pl_abs_params *p)
{
    if (in->q.count == 0 || out->q.count == 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "ABS: quantized input and output need scales");
    p->input_zp = (int32_t)in->q.zero_point[0];
    p->output_zp = (int32_t)out->q.zero_point[0];
    if (in->type == PL_INT16 && (p->input_zp != 0 || p->output_zp != 0))
        return ctx->fail(ctx, PL_ERR_MODEL, "ABS: int16 zero points must be 0");
    p->rescale = in->q.scale[0] != out->q.scale[0];
    if (p->rescale)
        pl_fx_quantize_multiplier(pl_fx_ratio(in->q.scale[0], out->q.scale[0],
                                              pl_arith_wide(ctx->arith)),
                                  &p->multiplier, &p->shift);
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    pl_tensor *in, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(1, 1), &in, &out));
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES4(PL_FLOAT32, PL_INT8, PL_INT16, PL_INT32)));
    pl_type t = in->type;
    PL_TRY(pl_set_output_like(ctx, out, in));
    if (pl_tensor_count(in) != pl_tensor_count(out))
        return ctx->fail(ctx, PL_ERR_MODEL, "ABS: output has %zu elements for %zu",
                         pl_tensor_count(out), pl_tensor_count(in));
    d->type = t;
    d->quantized = t == PL_INT8 || (t == PL_INT16 && in->q.count > 0);
    return d->quantized ? prepare_quant(ctx, in, out, &d->p) : PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    size_t n = pl_tensor_count(&in);
    if (d->type == PL_FLOAT32)
        pl_abs_f32(in.data, out.data, n);
    else if (d->type == PL_INT32)
        pl_abs_s32(in.data, out.data, n);
    else if (d->type == PL_INT8)
        pl_abs_s8(&d->p, in.data, out.data, n);
    else
        pl_abs_s16(d->quantized ? &d->p : NULL, in.data, out.data, n);
    return PL_OK;
}

const pl_registration *pl_abs_registration(void)
{
    static const pl_registration reg = {.name = "ABS", .builtin_code = 101, .prepare = prepare,
                                        .invoke = invoke, .user_data_size = sizeof(op_data)};
    return &reg;
}
