/* pad.c - PAD and PADV2 (TFLite pad.cc) for any fixed-size element type, up to 6-D.
**
** The pad value: PADV2's constant_values input when given (read at invoke, so it may be
** computed), else the output zero point for quantized types and 0 otherwise. Quantized
** constant_values must share the output's quantization, as TFLite requires. Paddings must
** be a constant [rank, 2] INT32/INT64 tensor of non-negative values. */
#include "pad.h"
#include "picolite/pl_node_io.h"

#include <stdbool.h>
#include <string.h>

enum { OP_PAD = 34, OP_PADV2 = 60 };

typedef pl_pad_op opdata;

/* count copies of the esize-byte value: one element, then copies of what is written,
** doubling (a memcpy per element was most of a PAD's time). */
static void fill(uint8_t *dst, size_t count, const uint8_t *value, size_t esize)
{
    size_t total = count * esize, done = count > 0 ? esize : 0;
    if (done > 0)
        memcpy(dst, value, esize);
    while (done < total) {
        size_t n = done < total - done ? done : total - done;
        memcpy(dst + done, dst, n);
        done += n;
    }
}

void pl_pad_copy(int32_t ndims, const int32_t *in_dims, const int32_t *out_dims,
                 const int32_t *before, size_t esize, const void *value, const void *in,
                 void *out)
{
    size_t total = 1, rows = 1;
    for (int32_t d = 0; d < ndims; d++)
        total *= (size_t)out_dims[d];
    fill(out, total, value, esize);
    for (int32_t d = 0; d + 1 < ndims; d++)
        rows *= (size_t)in_dims[d];
    size_t row_bytes = ndims > 0 ? (size_t)in_dims[ndims - 1] * esize : esize;
    if (ndims == 0 || row_bytes == 0)
        rows = ndims == 0 ? 1 : 0;
    int32_t at[PL_PAD_MAX_DIMS] = {0};
    for (size_t r = 0; r < rows; r++) {
        /* the output offset of input row `at` */
        size_t off = 0;
        for (int32_t d = 0; d < ndims; d++)
            off = off * (size_t)out_dims[d] + (size_t)(at[d] + before[d]);
        memcpy((uint8_t *)out + off * esize, (const uint8_t *)in + r * row_bytes, row_bytes);
        for (int32_t d = ndims - 2; d >= 0; d--) {
            if (++at[d] < in_dims[d])
                break;
            at[d] = 0;
        }
    }
}

/* The output is the input padded, as TFLite's Prepare resizes it. */
static pl_status read_paddings(pl_context *ctx, const pl_tensor *p, const pl_tensor *in,
                               pl_tensor *out, opdata *d)
{
    if (p->type != PL_INT32 && p->type != PL_INT64)
        return ctx->fail(ctx, PL_ERR_MODEL, "paddings must be INT32 or INT64, not %s",
                         pl_type_name(p->type));
    if (!p->is_constant || p->data == NULL)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "paddings tensor %d is not constant",
                         (int)p->index);
    if (p->ndims != 2 || p->dims[0] != in->ndims || p->dims[1] != 2)
        return ctx->fail(ctx, PL_ERR_MODEL, "paddings must be [%d, 2]", (int)in->ndims);
    const uint8_t *b = p->data;
    for (int32_t i = 0; i < in->ndims; i++) {
        int64_t lo = p->type == PL_INT64 ? (int64_t)pl_le64(b + 16 * i)
                                         : (int32_t)pl_le32(b + 8 * i);
        int64_t hi = p->type == PL_INT64 ? (int64_t)pl_le64(b + 16 * i + 8)
                                         : (int32_t)pl_le32(b + 8 * i + 4);
        /* each bounded first, so the sum cannot overflow on hostile int64 paddings */
        if (lo < 0 || hi < 0 || lo > INT32_MAX || hi > INT32_MAX ||
            lo + hi + in->dims[i] > INT32_MAX)
            return ctx->fail(ctx, PL_ERR_MODEL, "dim %d: padding (%lld, %lld) of %d",
                             (int)i, (long long)lo, (long long)hi, (int)in->dims[i]);
        d->before[i] = (int32_t)lo;
        d->in_dims[i] = in->dims[i];
        d->out_dims[i] = (int32_t)(lo + hi + in->dims[i]);
    }
    d->ndims = in->ndims;
    return pl_set_output_shape(ctx, out, in->ndims, d->out_dims);
}

