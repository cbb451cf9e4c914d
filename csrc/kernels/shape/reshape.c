/* reshape.c - RESHAPE, SQUEEZE, EXPAND_DIMS: the bytes stay, only the shape changes.
**
** Prepare computes the output shape from the op's parameters as TFLite's reshape.cc,
** squeeze.cc and expand_dims.cc do and gives it through set_shape. Shape-giving inputs must
** be known at prepare (constants, or values computed at prepare: see pl_kernel.h), except
** RESHAPE's shape input: one computed at run time leaves the model's output shape standing,
** as TFLM does. Invoke copies unless the planner put input and output on the same bytes. */
#include "reshape.h"
#include "picolite/pl_node_io.h"

#include <stdbool.h>
#include <string.h>

enum { OP_RESHAPE = 22, OP_SQUEEZE = 43, OP_EXPAND_DIMS = 70 };

/* A shape under construction. */
typedef struct shape {
    int32_t n;
    int32_t d[PL_MAX_DIMS];
} shape;

/* Integer element i of a constant int32/int64 tensor. */
static int64_t const_int(const pl_tensor *t, size_t i)
{
    const uint8_t *p = t->data;
    if (t->type == PL_INT64)
        return (int64_t)pl_le64(p + 8 * i);
    return (int32_t)pl_le32(p + 4 * i);
}

static pl_status need_const_int(pl_context *ctx, const pl_tensor *t, const char *what)
{
    if (t->type != PL_INT32 && t->type != PL_INT64)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s tensor must be INT32 or INT64, not %s", what,
                         pl_type_name(t->type));
    if (!t->is_constant || t->data == NULL)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s tensor %d is not constant", what,
                         (int)t->index);
    return PL_OK;
}

static pl_status io(pl_context *ctx, pl_node *node, uint32_t min_in, uint32_t max_in,
                    pl_tensor **in, pl_tensor **out)
{
    PL_TRY(pl_node_check(ctx, node, PL_IO_OPT((uint8_t)min_in, (uint8_t)max_in, 1)));
    PL_TRY(pl_node_tensor(ctx, node, false, 0, in));
    PL_TRY(pl_node_tensor(ctx, node, true, 0, out));
    if ((*in)->type != (*out)->type)
        return ctx->fail(ctx, PL_ERR_MODEL, "input type %s differs from output type %s",
                         pl_type_name((*in)->type), pl_type_name((*out)->type));
    if (pl_type_size((*in)->type) == 0 && (*in)->type != PL_STRING)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "type %s is not supported",
                         pl_type_name((*in)->type));
    return PL_OK;
}

/* The output takes shape s; the element count must stay. */
static pl_status set_shape(pl_context *ctx, const shape *s, const pl_tensor *in,
                           pl_tensor *out)
{
    PL_TRY(pl_set_output_shape(ctx, out, s->n, s->d));
    if (pl_tensor_count(in) != pl_tensor_count(out))
        return ctx->fail(ctx, PL_ERR_MODEL, "input has %zu elements, output %zu",
                         pl_tensor_count(in), pl_tensor_count(out));
    return PL_OK;
}

/* Fills a -1 entry so the element count matches (TFLite's reshape rule). */
static pl_status resolve_stretch(pl_context *ctx, shape *s, size_t count)
{
    int32_t stretch = -1;
    size_t known = 1;
    for (int32_t i = 0; i < s->n; i++) {
        if (s->d[i] == -1) {
            if (stretch >= 0)
                return ctx->fail(ctx, PL_ERR_MODEL, "new shape has more than one -1");
            stretch = i;
        } else if (s->d[i] < 0) {
            return ctx->fail(ctx, PL_ERR_MODEL, "new shape has dim %d", (int)s->d[i]);
        } else {
            known *= (size_t)s->d[i];
        }
    }
    if (stretch >= 0)
        s->d[stretch] = known == 0 ? 0 : (int32_t)(count / known);
    return PL_OK;
}

