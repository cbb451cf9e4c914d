/* pack.c - PACK and UNPACK (TFLite pack.cc, unpack.cc) for any fixed-size type.
**
** PACK stacks N equal tensors along a new axis; UNPACK undoes it. Both are the
** concatenation/split copies with one run per tensor per outer index. Quantized int8/int16
** tensors must all share one quantization (TFLite checks the same). */
#include "pack.h"

#include <stdbool.h>

#include "kernels/shape/concatenation.h"
#include "kernels/shape/split.h"
#include "picolite/pl_node_io.h"

enum { OP_PACK = 83, OP_UNPACK = 88 };

typedef pl_join_split_op opdata; /* the axis in the rank of the packed tensor */

static bool same_quant(const pl_tensor *a, const pl_tensor *b)
{
    if (a->type != PL_INT8 && a->type != PL_INT16)
        return true;
    if (a->q.count == 0 || b->q.count == 0)
        return a->q.count == b->q.count;
    return a->q.scale[0] == b->q.scale[0] && a->q.zero_point[0] == b->q.zero_point[0];
}

/* unit (one of the N tensors) must be packed without dim `axis`. */
static pl_status check_unit(pl_context *ctx, const pl_tensor *unit, const pl_tensor *packed,
                            int32_t axis, uint32_t n)
{
    PL_TRY(pl_check_types(ctx, unit, packed, PL_TYPES_FIXED_SIZE));
    if (!same_quant(unit, packed))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "tensor %d is quantized unlike tensor %d",
                         (int)unit->index, (int)packed->index);
    if (unit->ndims + 1 != packed->ndims || packed->dims[axis] != (int32_t)n)
        return ctx->fail(ctx, PL_ERR_MODEL, "tensor %d does not stack %u times into tensor %d",
                         (int)unit->index, (unsigned)n, (int)packed->index);
    for (int32_t d = 0, k = 0; d < packed->ndims; d++) {
        if (d != axis && packed->dims[d] != unit->dims[k++])
            return ctx->fail(ctx, PL_ERR_MODEL, "tensor %d: dim %d is %d, tensor %d has %d",
                             (int)packed->index, (int)d, (int)packed->dims[d],
                             (int)unit->index, (int)unit->dims[k - 1]);
    }
    return PL_OK;
}

/* As TFLite's Prepare resizes them: PACK's output is a unit's shape with n inserted at
** axis (insert), each UNPACK output is the input's shape without axis. */
static pl_status set_shape(pl_context *ctx, pl_tensor *out, const pl_tensor *from,
                           int32_t axis, int32_t n, bool insert)
{
    int32_t dims[PL_MAX_DIMS] = {0};
    int32_t rank = insert ? from->ndims + 1 : from->ndims - 1;
    for (int32_t d = 0, k = 0; d < rank; d++) {
        k += !insert && d == axis ? 1 : 0;
        dims[d] = insert && d == axis ? n : from->dims[k++];
    }
    return pl_set_output_shape(ctx, out, rank, dims);
}

/* Shared by both: the packed side is one tensor, the unit side n tensors. */
static pl_status prepare_common(pl_context *ctx, pl_node *node, bool pack)
{
    opdata *d = node->user_data;
    uint32_t n = pack ? node->inputs.n : node->outputs.n;
    PL_TRY(pl_node_check(ctx, node, pack ? (pl_io_spec){1, PL_IO_ANY, 1, 1, NULL, 0}
                                         : (pl_io_spec){1, 1, 1, PL_IO_ANY, NULL, 0}));
    if (n > PL_SPLIT_MAX_OUTPUTS)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%u tensors to %s (at most %d)", (unsigned)n,
                         pack ? "pack" : "unpack", PL_SPLIT_MAX_OUTPUTS);
    pl_tensor *packed, *unit;
    PL_TRY(pl_node_tensor(ctx, node, pack, 0, &packed)); /* PACK's output, UNPACK's input */
    if (pack)
        PL_TRY(pl_node_tensor(ctx, node, false, 0, &unit));
    int32_t rank = pack ? unit->ndims + 1 : packed->ndims;
    int32_t count = pl_table_i32(&node->options, 0, (int32_t)n);
    int32_t axis = pl_table_i32(&node->options, 1, 0);
    d->axis = axis < 0 ? axis + rank : axis;
    if (count != (int32_t)n || d->axis < 0 || d->axis >= rank || rank > PL_MAX_DIMS ||
        (!pack && packed->dims[d->axis] != (int32_t)n))
        return ctx->fail(ctx, PL_ERR_MODEL, "axis %d / count %d do not fit %u tensors of rank "
                         "%d", (int)axis, (int)count, (unsigned)n, (int)rank - 1);
    if (pack)
        PL_TRY(set_shape(ctx, packed, unit, d->axis, (int32_t)n, true));
    for (uint32_t k = 0; k < n; k++) {
        if (!pack || k > 0) /* PACK's first input is already in hand: no second temp copy */
            PL_TRY(pl_node_tensor(ctx, node, !pack, k, &unit));
        if (!pack)
            PL_TRY(set_shape(ctx, unit, packed, d->axis, 0, false));
        PL_TRY(check_unit(ctx, unit, packed, d->axis, n));
    }
    return pack ? ctx->fold(ctx, node, false) : PL_OK;
}

static pl_status prepare_pack(pl_context *ctx, pl_node *node)
{
    return prepare_common(ctx, node, true);
}

static pl_status prepare_unpack(pl_context *ctx, pl_node *node)
{
    return prepare_common(ctx, node, false);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const opdata *d = node->user_data;
    bool pack = node->builtin_code == OP_PACK;
    pl_vec units = pack ? node->inputs : node->outputs;
    void *ptr[PL_SPLIT_MAX_OUTPUTS];
    size_t run[PL_SPLIT_MAX_OUTPUTS];
    pl_tensor t;
    PL_TRY(pl_node_eval(ctx, node, pack, 0, &t)); /* the packed side */
    void *packed = t.data;
    size_t outer = 1, esize = pl_type_size(t.type);
    for (int32_t k = 0; k < d->axis; k++)
        outer *= (size_t)t.dims[k];
    for (uint32_t k = 0; k < units.n; k++) {
        PL_TRY(pl_node_eval(ctx, node, !pack, k, &t));
        ptr[k] = t.data;
        run[k] = outer == 0 ? 0 : pl_tensor_count(&t) / outer * esize;
    }
    if (pack)
        pl_concatenation_copy((const void *const *)ptr, run, units.n, outer, packed);
    else
        pl_split_copy(packed, outer, units.n, ptr, run);
    return PL_OK;
}

const pl_registration *pl_pack_registration(void)
{
    static const pl_registration r = {.name = "PACK", .builtin_code = OP_PACK,
                                      .prepare = prepare_pack, .invoke = invoke,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}

const pl_registration *pl_unpack_registration(void)
{
    static const pl_registration r = {.name = "UNPACK", .builtin_code = OP_UNPACK,
                                      .prepare = prepare_unpack, .invoke = invoke,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}
