/* concatenation.c - CONCATENATION along one axis (TFLite concatenation.cc).
**
** A byte copy for every supported type. TFLite's own restrictions are kept rather than
** silently extended: the fused activation must be NONE, int8 inputs must share the output's
** scale and zero point (TFLite rescales only uint8), int16 zero points must be 0. */
#include "concatenation.h"

#include <stdbool.h>
#include <string.h>

#include "kernels/common/fixedpoint.h"
#include "picolite/pl_node_io.h"

enum { OP_CONCATENATION = 2 };

typedef pl_join_split_op opdata;

void pl_concatenation_copy(const void *const *data, const size_t *run, uint32_t n,
                           size_t outer, void *out)
{
    uint8_t *dst = out;
    for (size_t o = 0; o < outer; o++) {
        for (uint32_t k = 0; k < n; k++) {
            memcpy(dst, (const uint8_t *)data[k] + o * run[k], run[k]);
            dst += run[k];
        }
    }
}

static pl_status check_quant(pl_context *ctx, const pl_tensor *t, const pl_tensor *out)
{
    if (t->type == PL_INT8 || t->type == PL_UINT8) {
        if (t->q.count == 0 || out->q.count == 0 || t->q.scale[0] != out->q.scale[0] ||
            t->q.zero_point[0] != out->q.zero_point[0])
            return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s input tensor %d is quantized "
                             "unlike the output (TFLite does not rescale here)",
                             pl_type_name(t->type), (int)t->index);
    }
    if (t->type == PL_INT16 && ((t->q.count > 0 && t->q.zero_point[0] != 0) ||
                                (out->q.count > 0 && out->q.zero_point[0] != 0)))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "INT16 zero points must be 0");
    return PL_OK;
}

static pl_status check_input(pl_context *ctx, const pl_tensor *t, const pl_tensor *out,
                             int32_t axis, int64_t *sum)
{
    if (t->type != out->type)
        return ctx->fail(ctx, PL_ERR_MODEL, "input tensor %d is %s, output %s",
                         (int)t->index, pl_type_name(t->type), pl_type_name(out->type));
    if (t->ndims != out->ndims)
        return ctx->fail(ctx, PL_ERR_MODEL, "input tensor %d has rank %d, output %d",
                         (int)t->index, (int)t->ndims, (int)out->ndims);
    for (int32_t d = 0; d < t->ndims; d++) {
        if (d != axis && t->dims[d] != out->dims[d])
            return ctx->fail(ctx, PL_ERR_MODEL, "input tensor %d: dim %d is %d, output %d",
                             (int)t->index, (int)d, (int)t->dims[d], (int)out->dims[d]);
    }
    *sum += t->dims[axis];
    return check_quant(ctx, t, out);
}

static bool supported(pl_type t)
{
    return t == PL_FLOAT32 || t == PL_INT8 || t == PL_INT16 || t == PL_INT32 ||
           t == PL_INT64 || t == PL_UINT8 || t == PL_BOOL;
}

/* The output is input 0's shape with the axis dim summed over the inputs, as TFLite's
** Prepare resizes it (the axis counts in input 0's rank). */
static pl_status set_output(pl_context *ctx, const pl_node *node, int32_t axis, int32_t *at,
                            pl_tensor *out)
{
    pl_tensor t;
    int32_t dims[PL_MAX_DIMS], rank = 0;
    int64_t sum = 0;
    for (uint32_t k = 0; k < node->inputs.n; k++) {
        if (pl_node_input(node, k) < 0) /* every input counts: none is optional */
            return ctx->fail(ctx, PL_ERR_MODEL, "input %u is absent", (unsigned)k);
        PL_TRY(pl_node_eval(ctx, node, false, k, &t));
        if (k == 0) {
            rank = t.ndims;
            *at = axis < 0 ? axis + rank : axis;
            if (*at < 0 || *at >= rank)
                return ctx->fail(ctx, PL_ERR_MODEL, "axis %d is out of range for rank %d",
                                 (int)axis, (int)rank);
            memcpy(dims, t.dims, sizeof dims);
        }
        sum += *at < t.ndims ? t.dims[*at] : 0; /* other ranks are refused by check_input */
    }
    if (sum > INT32_MAX)
        return ctx->fail(ctx, PL_ERR_MODEL, "inputs sum to %lld along axis %d", (long long)sum,
                         (int)*at);
    dims[*at] = (int32_t)sum;
    return pl_set_output_shape(ctx, out, rank, dims);
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    PL_TRY(pl_node_check(ctx, node, PL_IO_OPT(1, PL_IO_ANY, 1)));
    if (node->inputs.n > PL_CONCATENATION_MAX_INPUTS)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%u inputs (at most %d)",
                         (unsigned)node->inputs.n, PL_CONCATENATION_MAX_INPUTS);
    pl_tensor *out;
    PL_TRY(pl_node_tensor(ctx, node, true, 0, &out));
    int32_t act = pl_table_i8(&node->options, 1, 0), axis = pl_table_i32(&node->options, 0, 0);
    if (act != PL_ACT_NONE)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "fused activation %d (TFLite allows none)",
                         (int)act);
    if (!supported(out->type))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "type %s is not supported",
                         pl_type_name(out->type));
    PL_TRY(set_output(ctx, node, axis, &d->axis, out));
    int64_t sum = 0;
    for (uint32_t k = 0; k < node->inputs.n; k++) {
        pl_tensor *t;
        PL_TRY(pl_node_tensor(ctx, node, false, k, &t));
        PL_TRY(check_input(ctx, t, out, d->axis, &sum));
    }
    if (sum != out->dims[d->axis])
        return ctx->fail(ctx, PL_ERR_MODEL, "inputs sum to %lld along axis %d, output has %d",
                         (long long)sum, (int)d->axis, (int)out->dims[d->axis]);
    return ctx->fold(ctx, node, false);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const opdata *d = node->user_data;
    const void *data[PL_CONCATENATION_MAX_INPUTS];
    size_t run[PL_CONCATENATION_MAX_INPUTS];
    uint32_t n = node->inputs.n;
    pl_tensor t;
    PL_TRY(pl_node_evals(ctx, node, 0, 1, &t));
    size_t outer = 1, esize = pl_type_size(t.type);
    for (int32_t k = 0; k < d->axis; k++)
        outer *= (size_t)t.dims[k];
    void *out = t.data;
    for (uint32_t k = 0; k < n; k++) {
        PL_TRY(pl_node_eval(ctx, node, false, k, &t));
        data[k] = t.data;
        /* each input contributes one contiguous run per outer index */
        run[k] = outer == 0 ? 0 : pl_tensor_count(&t) / outer * esize;
    }
    pl_concatenation_copy(data, run, n, outer, out);
    return PL_OK;
}

const pl_registration *pl_concatenation_registration(void)
{
    static const pl_registration r = {.name = "CONCATENATION", .builtin_code = OP_CONCATENATION,
                                      .prepare = prepare, .invoke = invoke,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}
