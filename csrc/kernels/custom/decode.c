/* decode.c - TFLM_DECODE, TFLM's decompression operator for compressed constant tensors.
**
** Inputs come in pairs (encoded constant, ancillary constant), one output each. The
** ancillary data starts with a 16-byte header (decode.h): the method, the header's version
** (1), the method's version (1) and parameters; the method's tables follow. The methods are
** TFLM's three: the lookup table (here: indices of 1..7 bits, packed most significant bit
** first, select values of the output's type from the table of their channel; channels
** follow the output's quantization: per tensor, along axis 0 (a table per block of
** elements), or along the last axis (tables alternate element by element)), pruning and
** Huffman (decode_prune.c, decode_huffman.c). */
#include <string.h>

#include "kernels/custom/decode.h"
#include "kernels/custom/list.h"
#include "picolite/pl_node_io.h"

static pl_status check_pair(pl_context *ctx, uint32_t i, const pl_tensor *in,
                            const pl_tensor *anc, const pl_tensor *out)
{
    if (!in->is_constant || !anc->is_constant || in->type != PL_UINT8 ||
        anc->type != PL_UINT8)
        return ctx->fail(ctx, PL_ERR_MODEL, "pair %u: encoded data and ancillary data must be "
                         "uint8 constants", i);
    if (anc->bytes < PL_DECODE_HEADER_BYTES)
        return ctx->fail(ctx, PL_ERR_MODEL, "pair %u: ancillary data of %zu bytes has no "
                         "16-byte header", i, anc->bytes);
    const uint8_t *h = anc->data;
    if (h[1] != 1 || h[4] != 1)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "pair %u: header version %u, method "
                         "version %u (1 and 1 run)", i, h[1], h[4]);
    if (h[0] > PL_DECODE_PRUNE)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "pair %u: decode method %u (the lookup "
                         "table 0, Huffman 1 and pruning 2 run)", i, h[0]);
    pl_type t = out->type;
    if (t != PL_BOOL && t != PL_FLOAT32 && t != PL_INT8 && t != PL_INT16 && t != PL_INT32 &&
        t != PL_INT64)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "pair %u: output type %s", i,
                         pl_type_name(t));
    return PL_OK;
}

/* The lookup table of one pair, every size checked against the tensors' bytes. */
static pl_status make_lut(pl_context *ctx, uint32_t i, const uint8_t *h, const pl_tensor *out,
                          pl_decode_pair *l)
{
    l->stride = h[6];
    l->width = h[5] & 7u;
    if (out->q.count > 1) {
        l->channels = out->q.count;
        l->alternate = out->q.quantized_dimension == out->ndims - 1;
        if (!l->alternate && out->q.quantized_dimension != 0)
            return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "pair %u: quantized axis %d (0 or the "
                             "last)", i, out->q.quantized_dimension);
    }
    l->per_channel = l->count / l->channels;
    if (l->width == 0 || l->count % l->channels != 0 ||
        (uint64_t)l->count * l->width > (uint64_t)l->data_bytes * 8u ||
        (uint64_t)l->channels * l->stride * l->size > l->table_bytes)
        return ctx->fail(ctx, PL_ERR_MODEL, "pair %u: %zu values of %u bits in %zu bytes, %zu "
                         "tables of %zu entries in %zu bytes", i, l->count, l->width,
                         l->data_bytes, l->channels, l->stride, l->table_bytes);
    return PL_OK;
}

/* The fields every method shares, then the method's own checks. */
static pl_status setup(pl_context *ctx, uint32_t i, const pl_tensor *in, const pl_tensor *anc,
                       const pl_tensor *out, pl_decode_pair *p)
{
    const uint8_t *h = anc->data;
    *p = (pl_decode_pair){.data = in->data, .table = h + PL_DECODE_HEADER_BYTES,
                          .zero_points = NULL, .data_bytes = in->bytes,
                          .table_bytes = anc->bytes - PL_DECODE_HEADER_BYTES,
                          .count = pl_tensor_count(out), .channels = 1, .per_channel = 0,
                          .stride = 0, .size = pl_type_size(out->type), .width = 0,
                          .method = h[0], .alternate = false, .wide = false, .zero_point = 0};
    switch (p->method) {
    case PL_DECODE_HUFFMAN:
        return pl_decode_huffman_setup(ctx, i, h, out, p);
    case PL_DECODE_PRUNE:
        return pl_decode_prune_setup(ctx, i, out, p);
    default:
        return make_lut(ctx, i, h, out, p);
    }
}

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    uint32_t n = node->outputs.n;
    if (n == 0 || node->inputs.n != 2 * n)
        return ctx->fail(ctx, PL_ERR_MODEL, "%u inputs for %u outputs (two per output)",
                         node->inputs.n, n);
    return ctx->alloc_persistent(ctx, n * sizeof(pl_decode_pair), user_data);
}

/* Each pair's lookup is checked here and kept (the eval view has no quantization); the
** data pointers are refreshed from the eval tensors on every invoke. */
static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_decode_pair *pairs = node->user_data;
    for (uint32_t i = 0; i < node->outputs.n; i++) {
        pl_tensor *in, *anc, *out;
        PL_TRY(pl_node_tensor(ctx, node, false, 2 * i, &in));
        PL_TRY(pl_node_tensor(ctx, node, false, 2 * i + 1, &anc));
        PL_TRY(pl_node_tensor(ctx, node, true, i, &out));
        PL_TRY(check_pair(ctx, i, in, anc, out));
        PL_TRY(setup(ctx, i, in, anc, out, &pairs[i]));
        PL_TRY(ctx->set_shape(ctx, pl_node_output(node, i), out->ndims, out->dims));
    }
    return PL_OK;
}

/* Index k: width bits from bit k * width, most significant bit first. */
static uint32_t index_at(const pl_decode_pair *l, size_t k)
{
    size_t bit = k * l->width;
    uint32_t v = 0;
    for (uint32_t b = 0; b < l->width; b++, bit++)
        v = (v << 1) | ((l->data[bit >> 3] >> (7u - (bit & 7u))) & 1u);
    return v;
}

static pl_status decode(pl_context *ctx, const pl_decode_pair *l, uint8_t *out)
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
    const pl_decode_pair *pairs = node->user_data;
    for (uint32_t i = 0; i < node->outputs.n; i++) {
        pl_tensor in, anc, out;
        PL_TRY(pl_node_eval(ctx, node, false, 2 * i, &in));
        PL_TRY(pl_node_eval(ctx, node, false, 2 * i + 1, &anc));
        PL_TRY(pl_node_eval(ctx, node, true, i, &out));
        pl_decode_pair l = pairs[i];
        l.data = in.data;
        l.table = (const uint8_t *)anc.data + PL_DECODE_HEADER_BYTES;
        if (l.method == PL_DECODE_HUFFMAN)
            PL_TRY(pl_decode_huffman_run(ctx, &l, out.data));
        else if (l.method == PL_DECODE_PRUNE)
            PL_TRY(pl_decode_prune_run(ctx, &l, out.data));
        else
            PL_TRY(decode(ctx, &l, out.data));
    }
    return PL_OK;
}

const pl_registration *pl_decode_registration(void)
{
    static const pl_registration reg = {.name = "TFLM_DECODE",
                                        .builtin_code = PL_BUILTIN_CUSTOM, .init = init,
                                        .prepare = prepare, .invoke = invoke};
    return &reg;
}
