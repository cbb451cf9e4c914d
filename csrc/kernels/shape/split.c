/* split.c - SPLIT and SPLIT_V (TFLite split.cc, split_v.cc) for any fixed-size type.
**
** The axis (and SPLIT_V's size_splits) must be constant; every output shape is checked
** against the model. Invoke copies one contiguous run per output per outer index. */
#include "split.h"
#include "picolite/pl_node_io.h"

#include <stdbool.h>
#include <string.h>

enum { OP_SPLIT = 49, OP_SPLIT_V = 102 };

typedef pl_join_split_op opdata;

void pl_split_copy(const void *in, size_t outer, uint32_t n, void *const *outs,
                   const size_t *run)
{
    const uint8_t *src = in;
    for (size_t o = 0; o < outer; o++) {
        for (uint32_t k = 0; k < n; k++) {
            memcpy((uint8_t *)outs[k] + o * run[k], src, run[k]);
            src += run[k];
        }
    }
}

static pl_status const_scalar(pl_context *ctx, const pl_node *node, uint32_t at, int64_t *v)
{
    pl_tensor *t;
    PL_TRY(pl_node_tensor(ctx, node, false, at, &t));
    if ((t->type != PL_INT32 && t->type != PL_INT64) || pl_tensor_count(t) != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "axis must be one INT32/INT64 value");
    if (!t->is_constant || t->data == NULL)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "axis tensor %d is not constant",
                         (int)t->index);
    const uint8_t *p = t->data;
    *v = t->type == PL_INT64 ? (int64_t)pl_le64(p) : (int32_t)pl_le32(p);
    return PL_OK;
}

/* Output k becomes the input with `size` along axis, as TFLite's Prepare resizes it. */
static pl_status check_output(pl_context *ctx, pl_node *node, uint32_t k, const pl_tensor *in,
                              int32_t axis, int64_t size)
{
    pl_tensor *t;
    int32_t oi = pl_node_output(node, k);
    if (oi < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "output %u is missing", (unsigned)k);
    PL_TRY(pl_node_tensor(ctx, node, true, k, &t));
    if (t->type != in->type)
        return ctx->fail(ctx, PL_ERR_MODEL, "output %u differs from the input in type",
                         (unsigned)k);
    int32_t dims[PL_MAX_DIMS];
    memcpy(dims, in->dims, sizeof dims);
    dims[axis] = (int32_t)size; /* 0..dims[axis], checked by the callers */
    return pl_set_output_shape(ctx, t, in->ndims, dims);
}

static pl_status get_input(pl_context *ctx, pl_node *node, uint32_t at, int64_t axis,
                           pl_tensor **in, int32_t *axis_out)
{
    if (node->outputs.n > PL_SPLIT_MAX_OUTPUTS)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%u outputs (at most %d)",
                         (unsigned)node->outputs.n, PL_SPLIT_MAX_OUTPUTS);
    PL_TRY(pl_node_tensor(ctx, node, false, at, in));
    if (pl_type_size((*in)->type) == 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "type %s is not supported",
                         pl_type_name((*in)->type));
    int64_t a = axis < 0 ? axis + (*in)->ndims : axis;
    if (a < 0 || a >= (*in)->ndims)
        return ctx->fail(ctx, PL_ERR_MODEL, "axis %lld is out of range for rank %d",
                         (long long)axis, (int)(*in)->ndims);
    *axis_out = (int32_t)a;
    return PL_OK;
}

static pl_status prepare_split(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    int64_t axis;
    pl_tensor *in;
    PL_TRY(pl_node_check(ctx, node, ((pl_io_spec){2, 2, 1, PL_IO_ANY, NULL, 0})));
    PL_TRY(const_scalar(ctx, node, 0, &axis));
    PL_TRY(get_input(ctx, node, 1, axis, &in, &d->axis));
    uint32_t n = node->outputs.n;
    int32_t want = pl_table_i32(&node->options, 0, (int32_t)n);
    if (want != (int32_t)n || in->dims[d->axis] % (int32_t)n != 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "cannot split dim %d into %d (%u outputs)",
                         (int)in->dims[d->axis], (int)want, (unsigned)n);
    for (uint32_t k = 0; k < n; k++)
        PL_TRY(check_output(ctx, node, k, in, d->axis, in->dims[d->axis] / (int32_t)n));
    return PL_OK;
}

