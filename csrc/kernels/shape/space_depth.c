/* space_depth.c - DEPTH_TO_SPACE and SPACE_TO_DEPTH (TFLite depth_to_space.cc,
** space_to_depth.cc): NHWC rearrangements by block_size for any fixed-size element type.
**
** DEPTH_TO_SPACE output (b, h, w, c) reads input (b, h / bs, w / bs,
** ((h % bs) * bs + w % bs) * out_depth + c); SPACE_TO_DEPTH is its inverse. Pure copies, so
** quantized input and output must share their quantization. */
#include "space_depth.h"
#include "picolite/pl_node_io.h"

#include <stdbool.h>
#include <string.h>

enum { OP_DEPTH_TO_SPACE = 5, OP_SPACE_TO_DEPTH = 26 };

/* DepthToSpaceOptions / SpaceToDepthOptions field ids (schema.fbs). */
enum { OPT_BLOCK_SIZE = 0 };

static pl_status shape_of(pl_context *ctx, const char *name, bool to_space,
                          const pl_tensor *in, int32_t bs, int32_t *dims)
{
    if (in->ndims != 4)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: input must be 4-D NHWC (rank %d)", name,
                         (int)in->ndims);
    if (bs <= 0 || bs > 65536)
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: block_size %d", name, (int)bs);
    int64_t sq = (int64_t)bs * bs;
    dims[0] = in->dims[0];
    if (to_space) {
        if (in->dims[3] % sq != 0 || (int64_t)in->dims[1] * bs > INT32_MAX ||
            (int64_t)in->dims[2] * bs > INT32_MAX)
            return ctx->fail(ctx, PL_ERR_MODEL, "%s: depth %d is not a multiple of %lld (or "
                             "the result is too large)", name, (int)in->dims[3],
                             (long long)sq);
        dims[1] = in->dims[1] * bs;
        dims[2] = in->dims[2] * bs;
        dims[3] = (int32_t)(in->dims[3] / sq);
    } else {
        if (in->dims[1] % bs != 0 || in->dims[2] % bs != 0 ||
            (int64_t)in->dims[3] * sq > INT32_MAX)
            return ctx->fail(ctx, PL_ERR_MODEL, "%s: height %d and width %d must be multiples "
                             "of %d", name, (int)in->dims[1], (int)in->dims[2], (int)bs);
        dims[1] = in->dims[1] / bs;
        dims[2] = in->dims[2] / bs;
        dims[3] = (int32_t)(in->dims[3] * sq);
    }
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node, const char *name, bool to_space)
{
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *in, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(1, 1), &in, &out));
    PL_TRY(pl_check_types(ctx, in, out, PL_TYPES_FIXED_SIZE));
    if (in->q.count != out->q.count ||
        (in->q.count > 0 && (in->q.scale[0] != out->q.scale[0] ||
                             in->q.zero_point[0] != out->q.zero_point[0])))
        return ctx->fail(ctx, PL_ERR_MODEL, "%s: input and output quantization differ", name);
    int32_t dims[4];
    PL_TRY(shape_of(ctx, name, to_space, in, pl_table_i32(&node->options, OPT_BLOCK_SIZE, 0),
                    dims));
    return ctx->set_shape(ctx, oi, 4, dims);
}

static pl_status prepare_d2s(pl_context *ctx, pl_node *node)
{
    return prepare(ctx, node, "DEPTH_TO_SPACE", true);
}

static pl_status prepare_s2d(pl_context *ctx, pl_node *node)
{
    return prepare(ctx, node, "SPACE_TO_DEPTH", false);
}

/* Walks the space-side tensor (dims s) in order; the depth-side one has depth s[3]*bs*bs. */
static void rearrange(const int32_t *s, int32_t bs, size_t esize, bool to_space,
                      const uint8_t *in, uint8_t *out)
{
    const size_t row = (size_t)s[3] * esize;
    const int32_t dh = s[1] / bs, dw = s[2] / bs;
    const size_t ddepth = (size_t)s[3] * (size_t)bs * (size_t)bs;
    size_t k = 0;
    for (int32_t b = 0; b < s[0]; b++)
        for (int32_t h = 0; h < s[1]; h++)
            for (int32_t w = 0; w < s[2]; w++, k++) {
                size_t px = ((size_t)b * (size_t)dh + (size_t)(h / bs)) * (size_t)dw +
                            (size_t)(w / bs);
                size_t c = (size_t)((h % bs) * bs + w % bs) * (size_t)s[3];
                size_t at = (px * ddepth + c) * esize; /* in the depth-side tensor */
                if (to_space)
                    memcpy(out + k * row, in + at, row);
                else
                    memcpy(out + at, in + k * row, row);
            }
}

static pl_status invoke(pl_context *ctx, pl_node *node, bool to_space)
{
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    int32_t bs = pl_table_i32(&node->options, OPT_BLOCK_SIZE, 0);
    rearrange(to_space ? out.dims : in.dims, bs, pl_type_size(in.type), to_space, in.data,
              out.data);
    return PL_OK;
}

static pl_status invoke_d2s(pl_context *ctx, pl_node *node)
{
    return invoke(ctx, node, true);
}

static pl_status invoke_s2d(pl_context *ctx, pl_node *node)
{
    return invoke(ctx, node, false);
}

const pl_registration *pl_depth_to_space_registration(void)
{
    static const pl_registration r = {.name = "DEPTH_TO_SPACE",
                                      .builtin_code = OP_DEPTH_TO_SPACE, .prepare = prepare_d2s,
                                      .invoke = invoke_d2s};
    return &r;
}

const pl_registration *pl_space_to_depth_registration(void)
{
    static const pl_registration r = {.name = "SPACE_TO_DEPTH",
                                      .builtin_code = OP_SPACE_TO_DEPTH, .prepare = prepare_s2d,
                                      .invoke = invoke_s2d};
    return &r;
}
