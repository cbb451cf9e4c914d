/* mirror_pad.c - MIRROR_PAD (TFLite mirror_pad.cc) for any fixed-size element type.
**
** REFLECT mirrors about the edge element (pads at most dim - 1), SYMMETRIC repeats it (pads
** at most dim). paddings is a [rank, 2] INT32/INT64 tensor; a constant gives the output
** shape at prepare, a computed one is checked at invoke. Quantized input and output must
** share scale and zero point (the values are copied), as TFLite requires. */
#include "mirror_pad.h"

#include <string.h>

#include "operand.h"
#include "picolite/pl_node_io.h"

enum { OP_MIRROR_PAD = 100 };

/* MirrorPadOptions field ids and MirrorPadMode values (schema.fbs). */
enum { OPT_MODE = 0 };
enum { MODE_REFLECT = 0, MODE_SYMMETRIC = 1 };

typedef struct opdata {
    int32_t offset; /* 1 for REFLECT (the edge is not repeated), 0 for SYMMETRIC */
    int32_t before[PL_MAX_DIMS];
    int32_t out_dims[PL_MAX_DIMS];
} opdata;

/* Reads paddings (data present) and the output dims they give. */
static pl_status resolve(pl_context *ctx, const pl_tensor *in, const pl_tensor *p, opdata *d)
{
    for (int32_t i = 0; i < in->ndims; i++) {
        int64_t lo = pl_operand_at(p, 2 * (size_t)i), hi = pl_operand_at(p, 2 * (size_t)i + 1);
        int64_t most = (int64_t)in->dims[i] - d->offset;
        if (lo < 0 || hi < 0 || lo > most || hi > most)
            return ctx->fail(ctx, PL_ERR_MODEL, "MIRROR_PAD: dim %d: paddings (%lld, %lld) must "
                             "be in 0..%lld for size %d", (int)i, (long long)lo,
                             (long long)hi, (long long)(most < 0 ? 0 : most),
                             (int)in->dims[i]);
        d->before[i] = (int32_t)lo;
        d->out_dims[i] = (int32_t)(lo + hi + in->dims[i]);
    }
    return PL_OK;
}

static pl_status check(pl_context *ctx, const pl_tensor *in, const pl_tensor *p,
                       const pl_tensor *out)
{
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES_FIXED_SIZE));
    if (!pl_operand_is_index(p->type) || p->ndims != 2 || p->dims[0] != in->ndims ||
        p->dims[1] != 2)
        return ctx->fail(ctx, PL_ERR_MODEL, "MIRROR_PAD: paddings must be an INT32 or INT64 "
                         "[%d, 2] tensor", (int)in->ndims);
    if (in->q.count != out->q.count ||
        (in->q.count > 0 && (in->q.scale[0] != out->q.scale[0] ||
                             in->q.zero_point[0] != out->q.zero_point[0])))
        return ctx->fail(ctx, PL_ERR_MODEL, "MIRROR_PAD: input and output quantization "
                         "differ");
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *in, *p, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &in, &p, &out));
    PL_TRY(check(ctx, in, p, out));
    int32_t mode = pl_table_i8(&node->options, OPT_MODE, MODE_REFLECT);
    if (mode != MODE_REFLECT && mode != MODE_SYMMETRIC)
        return ctx->fail(ctx, PL_ERR_MODEL, "MIRROR_PAD: unknown mode %d", (int)mode);
    d->offset = mode == MODE_REFLECT ? 1 : 0;
    if (!pl_operand_known(p))
        return ctx->set_shape(ctx, oi, out->ndims, out->dims);
    PL_TRY(resolve(ctx, in, p, d));
    return ctx->set_shape(ctx, oi, in->ndims, d->out_dims);
}

/* The input index that output index o of one dim reads (TFLite's GetInputDimension). */
static int32_t source(int32_t o, int32_t before, int32_t n, int32_t offset)
{
    int32_t i = o - before;
    if (i < 0)
        return -i - 1 + offset;
    if (i >= n)
        return 2 * n - 1 - offset - i;
    return i;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    pl_tensor in, p, out;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &in, &p, &out));
    PL_TRY(resolve(ctx, &in, &p, d));
    PL_TRY(pl_operand_check_out(ctx, "MIRROR_PAD", &out, in.ndims, d->out_dims));
    size_t esize = pl_type_size(in.type), total = pl_tensor_count(&out);
    size_t stride[PL_MAX_DIMS], s = 1;
    for (int32_t a = in.ndims - 1; a >= 0; a--) {
        stride[a] = s;
        s *= (size_t)in.dims[a];
    }
    int32_t at[PL_MAX_DIMS] = {0};
    for (size_t i = 0; i < total; i++) {
        size_t src = 0;
        for (int32_t a = 0; a < in.ndims; a++)
            src += stride[a] * (size_t)source(at[a], d->before[a], in.dims[a], d->offset);
        memcpy((uint8_t *)out.data + i * esize, (const uint8_t *)in.data + src * esize, esize);
        for (int32_t a = in.ndims - 1; a >= 0; a--) {
            if (++at[a] < d->out_dims[a])
                break;
            at[a] = 0;
        }
    }
    return PL_OK;
}

const pl_registration *pl_mirror_pad_registration(void)
{
    static const pl_registration r = {.name = "MIRROR_PAD", .builtin_code = OP_MIRROR_PAD,
                                      .prepare = prepare, .invoke = invoke,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}
