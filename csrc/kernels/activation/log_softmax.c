/* log_softmax.c - LOG_SOFTMAX (see log_softmax.h). */
#include "log_softmax.h"

#include <float.h>
#include <math.h>

#include "kernels/elementwise/binary.h"

enum { OP_LOG_SOFTMAX = 50 };

void pl_log_softmax_f32(const float *in, float *out, size_t depth)
{
    float max = -FLT_MAX;
    for (size_t c = 0; c < depth; c++)
        max = in[c] > max ? in[c] : max;
    float sum = 0.0f;
    for (size_t c = 0; c < depth; c++)
        sum += expf(in[c] - max);
    float log_sum = logf(sum);
    for (size_t c = 0; c < depth; c++)
        out[c] = in[c] - max - log_sum;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *out;
    PL_TRY(pl_unary_prepare(ctx, node, &in, &out));
    if (in->type != PL_FLOAT32 || out->type != PL_FLOAT32)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "input %s, output %s is not supported",
                         pl_type_name(in->type), pl_type_name(out->type));
    if (in->ndims < 1 || in->dims[in->ndims - 1] < 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "needs a non-empty last dim");
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor in, out;
    size_t n;
    PL_TRY(pl_unary_eval(ctx, node, &in, &out, &n));
    if (in.ndims < 1 || in.dims[in.ndims - 1] < 1)
        return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
    size_t depth = (size_t)in.dims[in.ndims - 1];
    for (size_t r = 0; r < n / depth; r++)
        pl_log_softmax_f32((const float *)in.data + r * depth, (float *)out.data + r * depth,
                           depth);
    return PL_OK;
}

const pl_registration *pl_log_softmax_registration(void)
{
    static const pl_registration r = {"LOG_SOFTMAX", OP_LOG_SOFTMAX, NULL, NULL, prepare,
                                      invoke, NULL};
    return &r;
}
