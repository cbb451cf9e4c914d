/* embedding_lookup.c - EMBEDDING_LOOKUP (TFLite embedding_lookup.cc): rows of `value` picked
** by an INT32 `lookup` vector.
**
** Same value and output type: rows are copied (any fixed-size type). INT8 value with FLOAT32
** output (hybrid): each row is dequantized as value * scale, with one scale per row when the
** value is quantized per row (dimension 0), as TFLite's EvalHybrid does; zero points must be
** 0. Every lookup is checked against the row count before its copy: one outside fails the
** invoke (as TFLite does), never reading out of bounds. */
#include "embedding_lookup.h"
#include "picolite/pl_node_io.h"

#include <stdbool.h>
#include <string.h>

enum { OP_EMBEDDING_LOOKUP = 7 };

typedef struct opdata {
    bool hybrid;
    uint32_t nscales; /* hybrid: 1, or one per row */
    PL_SLOT(float *, scales); /* persistent copy (eval views carry no quantization) */
} opdata;

static pl_status prepare_hybrid(pl_context *ctx, const pl_tensor *value, opdata *d)
{
    if (value->q.count != 1 && (value->q.count != (uint32_t)value->dims[0] ||
                                value->q.quantized_dimension != 0))
        return ctx->fail(ctx, PL_ERR_MODEL, "EMBEDDING_LOOKUP: INT8 value needs one scale or "
                         "one per row along dim 0 (got %u scales for %d rows)",
                         value->q.count, (int)value->dims[0]);
    for (uint32_t i = 0; i < value->q.count; i++)
        if (value->q.zero_point[i] != 0)
            return ctx->fail(ctx, PL_ERR_MODEL, "EMBEDDING_LOOKUP: INT8 value zero point %d "
                             "(must be 0)", (int)value->q.zero_point[i]);
    if (d->scales == NULL || d->nscales != value->q.count) { /* once, unless re-prepared */
        void *mem;
        PL_TRY(ctx->alloc_persistent(ctx, sizeof(float) * value->q.count, &mem));
        d->scales = mem;
    }
    d->nscales = value->q.count;
    memcpy(d->scales, value->q.scale, sizeof(float) * d->nscales);
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *lookup, *value, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &lookup, &value, &out));
    if (lookup->type != PL_INT32 || lookup->ndims != 1 || value->ndims < 2)
        return ctx->fail(ctx, PL_ERR_MODEL, "EMBEDDING_LOOKUP: lookup must be a 1-D INT32 "
                         "vector (got %s of rank %d) and value at least 2-D (rank %d)",
                         pl_type_name(lookup->type), (int)lookup->ndims, (int)value->ndims);
    d->hybrid = value->type == PL_INT8 && out->type == PL_FLOAT32;
    if (d->hybrid)
        PL_TRY(prepare_hybrid(ctx, value, d));
    else if (value->type != out->type || pl_type_size(value->type) == 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "EMBEDDING_LOOKUP: value type %s with "
                         "output type %s is not supported", pl_type_name(value->type),
                         pl_type_name(out->type));
    int32_t dims[PL_MAX_DIMS];
    memcpy(dims, value->dims, sizeof(int32_t) * (size_t)value->ndims);
    dims[0] = lookup->dims[0];
    return ctx->set_shape(ctx, oi, value->ndims, dims);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const opdata *d = node->user_data;
    pl_tensor lookup, value, out;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &lookup, &value, &out));
    size_t cols = pl_tensor_count(&value) / (value.dims[0] > 0 ? (size_t)value.dims[0] : 1);
    size_t row = cols * pl_type_size(value.type), orow = cols * pl_type_size(out.type);
    const int32_t *ids = lookup.data;
    for (int32_t i = 0; i < lookup.dims[0]; i++) {
        int32_t id = ids[i];
        if (id < 0 || id >= value.dims[0])
            return ctx->fail(ctx, PL_ERR_ARG, "EMBEDDING_LOOKUP: lookup %d is %d, outside "
                             "0..%d", (int)i, (int)id, (int)value.dims[0] - 1);
        const uint8_t *src = (const uint8_t *)value.data + (size_t)id * row;
        uint8_t *dst = (uint8_t *)out.data + (size_t)i * orow;
        if (!d->hybrid) {
            memcpy(dst, src, row);
            continue;
        }
        float scale = d->scales[d->nscales > 1 ? (uint32_t)id : 0];
        float *f = (float *)(void *)dst;
        for (size_t j = 0; j < cols; j++)
            f[j] = (float)((const int8_t *)src)[j] * scale;
    }
    return PL_OK;
}

const pl_registration *pl_embedding_lookup_registration(void)
{
    static const pl_registration r = {.name = "EMBEDDING_LOOKUP",
                                      .builtin_code = OP_EMBEDDING_LOOKUP, .prepare = prepare,
                                      .invoke = invoke, .user_data_size = sizeof(opdata)};
    return &r;
}
