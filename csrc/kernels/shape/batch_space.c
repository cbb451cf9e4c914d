/* batch_space.c - BATCH_TO_SPACE_ND and SPACE_TO_BATCH_ND (TFLite batch_to_space_nd.cc,
** space_to_batch_nd.cc and their reference loops) for 3-D (NHC, taken as NH1C) and 4-D NHWC
** tensors of any fixed-size element type.
**
** block_shape [M] and crops / paddings [M, 2] are INT32/INT64 (M = rank - 2): constants give
** the output shape at prepare, computed ones are checked at invoke. SPACE_TO_BATCH_ND pads
** 1-byte types with the output zero point byte and wider types with zero bytes, as TFLite's
** memset does (TFLM with zero bytes always); quantized input and output must share their
** quantization. */
#include "batch_space.h"

#include <stdbool.h>
#include <string.h>

#include "operand.h"
#include "picolite/pl_node_io.h"

enum { OP_BATCH_TO_SPACE_ND = 37, OP_SPACE_TO_BATCH_ND = 38 };

typedef struct opdata {
    int32_t block[2];  /* height, width (width 1 for 3-D) */
    int32_t before[2]; /* crop or pad before, per spatial dim */
    int32_t out_dims[4];
    uint8_t pad_byte;
} opdata;

/* Reads block_shape and crops/paddings (data present) into d and the output dims. */
static pl_status resolve(pl_context *ctx, const char *name, bool to_batch, const pl_tensor *in,
                         const pl_tensor *block, const pl_tensor *pads, opdata *d)
{
    int32_t m = in->ndims - 2;
    int64_t batch = in->dims[0], prod = 1;
    d->block[1] = 1;
    d->before[1] = 0;
    for (int32_t i = 0; i < m; i++) {
        int64_t bs = pl_operand_at(block, (size_t)i);
        int64_t lo = pl_operand_at(pads, 2 * (size_t)i);
        int64_t hi = pl_operand_at(pads, 2 * (size_t)i + 1);
        int64_t n = in->dims[1 + i];
        int64_t size = to_batch ? n + lo + hi : n * bs - lo - hi;
        if (bs < 1 || bs > 65536 || lo < 0 || hi < 0 || lo > INT32_MAX || hi > INT32_MAX ||
            size < 0 || size > INT32_MAX || (to_batch && size % bs != 0))
            return ctx->fail(ctx, PL_ERR_MODEL, "%s: spatial dim %d of size %lld: block %lld with "
                             "%s (%lld, %lld) is invalid", name, (int)i, (long long)n,
                             (long long)bs, to_batch ? "paddings" : "crops", (long long)lo,
                             (long long)hi);
        d->block[i] = (int32_t)bs;
        d->before[i] = (int32_t)lo;
        d->out_dims[1 + i] = (int32_t)(to_batch ? size / bs : size);
        prod *= bs;
    }
    if (to_batch ? batch * prod > INT32_MAX : batch % prod != 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: batch %lld with block product %lld", name,
                         (long long)batch, (long long)prod);
    d->out_dims[0] = (int32_t)(to_batch ? batch * prod : batch / prod);
    d->out_dims[in->ndims - 1] = in->dims[in->ndims - 1];
    return PL_OK;
}

static pl_status check(pl_context *ctx, const char *name, const pl_tensor *in,
                       const pl_tensor *block, const pl_tensor *pads, const pl_tensor *out)
{
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES_FIXED_SIZE));
    if (in->ndims != 3 && in->ndims != 4)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: input rank %d (3 or 4 supported)", name,
                         (int)in->ndims);
    int32_t m = in->ndims - 2;
    if (!pl_operand_is_index(block->type) || !pl_operand_is_index(pads->type) ||
        block->ndims != 1 || block->dims[0] != m || pads->ndims != 2 || pads->dims[0] != m ||
        pads->dims[1] != 2)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: block_shape must be INT32/INT64 [%d] and "
                         "crops/paddings [%d, 2]", name, (int)m, (int)m);
    if (in->q.count != out->q.count ||
        (in->q.count > 0 && (in->q.scale[0] != out->q.scale[0] ||
                             in->q.zero_point[0] != out->q.zero_point[0])))
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: input and output quantization differ", name);
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node, const char *name, bool to_batch)
{
    opdata *d = node->user_data;
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *in, *block, *pads, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(3, 1), &in, &block, &pads, &out));
    PL_TRY(check(ctx, name, in, block, pads, out));
    bool byte = pl_type_size(in->type) == 1 && out->q.count > 0;
    /* TFLM pads with its op data's output_offset, which its prepare never sets: fresh,
    ** zeroed memory pads with 0 bytes (LiteRT: 1-byte types with the output zero point) */
    d->pad_byte = byte && ctx->arith == PL_ARITH_LITERT ? (uint8_t)out->q.zero_point[0] : 0;
    if (!pl_operand_known(block) || !pl_operand_known(pads))
        return ctx->set_shape(ctx, oi, out->ndims, out->dims);
    PL_TRY(resolve(ctx, name, to_batch, in, block, pads, d));
    return ctx->set_shape(ctx, oi, in->ndims, d->out_dims);
}

