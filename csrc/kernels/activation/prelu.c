/* prelu.c - PRELU (see prelu.h). */
#include "prelu.h"

#include <stdbool.h>

#include "kernels/activation/activations.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/registry.h"
#include "picolite/pl_node_io.h"

enum { PRELU_CODE = 54 };

/* The broadcast walk is rebuilt from the eval dims at each invoke (a few dozen operations)
** rather than kept in the arena. */
typedef struct opdata {
    pl_prelu_params p;
} opdata;

void pl_prelu_f32(const pl_bcast *bc, const float *in, const float *alpha, float *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = pl_prelu_f32_one(in[it.i1], alpha[it.i2]);
}

static int32_t prelu_one(const pl_prelu_params *p, int32_t x, int32_t alpha)
{
    int32_t v = p->input_offset + x, r;
    if (v >= 0)
        r = pl_fx_mul_by_qm(v, p->multiplier_1, p->shift_1);
    else
        r = pl_fx_mul_by_qm(v * (p->alpha_offset + alpha), p->multiplier_2, p->shift_2);
    return r + p->output_offset;
}

void pl_prelu_s8(const pl_prelu_params *p, const pl_bcast *bc, const int8_t *in,
                 const int8_t *alpha, int8_t *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = (int8_t)pl_fx_clamp(prelu_one(p, in[it.i1], alpha[it.i2]), INT8_MIN, INT8_MAX);
}

void pl_prelu_u8(const pl_prelu_params *p, const pl_bcast *bc, const uint8_t *in,
                 const uint8_t *alpha, uint8_t *out)
{
    pl_bcast_iter it;
    pl_bcast_begin(&it);
    for (size_t i = 0; i < bc->count; i++, pl_bcast_next(bc, &it))
        out[i] = (uint8_t)pl_fx_clamp(prelu_one(p, in[it.i1], alpha[it.i2]), 0, UINT8_MAX);
}

static pl_status prepare_s8(pl_context *ctx, opdata *d, const pl_tensor *in,
                            const pl_tensor *alpha, const pl_tensor *out)
{
    pl_act_q iq, aq, oq;
    PL_TRY(pl_act_quant(ctx, in, &iq));
    PL_TRY(pl_act_quant(ctx, alpha, &aq));
    PL_TRY(pl_act_quant(ctx, out, &oq));
    /* float quotients as LiteRT, double ones as TFLM (every release) */
    bool wide = ctx->arith != PL_ARITH_LITERT;
    double real_2 = pl_fx_ratio3(iq.scale, aq.scale, oq.scale, wide);
    pl_fx_quantize_multiplier(pl_fx_ratio(iq.scale, oq.scale, wide), &d->p.multiplier_1,
                              &d->p.shift_1);
    pl_fx_quantize_multiplier(real_2, &d->p.multiplier_2, &d->p.shift_2);
    d->p.input_offset = -iq.zero_point;
    d->p.alpha_offset = -aq.zero_point;
    d->p.output_offset = oq.zero_point;
    return PL_OK;
}

static bool same_shape(const pl_tensor *a, const pl_tensor *b)
{
    bool same = a->ndims == b->ndims;
    for (int32_t i = 0; same && i < a->ndims; i++)
        same = a->dims[i] == b->dims[i];
    return same;
}

static pl_status prelu_prepare(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    pl_tensor *in, *alpha, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &in, &alpha, &out));
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES3(PL_FLOAT32, PL_INT8, PL_UINT8)));
    if (alpha->type != in->type)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "input 1 is %s, expected %s (input 0's type)",
                         pl_type_name(alpha->type), pl_type_name(in->type));
    PL_TRY(pl_bcast_set_output(ctx, in, alpha, out));
    if (!pl_bcast_matches(in, alpha, out) || !same_shape(in, out))
        return ctx->fail(ctx, PL_ERR_MODEL,
                         "PRELU: alpha does not broadcast to the input shape, or the output "
                         "shape differs from the input's");
    return in->type == PL_FLOAT32 ? PL_OK : prepare_s8(ctx, d, in, alpha, out);
}

static pl_status prelu_invoke(pl_context *ctx, pl_node *node)
{
    const opdata *d = node->user_data;
    pl_tensor in, alpha, out;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &in, &alpha, &out));
    pl_bcast bc;
    pl_bcast_init(&bc, &in, &alpha, &out);
    if (in.type == PL_FLOAT32)
        pl_prelu_f32(&bc, in.data, alpha.data, out.data);
    else if (in.type == PL_UINT8)
        pl_prelu_u8(&d->p, &bc, in.data, alpha.data, out.data);
    else
        pl_prelu_s8(&d->p, &bc, in.data, alpha.data, out.data);
    return PL_OK;
}

const pl_registration *pl_prelu_registration(void)
{
    static const pl_registration reg = {.name = "PRELU", .builtin_code = PRELU_CODE,
                                        .prepare = prelu_prepare, .invoke = prelu_invoke,
                                        .user_data_size = sizeof(opdata)};
    return &reg;
}
