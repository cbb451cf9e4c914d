/* arg_min_max.c - ARG_MAX and ARG_MIN (TFLite arg_min_max.cc and reference ArgMinMax).
**
** Inputs FLOAT32, INT8, UINT8, INT16, INT32, INT64 or BOOL (quantized values compare as
** their integers: the scale is positive); output INT32 or INT64 per output_type. The first
** extreme wins ties; for floats a NaN never wins and any number beats a NaN, as TFLite's
** comparator does. axis is a constant INT32/INT64 scalar or one-element vector. */
#include "arg_min_max.h"

#include <stdbool.h>
#include <string.h>

#include "kernels/shape/operand.h"
#include "picolite/pl_node_io.h"

enum { OP_ARG_MAX = 56, OP_ARG_MIN = 79 };

/* ArgMaxOptions / ArgMinOptions field ids (schema.fbs). */
enum { OPT_OUTPUT_TYPE = 0 };

typedef pl_arg_min_max_op opdata; /* arg_min_max_fast.h: the host fast path reads it */

static bool supported(pl_type t)
{
    return t == PL_FLOAT32 || t == PL_INT8 || t == PL_UINT8 || t == PL_INT16 ||
           t == PL_INT32 || t == PL_INT64 || t == PL_BOOL;
}

static pl_status prepare(pl_context *ctx, pl_node *node, const char *name)
{
    opdata *d = node->user_data;
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *in, *axis, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &in, &axis, &out));
    int32_t want = pl_table_i8(&node->options, OPT_OUTPUT_TYPE, (int32_t)out->type);
    if (!supported(in->type) || !pl_operand_is_index(out->type) || want != (int32_t)out->type)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: input %s, output %s (option %s) is not "
                         "supported", name, pl_type_name(in->type), pl_type_name(out->type),
                         pl_type_name(want));
    if (!pl_operand_is_index(axis->type) || pl_tensor_count(axis) != 1 || axis->data == NULL)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: axis must be one constant INT32 or "
                         "INT64 value", name);
    int64_t a = pl_operand_at(axis, 0);
    a = a < 0 ? a + in->ndims : a;
    if (a < 0 || a >= in->ndims)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: axis %lld for rank %d", name,
                         (long long)pl_operand_at(axis, 0), (int)in->ndims);
    int32_t dims[PL_MAX_DIMS], n = 0;
    d->outer = d->inner = 1;
    d->axis_size = (size_t)in->dims[a];
    for (int32_t i = 0; i < in->ndims; i++) {
        if (i == a)
            continue;
        dims[n++] = in->dims[i];
        if (i < a)
            d->outer *= (size_t)in->dims[i];
        else
            d->inner *= (size_t)in->dims[i];
    }
    PL_TRY(ctx->set_shape(ctx, oi, n, dims));
    return pl_operand_fold(ctx, node);
}

static pl_status prepare_max(pl_context *ctx, pl_node *node)
{
    return prepare(ctx, node, "ARG_MAX");
}

static pl_status prepare_min(pl_context *ctx, pl_node *node)
{
    return prepare(ctx, node, "ARG_MIN");
}

/* Element i of a FLOAT32 input. */
static double float_at(const pl_tensor *t, size_t i)
{
    return (double)((const float *)t->data)[i];
}

/* Element i of an integer or BOOL input. */
static int64_t int_at(const pl_tensor *t, size_t i)
{
    switch (t->type) {
    case PL_INT8: return ((const int8_t *)t->data)[i];
    case PL_UINT8:
    case PL_BOOL: return ((const uint8_t *)t->data)[i];
    case PL_INT16: return ((const int16_t *)t->data)[i];
    case PL_INT32: return ((const int32_t *)t->data)[i];
    default: return pl_load_i64(t->data, i);
    }
}

/* TFLite's comparator: does the candidate beat the current extreme? */
static bool beats(const pl_tensor *t, size_t cand, size_t cur, bool is_max)
{
    if (t->type == PL_FLOAT32) {
        double c = float_at(t, cand), m = float_at(t, cur);
        return c == c && (m != m || (is_max ? c > m : c < m));
    }
    int64_t c = int_at(t, cand), m = int_at(t, cur);
    return is_max ? c > m : c < m;
}

static pl_status invoke(pl_context *ctx, pl_node *node, bool is_max)
{
    const opdata *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    size_t k = 0;
    for (size_t o = 0; o < d->outer; o++)
        for (size_t i = 0; i < d->inner; i++, k++) {
            size_t base = o * d->axis_size * d->inner + i, best = base;
            int64_t at = 0;
            for (size_t j = 1; j < d->axis_size; j++)
                if (beats(&in, base + j * d->inner, best, is_max)) {
                    best = base + j * d->inner;
                    at = (int64_t)j;
                }
            if (out.type == PL_INT64)
                memcpy((uint8_t *)out.data + 8 * k, &at, sizeof at);
            else
                ((int32_t *)out.data)[k] = (int32_t)at;
        }
    return PL_OK;
}

static pl_status invoke_max(pl_context *ctx, pl_node *node)
{
    return invoke(ctx, node, true);
}

static pl_status invoke_min(pl_context *ctx, pl_node *node)
{
    return invoke(ctx, node, false);
}

const pl_registration *pl_arg_max_registration(void)
{
    static const pl_registration r = {.name = "ARG_MAX", .builtin_code = OP_ARG_MAX,
                                      .prepare = prepare_max, .invoke = invoke_max,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}

const pl_registration *pl_arg_min_registration(void)
{
    static const pl_registration r = {.name = "ARG_MIN", .builtin_code = OP_ARG_MIN,
                                      .prepare = prepare_min, .invoke = invoke_min,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}