/* RESHAPE's new shape: a 1-D int32 shape input if present, else the new_shape option.
** *known is false when there is none to read (the model's output shape stands). */
static pl_status reshape_target(pl_context *ctx, pl_node *node, bool *known, shape *s)
{
    pl_tensor *st = NULL;
    int32_t si = pl_node_input(node, 1);
    if (si >= 0)
        PL_TRY(pl_node_tensor(ctx, node, false, 1, &st));
    *known = true;
    if (st != NULL && st->ndims == 1 && st->type == PL_INT32) {
        *known = st->is_constant && st->data != NULL;
        if (!*known)
            return PL_OK;
        if (st->dims[0] > PL_MAX_DIMS)
            return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "rank %d", (int)st->dims[0]);
        s->n = st->dims[0];
        for (int32_t i = 0; i < s->n; i++)
            s->d[i] = (int32_t)const_int(st, (size_t)i);
        return PL_OK;
    }
    pl_vec v = pl_table_vec(&node->options, 0, 4);
    if (v.n > PL_MAX_DIMS)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "rank %u", (unsigned)v.n);
    /* no usable shape at all: the model's output shape stands (element count checked) */
    *known = v.n > 0 || node->options.buf != NULL;
    s->n = (int32_t)v.n;
    for (uint32_t i = 0; i < v.n; i++)
        s->d[i] = pl_vec_i32(v, i);
    if (s->n == 1 && s->d[0] == 0) /* legacy models write [0] for a scalar */
        s->n = 0;
    return PL_OK;
}

static pl_status prepare_reshape(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *out;
    PL_TRY(io(ctx, node, 1, 2, &in, &out));
    shape s = {0};
    bool known;
    PL_TRY(reshape_target(ctx, node, &known, &s));
    if (!known) {
        s.n = out->ndims;
        memcpy(s.d, out->dims, sizeof s.d);
    }
    PL_TRY(resolve_stretch(ctx, &s, pl_tensor_count(in)));
    return set_shape(ctx, &s, in, out);
}

static pl_status prepare_squeeze(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *out;
    PL_TRY(io(ctx, node, 1, 1, &in, &out));
    pl_vec v = pl_table_vec(&node->options, 0, 4);
    bool drop[PL_MAX_DIMS] = {false};
    for (uint32_t k = 0; k < v.n; k++) {
        int32_t a = pl_vec_i32(v, k);
        a = a < 0 ? a + in->ndims : a;
        if (a < 0 || a >= in->ndims || in->dims[a] != 1)
            return ctx->fail(ctx, PL_ERR_MODEL, "cannot squeeze dim %d",
                             (int)pl_vec_i32(v, k));
        drop[a] = true;
    }
    shape s = {0, {0}};
    for (int32_t i = 0; i < in->ndims; i++) {
        if (!(v.n == 0 ? in->dims[i] == 1 : drop[i]))
            s.d[s.n++] = in->dims[i];
    }
    return set_shape(ctx, &s, in, out);
}

static pl_status prepare_expand_dims(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *out, *at;
    PL_TRY(io(ctx, node, 2, 2, &in, &out));
    int32_t ai = pl_node_input(node, 1);
    if (ai < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "axis input is missing");
    PL_TRY(pl_node_tensor(ctx, node, false, 1, &at));
    PL_TRY(need_const_int(ctx, at, "axis"));
    if (pl_tensor_count(at) != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "axis has %zu elements", pl_tensor_count(at));
    int64_t axis = const_int(at, 0);
    axis = axis < 0 ? axis + in->ndims + 1 : axis;
    if (axis < 0 || axis > in->ndims || in->ndims >= PL_MAX_DIMS)
        return ctx->fail(ctx, PL_ERR_MODEL, "axis %lld is out of range for rank %d",
                         (long long)const_int(at, 0), (int)in->ndims);
    shape s = {in->ndims + 1, {0}};
    for (int32_t i = 0, k = 0; i < s.n; i++)
        s.d[i] = i == axis ? 1 : in->dims[k++];
    return set_shape(ctx, &s, in, out);
}

/* The data move shared by all three ops. */
static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    /* a string buffer moves whole: its layout does not depend on the shape */
    size_t bytes = in.type == PL_STRING ? in.bytes : pl_tensor_count(&in) * pl_type_size(in.type);
    if (bytes > out.bytes)
        return ctx->fail(ctx, PL_ERR_ARG, "the input's %zu bytes of strings do not fit the "
                         "output's %zu", bytes, out.bytes);
    if (in.data != out.data && bytes > 0)
        memmove(out.data, in.data, bytes);
    return PL_OK;
}

const pl_registration *pl_reshape_registration(void)
{
    static const pl_registration r = {.name = "RESHAPE", .builtin_code = OP_RESHAPE,
                                      .prepare = prepare_reshape, .invoke = invoke};
    return &r;
}

const pl_registration *pl_squeeze_registration(void)
{
    static const pl_registration r = {.name = "SQUEEZE", .builtin_code = OP_SQUEEZE,
                                      .prepare = prepare_squeeze, .invoke = invoke};
    return &r;
}

const pl_registration *pl_expand_dims_registration(void)
{
    static const pl_registration r = {.name = "EXPAND_DIMS", .builtin_code = OP_EXPAND_DIMS,
                                      .prepare = prepare_expand_dims, .invoke = invoke};
    return &r;
}