static pl_status prepare_split_v(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    int64_t axis;
    pl_tensor *in, *sizes;
    PL_TRY(pl_node_check(ctx, node, ((pl_io_spec){3, 3, 1, PL_IO_ANY, NULL, 0})));
    PL_TRY(const_scalar(ctx, node, 2, &axis));
    PL_TRY(get_input(ctx, node, 0, axis, &in, &d->axis));
    PL_TRY(pl_node_tensor(ctx, node, false, 1, &sizes));
    uint32_t n = node->outputs.n;
    if ((sizes->type != PL_INT32 && sizes->type != PL_INT64) || pl_tensor_count(sizes) != n)
        return ctx->fail(ctx, PL_ERR_MODEL, "size_splits must be %u INT32/INT64 values",
                         (unsigned)n);
    if (!sizes->is_constant || sizes->data == NULL)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "size_splits tensor %d is not constant",
                         (int)sizes->index);
    int64_t size[PL_SPLIT_MAX_OUTPUTS], known = 0;
    int32_t stretch = -1;
    const uint8_t *p = sizes->data;
    for (uint32_t k = 0; k < n; k++) {
        size[k] = sizes->type == PL_INT64 ? (int64_t)pl_le64(p + 8 * k)
                                          : (int32_t)pl_le32(p + 4 * k);
        if (size[k] == -1 && stretch < 0)
            stretch = (int32_t)k;
        else if (size[k] < 0 || size[k] > in->dims[d->axis]) /* bounded: the sum is too */
            return ctx->fail(ctx, PL_ERR_MODEL, "size_splits has %lld for a dim of %d",
                             (long long)size[k], (int)in->dims[d->axis]);
        else
            known += size[k];
    }
    if (stretch >= 0)
        size[stretch] = in->dims[d->axis] - known;
    if ((stretch < 0 && known != in->dims[d->axis]) || (stretch >= 0 && size[stretch] < 0))
        return ctx->fail(ctx, PL_ERR_MODEL, "size_splits do not add up to %d",
                         (int)in->dims[d->axis]);
    for (uint32_t k = 0; k < n; k++)
        PL_TRY(check_output(ctx, node, k, in, d->axis, size[k]));
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const opdata *d = node->user_data;
    void *outs[PL_SPLIT_MAX_OUTPUTS];
    size_t run[PL_SPLIT_MAX_OUTPUTS];
    pl_tensor t;
    uint32_t n = node->outputs.n;
    PL_TRY(pl_node_eval(ctx, node, false, node->builtin_code == OP_SPLIT ? 1 : 0, &t));
    const void *in = t.data;
    size_t outer = 1, esize = pl_type_size(t.type);
    for (int32_t k = 0; k < d->axis; k++)
        outer *= (size_t)t.dims[k];
    for (uint32_t k = 0; k < n; k++) {
        PL_TRY(pl_node_eval(ctx, node, true, k, &t));
        outs[k] = t.data;
        run[k] = outer == 0 ? 0 : pl_tensor_count(&t) / outer * esize;
    }
    pl_split_copy(in, outer, n, outs, run);
    return PL_OK;
}

const pl_registration *pl_split_registration(void)
{
    static const pl_registration r = {.name = "SPLIT", .builtin_code = OP_SPLIT,
                                      .prepare = prepare_split, .invoke = invoke,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}

const pl_registration *pl_split_v_registration(void)
{
    static const pl_registration r = {.name = "SPLIT_V", .builtin_code = OP_SPLIT_V,
                                      .prepare = prepare_split_v, .invoke = invoke,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}
