/* conv_params.c - quantized parameters and bias checks shared by the conv-like kernels. */
#include "conv_params.h"

#include "kernels/common/fixedpoint.h"
#include "kernels/common/padding.h"
#include "picolite/pl_node_io.h"

static pl_status check_scales(pl_context *ctx, const pl_convq_names *n, const pl_tensor *in,
                              const pl_tensor *f, const pl_tensor *out, int32_t channels,
                              int32_t qdim, bool tensor_zp_ok)
{
    if (in->q.count != 1 || out->q.count != 1 || f->q.count == 0 ||
        (f->q.count != 1 && (f->q.count != (uint32_t)channels ||
                             f->q.quantized_dimension != qdim)))
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: quantization must be per-tensor for "
                         "input/output and per-tensor or %s (dimension %d) for the %s (got "
                         "%u, %u, %u scales)", n->op, n->per, qdim, n->filter, in->q.count,
                         out->q.count, f->q.count);
    /* a per-tensor filter zero point is an offset some ops (FULLY_CONNECTED) apply */
    bool check_zp = f->q.count > 1 || !tensor_zp_ok;
    for (uint32_t i = 0; check_zp && i < f->q.count; i++) {
        if (f->q.zero_point[i] != 0)
            return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: %s zero point %lld (%s %u) is "
                             "not 0", n->op, n->zp_filter, (long long)f->q.zero_point[i],
                             n->channel, i);
    }
    if (in->type == PL_INT16 && (in->q.zero_point[0] != 0 || out->q.zero_point[0] != 0))
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: int16 zero points must be 0", n->op);
    return PL_OK;
}

pl_status pl_convq_prepare(pl_context *ctx, const pl_convq_names *names, const pl_tensor *in,
                           const pl_tensor *f, const pl_tensor *out, int32_t activation,
                           int32_t channels, int32_t qdim, bool tensor_zp_ok, pl_convq *q)
{
    PL_TRY(check_scales(ctx, names, in, f, out, channels, qdim, tensor_zp_ok));
    q->input_offset = -(int32_t)in->q.zero_point[0];
    q->output_offset = (int32_t)out->q.zero_point[0];
    q->multiplier = NULL;
    q->shift = NULL;
    int32_t qmin = in->type == PL_INT8 ? INT8_MIN : INT16_MIN;
    int32_t qmax = in->type == PL_INT8 ? INT8_MAX : INT16_MAX;
    if (pl_fx_activation_range_q(activation, out->q.scale[0], q->output_offset, qmin, qmax,
                                 &q->act_min, &q->act_max) != PL_OK)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: output scale %g gives no activation range",
                         names->op, (double)out->q.scale[0]);
    return PL_OK;
}

pl_status pl_convq_per_channel(pl_context *ctx, const pl_convq_names *names,
                               const pl_tensor *in, const pl_tensor *f, const pl_tensor *out,
                               int32_t activation, int32_t channels, int32_t qdim,
                               pl_convq *q)
{
    PL_TRY(pl_convq_prepare(ctx, names, in, f, out, activation, channels, qdim, false, q));
    size_t bytes = sizeof(int32_t) * (size_t)channels;
    PL_TRY(ctx->alloc_persistent(ctx, bytes, (void **)&q->multiplier));
    PL_TRY(ctx->alloc_persistent(ctx, bytes, (void **)&q->shift));
    pl_fx_channel_multipliers(in->q.scale[0], f->q.scale, f->q.count, out->q.scale[0],
                              channels, q->multiplier, q->shift);
    return PL_OK;
}

bool pl_convq_bias_type_ok(pl_type in, const pl_tensor *bias, bool s16_bias32)
{
    if (bias == NULL)
        return true;
    if (in == PL_FLOAT32)
        return bias->type == PL_FLOAT32;
    if (in == PL_INT8)
        return bias->type == PL_INT32;
    return bias->type == PL_INT64 || (s16_bias32 && bias->type == PL_INT32);
}

pl_status pl_convq_bias(pl_context *ctx, const pl_node *node, uint32_t k, pl_tensor *view,
                        pl_tensor **bias)
{
    *bias = NULL;
    if (pl_node_input(node, k) < 0)
        return PL_OK;
    PL_TRY(pl_node_eval(ctx, node, false, k, view));
    *bias = view;
    return PL_OK;
}

pl_status pl_convq_bias_count(pl_context *ctx, const pl_convq_names *names,
                              const pl_tensor *bias, int32_t channels)
{
    if (bias != NULL && pl_tensor_count(bias) != (size_t)channels)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: bias has %zu elements for %d %ss", names->op,
                         pl_tensor_count(bias), channels, names->channel);
    return PL_OK;
}

pl_status pl_convq_set_output(pl_context *ctx, const pl_convq_names *names,
                              const pl_tensor *in, int32_t channels, int32_t oh, int32_t ow,
                              pl_tensor *out)
{
    if (oh < 0 || ow < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: the %s window does not fit a %dx%d input",
                         names->op, names->filter, in->dims[1], in->dims[2]);
    int32_t shape[4] = {in->dims[0], oh, ow, channels};
    return pl_set_output_shape(ctx, out, 4, shape);
}

pl_status pl_convq_io_get(pl_context *ctx, const pl_node *node, const pl_convq_names *names,
                          pl_convq_io *io)
{
    const char *roles = names->filter[0] == 'w' ? "input, weights, optional bias"
                                                : "input, filter, optional bias";
    PL_TRY(pl_node_check(ctx, node, PL_IO_NAMED(2, 3, 1, roles)));
    PL_TRY(pl_node_tensor(ctx, node, false, 0, &io->in));
    PL_TRY(pl_node_tensor(ctx, node, false, 1, &io->f));
    PL_TRY(pl_convq_bias(ctx, node, 2, &io->bias_view, &io->bias));
    return pl_node_tensor(ctx, node, true, 0, &io->out);
}

pl_status pl_convq_check_activation(pl_context *ctx, const pl_convq_names *names,
                                    int32_t activation)
{
    if (activation > PL_ACT_RELU6 || activation < 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: fused activation %d is not supported",
                         names->op, activation);
    return PL_OK;
}

pl_status pl_convq_check_window(pl_context *ctx, const pl_convq_names *names, int32_t padding,
                                int32_t stride_h, int32_t stride_w, int32_t dilation_h,
                                int32_t dilation_w)
{
    /* The bound keeps every window index product inside int32 (fuzzer: huge strides). */
    const int32_t most = 1 << 16;
    if (stride_w <= 0 || stride_h <= 0 || dilation_w <= 0 || dilation_h <= 0 ||
        stride_w > most || stride_h > most || dilation_w > most || dilation_h > most)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: strides %d,%d and dilations %d,%d must be "
                         "in 1..65536", names->op, stride_h, stride_w, dilation_h, dilation_w);
    if (padding != PL_PADDING_SAME && padding != PL_PADDING_VALID)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: unknown padding %d", names->op, padding);
    return PL_OK;
}
