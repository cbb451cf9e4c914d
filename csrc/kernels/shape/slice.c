/* slice.c - SLICE (TFLite slice.cc) for any fixed-size element type and rank.
**
** begin and size are INT32 or INT64 vectors of the input's rank; size -1 takes the rest of
** the dim. When they are constants the output shape is computed at prepare (and must match
** an output shape signature the model fully specifies, as TFLite checks); otherwise they
** are read at invoke, checked against the input and the output's shape, and only then used. */
#include "slice.h"

#include <string.h>

#include "operand.h"
#include "picolite/pl_node_io.h"

enum { OP_SLICE = 65 };

typedef pl_slice_op opdata;

void pl_slice_box(int32_t ndims, const int32_t *big_dims, const int32_t *begin,
                  const int32_t *box_dims, size_t esize, void *big, void *box, bool to_big)
{
    size_t rows = 1, row = esize;
    for (int32_t d = 0; d < ndims; d++) {
        if (box_dims[d] == 0)
            return;
        if (d + 1 < ndims)
            rows *= (size_t)box_dims[d];
    }
    if (ndims > 0)
        row *= (size_t)box_dims[ndims - 1];
    int32_t at[PL_MAX_DIMS] = {0};
    for (size_t r = 0; r < rows; r++) {
        size_t off = 0; /* big-tensor element offset of box row `at` */
        for (int32_t d = 0; d < ndims; d++)
            off = off * (size_t)big_dims[d] + (size_t)(at[d] + begin[d]);
        uint8_t *b = (uint8_t *)big + off * esize, *x = (uint8_t *)box + r * row;
        memcpy(to_big ? b : x, to_big ? x : b, row);
        for (int32_t d = ndims - 2; d >= 0; d--) {
            if (++at[d] < box_dims[d])
                break;
            at[d] = 0;
        }
    }
}

/* Resolves begin/size (data present) against the input dims. */
static pl_status resolve(pl_context *ctx, const pl_tensor *in, const pl_tensor *begin,
                         const pl_tensor *size, opdata *d)
{
    for (int32_t i = 0; i < in->ndims; i++) {
        int64_t b = pl_operand_at(begin, (size_t)i), s = pl_operand_at(size, (size_t)i);
        int64_t dim = in->dims[i];
        if (s == -1)
            s = dim - b;
        if (b < 0 || b > dim || s < 0 || s > dim - b)
            return ctx->fail(ctx, PL_ERR_MODEL, "SLICE: dim %d: begin %lld size %lld is outside "
                             "0..%lld", (int)i, (long long)pl_operand_at(begin, (size_t)i),
                             (long long)pl_operand_at(size, (size_t)i), (long long)dim);
        d->begin[i] = (int32_t)b;
        d->size[i] = (int32_t)s;
    }
    return PL_OK;
}

/* TFLite's SLICE keeps an output whose shape signature the model fully specifies (no -1)
** and refuses a slice of another shape (an input resized past what begin and size were
** written for). */
static pl_status check_fixed(pl_context *ctx, int32_t output, int32_t ndims,
                             const int32_t *dims)
{
    int32_t sn, sig[PL_MAX_DIMS];
    PL_TRY(ctx->shape_signature(ctx, output, &sn, sig));
    for (int32_t i = 0; i < sn; i++)
        if (sig[i] < 0)
            return PL_OK; /* a dim left open: the output takes the slice's shape */
    if (sn == 0)
        return PL_OK; /* TFLite resizes a scalar-declared output too */
    if (sn != ndims)
        return ctx->fail(ctx, PL_ERR_MODEL, "SLICE: the slice has rank %d, the model fixes the "
                         "output at rank %d", (int)ndims, (int)sn);
    for (int32_t i = 0; i < sn; i++)
        if (dims[i] != sig[i])
            return ctx->fail(ctx, PL_ERR_MODEL, "SLICE: dim %d of the slice is %d, the model "
                             "fixes the output at %d (begin and size were written for another "
                             "input shape)", (int)i, (int)dims[i], (int)sig[i]);
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *in, *begin, *size, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(3, 1), &in, &begin, &size, &out));
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES_FIXED_SIZE));
    if (!pl_operand_is_index(begin->type) || size->type != begin->type ||
        begin->ndims != 1 || size->ndims != 1 || begin->dims[0] != in->ndims ||
        size->dims[0] != in->ndims)
        return ctx->fail(ctx, PL_ERR_MODEL, "SLICE: begin and size must be INT32 or INT64 "
                         "vectors of %d entries (got %s[%d], %s[%d])", (int)in->ndims,
                         pl_type_name(begin->type), begin->ndims > 0 ? (int)begin->dims[0] : 0,
                         pl_type_name(size->type), size->ndims > 0 ? (int)size->dims[0] : 0);
    d->ready = pl_operand_known(begin) && pl_operand_known(size);
    if (!d->ready)
        return ctx->set_shape(ctx, oi, out->ndims, out->dims);
    PL_TRY(resolve(ctx, in, begin, size, d));
    PL_TRY(check_fixed(ctx, oi, in->ndims, d->size));
    PL_TRY(ctx->set_shape(ctx, oi, in->ndims, d->size));
    return pl_operand_fold(ctx, node);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    pl_tensor in, begin, size, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    if (!d->ready) {
        PL_TRY(pl_node_eval(ctx, node, false, 1, &begin));
        PL_TRY(pl_node_eval(ctx, node, false, 2, &size));
        PL_TRY(resolve(ctx, &in, &begin, &size, d));
    }
    PL_TRY(pl_operand_check_out(ctx, "SLICE", &out, in.ndims, d->size));
    pl_slice_box(in.ndims, in.dims, d->begin, d->size, pl_type_size(in.type), in.data,
                 out.data, false);
    return PL_OK;
}

const pl_registration *pl_slice_registration(void)
{
    static const pl_registration r = {.name = "SLICE", .builtin_code = OP_SLICE,
                                      .prepare = prepare, .invoke = invoke,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}