static pl_status check_value(pl_context *ctx, const pl_tensor *v, const pl_tensor *out)
{
    if (v->type != out->type || pl_tensor_count(v) != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "constant_values must be one %s",
                         pl_type_name(out->type));
    bool quantized = out->type == PL_INT8 || out->type == PL_INT16 || out->type == PL_UINT8;
    if (quantized && v->q.count > 0 && out->q.count > 0 &&
        (v->q.scale[0] != out->q.scale[0] || v->q.zero_point[0] != out->q.zero_point[0]))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED,
                         "constant_values is quantized unlike the output");
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    uint8_t max_in = node->builtin_code == OP_PADV2 ? 3 : 2;
    int32_t vi = pl_node_input(node, 2);
    PL_TRY(pl_node_check(ctx, node, PL_IO_OPT(2, max_in, 1)));
    pl_tensor *in, *p, *out;
    PL_TRY(pl_node_tensor(ctx, node, false, 0, &in));
    PL_TRY(pl_node_tensor(ctx, node, true, 0, &out));
    PL_TRY(pl_node_tensor(ctx, node, false, 1, &p));
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES_FIXED_SIZE));
    if (in->ndims > PL_PAD_MAX_DIMS)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "rank %d (at most %d)", (int)in->ndims,
                         PL_PAD_MAX_DIMS);
    PL_TRY(read_paddings(ctx, p, in, out, d));
    d->zero_point = out->q.count > 0 ? (int32_t)out->q.zero_point[0] : 0;
    if (vi >= 0) {
        pl_tensor *v;
        PL_TRY(pl_node_tensor(ctx, node, false, 2, &v));
        PL_TRY(check_value(ctx, v, out));
    }
    return PL_OK;
}

void pl_pad_value(const pl_pad_op *d, pl_type type, const pl_tensor *v,
                  uint8_t value[PL_PAD_MAX_ELEMENT])
{
    memset(value, 0, PL_PAD_MAX_ELEMENT);
    if (type == PL_INT8 || type == PL_UINT8)
        value[0] = (uint8_t)d->zero_point;
    else if (type == PL_INT16) {
        int16_t z = (int16_t)d->zero_point;
        memcpy(value, &z, sizeof z);
    }
    if (v->data != NULL)
        memcpy(value, v->data, pl_type_size(type));
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const opdata *d = node->user_data;
    pl_tensor in, v, out;
    PL_TRY(pl_node_eval(ctx, node, false, 0, &in));
    PL_TRY(pl_node_eval(ctx, node, false, 2, &v));
    PL_TRY(pl_node_eval(ctx, node, true, 0, &out));
    uint8_t value[PL_PAD_MAX_ELEMENT];
    pl_pad_value(d, out.type, &v, value);
    pl_pad_copy(d->ndims, d->in_dims, d->out_dims, d->before, pl_type_size(out.type), value,
                in.data, out.data);
    return PL_OK;
}

const pl_registration *pl_pad_registration(void)
{
    static const pl_registration r = {.name = "PAD", .builtin_code = OP_PAD, .prepare = prepare,
                                      .invoke = invoke, .user_data_size = sizeof(opdata)};
    return &r;
}

const pl_registration *pl_padv2_registration(void)
{
    static const pl_registration r = {.name = "PADV2", .builtin_code = OP_PADV2,
                                      .prepare = prepare, .invoke = invoke,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}
