/* select.c - SELECT and SELECT_V2 (see select.h). */
#include "select.h"

#include <string.h>

#include "kernels/common/broadcast.h"
#include "picolite/pl_node_io.h"

enum { OP_SELECT = 64, OP_SELECT_V2 = 123 };

/* The broadcast shape of condition, x and y: right-aligned, a 1 repeats. */
static bool three_way_shape(const pl_tensor *const t[3], int32_t *ndims,
                            int32_t dims[PL_BCAST_MAX_DIMS])
{
    *ndims = 0;
    for (int k = 0; k < 3; k++) {
        if (t[k]->ndims > PL_BCAST_MAX_DIMS)
            return false;
        *ndims = t[k]->ndims > *ndims ? t[k]->ndims : *ndims;
    }
    for (int32_t d = 0; d < PL_BCAST_MAX_DIMS; d++) {
        dims[d] = 1;
        for (int k = 0; k < 3; k++) {
            int32_t n = pl_bcast_dim(t[k], d);
            if (n != 1 && dims[d] != 1 && n != dims[d])
                return false;
            dims[d] = n != 1 ? n : dims[d];
        }
    }
    return true;
}

/* The four tensors, checked for count and types. */
static pl_status get_io(pl_context *ctx, pl_node *node, pl_tensor *t[4])
{
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(3, 1), &t[0], &t[1], &t[2], &t[3]));
    if (t[0]->type != PL_BOOL)
        return ctx->fail(ctx, PL_ERR_MODEL, "condition is %s, needs bool",
                         pl_type_name(t[0]->type));
    if (t[2]->type != t[1]->type || t[3]->type != t[1]->type || pl_type_size(t[1]->type) == 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "x %s, y %s and output %s: needs one type",
                         pl_type_name(t[1]->type), pl_type_name(t[2]->type),
                         pl_type_name(t[3]->type));
    return PL_OK;
}

static bool same_shape(const pl_tensor *a, const pl_tensor *b)
{
    if (a->ndims != b->ndims)
        return false;
    for (int32_t d = 0; d < a->ndims; d++)
        if (a->dims[d] != b->dims[d])
            return false;
    return true;
}

static pl_status prepare_v1(pl_context *ctx, pl_node *node)
{
    pl_tensor *t[4];
    PL_TRY(get_io(ctx, node, t));
    bool rows = t[0]->ndims == 0 ||
                (t[0]->ndims == 1 && t[1]->ndims > 0 && t[0]->dims[0] == t[1]->dims[0]);
    if (!same_shape(t[1], t[2]) || (!same_shape(t[0], t[1]) && !rows))
        return ctx->fail(ctx, PL_ERR_MODEL, "x and y (ranks %d, %d) need one shape, and the "
                         "condition (rank %d) that shape, a scalar or x's first dimension",
                         (int)t[1]->ndims, (int)t[2]->ndims, (int)t[0]->ndims);
    return pl_set_output_shape(ctx, t[3], t[1]->ndims, t[1]->dims);
}

/* Condition element i chooses slice i of x or y (one element each when the shapes match). */
static pl_status invoke_v1(pl_context *ctx, pl_node *node)
{
    pl_tensor t[4];
    PL_TRY(pl_node_evals(ctx, node, 3, 1, &t[0], &t[1], &t[2], &t[3]));
    size_t rows = pl_tensor_count(&t[0]), count = pl_tensor_count(&t[3]);
    if (count == 0)
        return PL_OK;
    if (rows == 0 || count % rows != 0 || pl_tensor_count(&t[1]) != count ||
        pl_tensor_count(&t[2]) != count)
        return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
    const uint8_t *cond = t[0].data;
    size_t bytes = count / rows * pl_type_size(t[3].type);
    const uint8_t *x = t[1].data, *y = t[2].data;
    uint8_t *out = t[3].data;
    for (size_t i = 0; i < rows; i++)
        memcpy(out + i * bytes, (cond[i] ? x : y) + i * bytes, bytes);
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *t[4];
    PL_TRY(get_io(ctx, node, t));
    int32_t ndims, dims[PL_BCAST_MAX_DIMS];
    if (!three_way_shape((const pl_tensor *const *)t, &ndims, dims))
        return ctx->fail(ctx, PL_ERR_MODEL,
                         "condition, x and y (ranks %d, %d, %d) do not broadcast to one "
                         "shape of rank <= %d", (int)t[0]->ndims, (int)t[1]->ndims,
                         (int)t[2]->ndims, PL_BCAST_MAX_DIMS);
    return pl_set_output_shape(ctx, t[3], ndims, dims + (PL_BCAST_MAX_DIMS - ndims));
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor t[4];
    PL_TRY(pl_node_evals(ctx, node, 3, 1, &t[0], &t[1], &t[2], &t[3]));
    int32_t dims[PL_BCAST_MAX_DIMS], at[PL_BCAST_MAX_DIMS] = {0};
    size_t s[3][PL_BCAST_MAX_DIMS], count = 1, pos[3] = {0, 0, 0};
    for (int32_t d = 0; d < PL_BCAST_MAX_DIMS; d++) {
        dims[d] = pl_bcast_dim(&t[3], d);
        count *= (size_t)dims[d];
    }
    for (int k = 0; k < 3; k++) {
        for (int32_t d = 0; d < PL_BCAST_MAX_DIMS; d++) {
            int32_t n = pl_bcast_dim(&t[k], d);
            if (n != 1 && n != dims[d])
                return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
        }
        pl_bcast_strides(&t[k], dims, s[k]);
    }
    const uint8_t *cond = t[0].data, *x = t[1].data, *y = t[2].data;
    uint8_t *out = t[3].data;
    size_t size = pl_type_size(t[3].type);
    for (size_t i = 0; i < count; i++) {
        const uint8_t *src = cond[pos[0]] ? x + pos[1] * size : y + pos[2] * size;
        memcpy(out + i * size, src, size);
        for (int32_t d = PL_BCAST_MAX_DIMS - 1; d >= 0; d--) {
            for (int k = 0; k < 3; k++)
                pos[k] += s[k][d];
            if (++at[d] < dims[d])
                break;
            for (int k = 0; k < 3; k++)
                pos[k] -= s[k][d] * (size_t)dims[d];
            at[d] = 0;
        }
    }
    return PL_OK;
}

const pl_registration *pl_select_registration(void)
{
    static const pl_registration r = {.name = "SELECT", .builtin_code = OP_SELECT,
                                      .prepare = prepare_v1, .invoke = invoke_v1};
    return &r;
}

const pl_registration *pl_select_v2_registration(void)
{
    static const pl_registration r = {.name = "SELECT_V2", .builtin_code = OP_SELECT_V2,
                                      .prepare = prepare, .invoke = invoke};
    return &r;
}
