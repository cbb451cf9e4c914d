/* broadcast_to.c - BROADCAST_TO (TFLite broadcast_to.cc) for any fixed-size element type.
**
** The input is right-aligned against the target shape; each of its dims must be 1 (repeated)
** or equal. The shape operand (INT32/INT64) gives the output shape at prepare when constant
** and is checked against the output at invoke otherwise. */
#include "broadcast_to.h"

#include <string.h>

#include "operand.h"
#include "picolite/pl_node_io.h"

enum { OP_BROADCAST_TO = 130 };

typedef struct opdata {
    int32_t ndims;
    int32_t dims[PL_MAX_DIMS];
    PL_SLOTS(size_t, in_step, PL_MAX_DIMS); /* input elements per step of output axis; 0 = repeated */
} opdata;

/* Checks the input against the target shape and fills d. */
static pl_status plan(pl_context *ctx, const pl_tensor *in, int32_t ndims, const int32_t *dims,
                      opdata *d)
{
    if (in->ndims > ndims)
        return ctx->fail(ctx, PL_ERR_MODEL, "BROADCAST_TO: input rank %d is above the target "
                         "rank %d", (int)in->ndims, (int)ndims);
    size_t step = 1;
    d->ndims = ndims;
    for (int32_t o = ndims - 1; o >= 0; o--) {
        int32_t i = o - (ndims - in->ndims), n = i >= 0 ? in->dims[i] : 1;
        if (n != 1 && n != dims[o])
            return ctx->fail(ctx, PL_ERR_MODEL, "BROADCAST_TO: input dim %d (%d) cannot "
                             "broadcast to %d", (int)i, (int)n, (int)dims[o]);
        d->dims[o] = dims[o];
        d->in_step[o] = n == 1 ? 0 : step;
        step *= (size_t)n;
    }
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *in, *shape, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &in, &shape, &out));
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES_FIXED_SIZE));
    if (!pl_operand_known(shape)) {
        PL_TRY(plan(ctx, in, out->ndims, out->dims, d));
        return ctx->set_shape(ctx, oi, out->ndims, out->dims);
    }
    int32_t ndims = 0, dims[PL_MAX_DIMS];
    PL_TRY(pl_operand_shape(ctx, "BROADCAST_TO", shape, &ndims, dims));
    PL_TRY(plan(ctx, in, ndims, dims, d));
    PL_TRY(ctx->set_shape(ctx, oi, ndims, dims));
    return pl_operand_fold(ctx, node);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    pl_tensor in, shape, out;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &in, &shape, &out));
    int32_t ndims = 0, dims[PL_MAX_DIMS];
    PL_TRY(pl_operand_shape(ctx, "BROADCAST_TO", &shape, &ndims, dims));
    PL_TRY(pl_operand_check_out(ctx, "BROADCAST_TO", &out, ndims, dims));
    PL_TRY(plan(ctx, &in, ndims, dims, d));
    size_t esize = pl_type_size(out.type), total = pl_operand_count(ndims, dims), src = 0;
    int32_t at[PL_MAX_DIMS] = {0};
    for (size_t i = 0; i < total; i++) {
        memcpy((uint8_t *)out.data + i * esize, (const uint8_t *)in.data + src * esize, esize);
        for (int32_t a = ndims - 1; a >= 0; a--) {
            src += d->in_step[a];
            if (++at[a] < d->dims[a])
                break;
            src -= d->in_step[a] * (size_t)d->dims[a];
            at[a] = 0;
        }
    }
    return PL_OK;
}

const pl_registration *pl_broadcast_to_registration(void)
{
    static const pl_registration r = {.name = "BROADCAST_TO", .builtin_code = OP_BROADCAST_TO,
                                      .prepare = prepare, .invoke = invoke,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}
