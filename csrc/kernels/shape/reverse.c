/* reverse.c - REVERSE_V2 (TFLite reverse.cc) for any fixed-size element type.
**
** axis is a constant INT32 vector of distinct axes (negative counts from the end). TFLite
** accepts only a contiguous run of axes; reversing each listed axis is the same result
** there and the op's definition elsewhere, so any set is accepted. */
#include "reverse.h"
#include "picolite/pl_node_io.h"

#include <stdbool.h>
#include <string.h>

enum { OP_REVERSE_V2 = 105 };

typedef struct opdata {
    bool flip[PL_MAX_DIMS];
} opdata;

static pl_status read_axes(pl_context *ctx, const pl_tensor *axis, int32_t ndims, opdata *d)
{
    if (axis->type != PL_INT32 || axis->ndims != 1 || axis->data == NULL)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "REVERSE_V2: axis must be a constant 1-D "
                         "INT32 tensor (got %s of rank %d%s)", pl_type_name(axis->type),
                         (int)axis->ndims, axis->data == NULL ? ", not constant" : "");
    pl_vec v = {axis->data, (uint32_t)axis->dims[0]};
    for (uint32_t k = 0; k < v.n; k++) {
        int32_t a = pl_vec_i32(v, k), r = a < 0 ? a + ndims : a;
        if (r < 0 || r >= ndims || d->flip[r])
            return ctx->fail(ctx, PL_ERR_MODEL, "REVERSE_V2: axis %d is out of range or "
                             "repeated for rank %d", (int)a, (int)ndims);
        d->flip[r] = true;
    }
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *in, *axis, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &in, &axis, &out));
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES_FIXED_SIZE));
    memset(d->flip, 0, sizeof d->flip);
    PL_TRY(read_axes(ctx, axis, in->ndims, d));
    return ctx->set_shape(ctx, oi, in->ndims, in->dims);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const opdata *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    size_t esize = pl_type_size(in.type), total = pl_tensor_count(&in);
    size_t stride[PL_MAX_DIMS], s = 1;
    for (int32_t a = in.ndims - 1; a >= 0; a--) {
        stride[a] = s;
        s *= (size_t)in.dims[a];
    }
    int32_t at[PL_MAX_DIMS] = {0};
    for (size_t i = 0; i < total; i++) {
        size_t src = 0;
        for (int32_t a = 0; a < in.ndims; a++)
            src += stride[a] * (size_t)(d->flip[a] ? in.dims[a] - 1 - at[a] : at[a]);
        memcpy((uint8_t *)out.data + i * esize, (const uint8_t *)in.data + src * esize, esize);
        for (int32_t a = in.ndims - 1; a >= 0; a--) {
            if (++at[a] < in.dims[a])
                break;
            at[a] = 0;
        }
    }
    return PL_OK;
}

const pl_registration *pl_reverse_v2_registration(void)
{
    static const pl_registration r = {.name = "REVERSE_V2", .builtin_code = OP_REVERSE_V2,
                                      .prepare = prepare, .invoke = invoke,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}