static pl_status prepare_b2s(pl_context *ctx, pl_node *node)
{
    return prepare(ctx, node, "BATCH_TO_SPACE_ND", false);
}

static pl_status prepare_s2b(pl_context *ctx, pl_node *node)
{
    return prepare(ctx, node, "SPACE_TO_BATCH_ND", true);
}

/* dims as NHWC (3-D NHC becomes NH1C). */
static void nhwc(const int32_t *dims, int32_t ndims, int32_t *out)
{
    out[0] = dims[0];
    out[1] = dims[1];
    out[2] = ndims == 4 ? dims[2] : 1;
    out[3] = dims[ndims - 1];
}

/* TFLite's SpaceToBatchND loop: out pixel (ob, oh, ow) reads the padded input. */
static void to_batch(const opdata *d, const int32_t *in4, const int32_t *out4, size_t esize,
                     const uint8_t *in, uint8_t *out)
{
    const size_t row = (size_t)out4[3] * esize;
    size_t k = 0;
    for (int32_t ob = 0; ob < out4[0]; ob++) {
        int32_t ib = ob % in4[0], shift = ob / in4[0];
        int32_t sw = shift % d->block[1], sh = shift / d->block[1];
        for (int32_t oh = 0; oh < out4[1]; oh++)
            for (int32_t ow = 0; ow < out4[2]; ow++, k++) {
                int32_t ih = oh * d->block[0] + sh - d->before[0];
                int32_t iw = ow * d->block[1] + sw - d->before[1];
                if (ih < 0 || ih >= in4[1] || iw < 0 || iw >= in4[2]) {
                    memset(out + k * row, d->pad_byte, row);
                    continue;
                }
                size_t px = ((size_t)ib * (size_t)in4[1] + (size_t)ih) * (size_t)in4[2] +
                            (size_t)iw;
                memcpy(out + k * row, in + px * row, row);
            }
    }
}

/* TFLite's BatchToSpaceND loop: each input pixel lands in the output unless cropped. */
static void to_space(const opdata *d, const int32_t *in4, const int32_t *out4, size_t esize,
                     const uint8_t *in, uint8_t *out)
{
    const size_t row = (size_t)in4[3] * esize;
    size_t k = 0;
    for (int32_t ib = 0; ib < in4[0]; ib++) {
        int32_t ob = ib % out4[0], off = ib / out4[0];
        for (int32_t ih = 0; ih < in4[1]; ih++)
            for (int32_t iw = 0; iw < in4[2]; iw++, k++) {
                int32_t oh = ih * d->block[0] + off / d->block[1] - d->before[0];
                int32_t ow = iw * d->block[1] + off % d->block[1] - d->before[1];
                if (oh < 0 || oh >= out4[1] || ow < 0 || ow >= out4[2])
                    continue;
                size_t px = ((size_t)ob * (size_t)out4[1] + (size_t)oh) * (size_t)out4[2] +
                            (size_t)ow;
                memcpy(out + px * row, in + k * row, row);
            }
    }
}

static pl_status invoke(pl_context *ctx, pl_node *node, const char *name, bool batch)
{
    opdata *d = node->user_data;
    pl_tensor in, block, pads, out;
    PL_TRY(pl_node_evals(ctx, node, 3, 1, &in, &block, &pads, &out));
    PL_TRY(resolve(ctx, name, batch, &in, &block, &pads, d));
    PL_TRY(pl_operand_check_out(ctx, name, &out, in.ndims, d->out_dims));
    int32_t in4[4], out4[4];
    nhwc(in.dims, in.ndims, in4);
    nhwc(out.dims, out.ndims, out4);
    if (batch)
        to_batch(d, in4, out4, pl_type_size(in.type), in.data, out.data);
    else
        to_space(d, in4, out4, pl_type_size(in.type), in.data, out.data);
    return PL_OK;
}

static pl_status invoke_b2s(pl_context *ctx, pl_node *node)
{
    return invoke(ctx, node, "BATCH_TO_SPACE_ND", false);
}

static pl_status invoke_s2b(pl_context *ctx, pl_node *node)
{
    return invoke(ctx, node, "SPACE_TO_BATCH_ND", true);
}

const pl_registration *pl_batch_to_space_nd_registration(void)
{
    static const pl_registration r = {.name = "BATCH_TO_SPACE_ND",
                                      .builtin_code = OP_BATCH_TO_SPACE_ND,
                                      .prepare = prepare_b2s, .invoke = invoke_b2s,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}

const pl_registration *pl_space_to_batch_nd_registration(void)
{
    static const pl_registration r = {.name = "SPACE_TO_BATCH_ND",
                                      .builtin_code = OP_SPACE_TO_BATCH_ND,
                                      .prepare = prepare_s2b, .invoke = invoke_s2b,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}
