/* decode.c - TFLM_DECODE, TFLM's decompression operator for compressed constant tensors.
**
** Inputs come in pairs (encoded constant, ancillary constant), one output each. The
** ancillary data starts with a 16-byte header: byte 0 the method, byte 4 the version (1),
** byte 5 the index bit width (low 3 bits), byte 6 the value table's entries per channel;
** the value tables follow. Only the lookup-table method (0) is implemented, the one TFLM's
** compression tool makes: indices of 1..7 bits, packed most significant bit first, select
** values of the output's type from the table of their channel. Channels follow the output's
** quantization: per tensor, along axis 0 (a table per block of elements), or along the last
** axis (tables alternate element by element). TFLM's Huffman and pruning methods are
** refused (its tool cannot make them yet, so there is nothing to test against). */
#include <string.h>

#include "kernels/custom/list.h"

#define HEADER_BYTES 16u

/* Slots: the op data has one layout on 32-bit targets and 64-bit hosts. */
typedef struct lut {
    PL_SLOT(const uint8_t *, indices);
    PL_SLOT(const uint8_t *, table);
    PL_SLOT(size_t, index_bytes);
    PL_SLOT(size_t, table_bytes);
    PL_SLOT(size_t, count);
    PL_SLOT(size_t, channels);
    PL_SLOT(size_t, per_channel);
    PL_SLOT(size_t, stride);
    PL_SLOT(size_t, size);
    uint32_t width;
    bool alternate; /* channels along the last axis */
} lut;

static pl_status check_pair(pl_context *ctx, uint32_t i, const pl_tensor *in,
                            const pl_tensor *anc, const pl_tensor *out)
{
    if (!in->is_constant || !anc->is_constant || in->type != PL_UINT8 ||
        anc->type != PL_UINT8)
        return ctx->fail(ctx, PL_ERR_MODEL, "pair %u: encoded data and ancillary data must be "
                         "uint8 constants", i);
    if (anc->bytes < HEADER_BYTES)
        return ctx->fail(ctx, PL_ERR_MODEL, "pair %u: ancillary data of %zu bytes has no "
                         "16-byte header", i, anc->bytes);
    const uint8_t *h = anc->data;
    if (h[0] != 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "pair %u: decode method %u (only the lookup "
                         "table, 0, runs)", i, h[0]);
    if (h[4] != 1)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "pair %u: version %u (1 runs)", i, h[4]);
    pl_type t = out->type;
    if (t != PL_BOOL && t != PL_FLOAT32 && t != PL_INT8 && t != PL_INT16 && t != PL_INT32 &&
        t != PL_INT64)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "pair %u: output type %s", i,
                         pl_type_name(t));
    return PL_OK;
}

/* The lookup of one pair, every size checked against the tensors' bytes. */
static pl_status make_lut(pl_context *ctx, uint32_t i, const pl_tensor *in,
                          const pl_tensor *anc, const pl_tensor *out, lut *l)
{
    const uint8_t *h = anc->data;
    *l = (lut){.indices = in->data, .table = (const uint8_t *)anc->data + HEADER_BYTES,
               .index_bytes = in->bytes, .table_bytes = anc->bytes - HEADER_BYTES,
               .count = pl_tensor_count(out), .channels = 1, .per_channel = 0,
               .stride = h[6], .size = pl_type_size(out->type), .width = h[5] & 7u,
               .alternate = false};
    if (out->q.count > 1) {
        l->channels = out->q.count;
        l->alternate = out->q.quantized_dimension == out->ndims - 1;
        if (!l->alternate && out->q.quantized_dimension != 0)
            return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "pair %u: quantized axis %d (0 or the "
                             "last)", i, out->q.quantized_dimension);
    }
    l->per_channel = l->count / l->channels;
    if (l->width == 0 || l->count % l->channels != 0 ||
        (uint64_t)l->count * l->width > (uint64_t)l->index_bytes * 8u ||
        (uint64_t)l->channels * l->stride * l->size > l->table_bytes)
        return ctx->fail(ctx, PL_ERR_MODEL, "pair %u: %zu values of %u bits in %zu bytes, %zu "
                         "tables of %zu entries in %zu bytes", i, l->count, l->width,
                         l->index_bytes, l->channels, l->stride, l->table_bytes);
    return PL_OK;
}

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    uint32_t n = node->outputs.n;
    if (n == 0 || node->inputs.n != 2 * n)
        return ctx->fail(ctx, PL_ERR_MODEL, "%u inputs for %u outputs (two per output)",
                         node->inputs.n, n);
    return ctx->alloc_persistent(ctx, n * sizeof(lut), user_data);
}

/* Each pair's lookup is checked here and kept (the eval view has no quantization); the
** data pointers are refreshed from the eval tensors on every invoke. */
static pl_status prepare(pl_context *ctx, pl_node *node)
{
    lut *luts = node->user_data;
    for (uint32_t i = 0; i < node->outputs.n; i++) {
        pl_tensor *in, *anc, *out;
        if (pl_node_input(node, 2 * i) < 0 || pl_node_input(node, 2 * i + 1) < 0)
            return ctx->fail(ctx, PL_ERR_MODEL, "pair %u is incomplete", i);
        PL_TRY(ctx->get_tensor(ctx, pl_node_input(node, 2 * i), &in));
        PL_TRY(ctx->get_tensor(ctx, pl_node_input(node, 2 * i + 1), &anc));
        PL_TRY(ctx->get_tensor(ctx, pl_node_output(node, i), &out));
        PL_TRY(check_pair(ctx, i, in, anc, out));
        PL_TRY(make_lut(ctx, i, in, anc, out, &luts[i]));
        PL_TRY(ctx->set_shape(ctx, pl_node_output(node, i), out->ndims, out->dims));
    }
    return PL_OK;
}

/* Index k: width bits from bit k * width, most significant bit first. */
static uint32_t index_at(const lut *l, size_t k)
{
    size_t bit = k * l->width;
    uint32_t v = 0;
    for (uint32_t b = 0; b < l->width; b++, bit++)
        v = (v << 1) | ((l->indices[bit >> 3] >> (7u - (bit & 7u))) & 1u);
    return v;
}

static pl_status decode(pl_context *ctx, const lut *l, uint8_t *out)
{
    for (size_t k = 0; k < l->count; k++) {
        size_t channel = l->alternate ? k % l->channels : k / l->per_channel;
        uint32_t index = index_at(l, k);
        if (index >= l->stride)
            return ctx->fail(ctx, PL_ERR_MODEL, "element %zu: index %u past the %zu-entry "
                             "value table", k, index, l->stride);
        memcpy(out + k * l->size, l->table + (channel * l->stride + index) * l->size, l->size);
    }
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const lut *luts = node->user_data;
    for (uint32_t i = 0; i < node->outputs.n; i++) {
        pl_tensor in, anc, out;
        PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 2 * i), &in));
        PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 2 * i + 1), &anc));
        PL_TRY(ctx->get_eval(ctx, pl_node_output(node, i), &out));
        lut l = luts[i];
        l.indices = in.data;
        l.table = (const uint8_t *)anc.data + HEADER_BYTES;
        PL_TRY(decode(ctx, &l, out.data));
    }
    return PL_OK;
}

const pl_registration *pl_decode_registration(void)
{
    static const pl_registration reg = {"TFLM_DECODE", 32, init, NULL, prepare, invoke, NULL};
    return &reg;
}
