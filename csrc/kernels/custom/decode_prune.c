/* decode_prune.c - TFLM_DECODE's pruning method (see decode.h), as TFLM's DecodeStatePrune:
** the kept values in order after the header, a bitmap over the output's elements. */
#include "kernels/custom/decode.h"

#include <string.h>

/* The output's zero points as TFLM's Setup reads them: per tensor, or per channel along
** axis 0 or the last axis; nonzero only for int8 (and kept per channel only when more than
** one channel has them). */
static pl_status zero_points(pl_context *ctx, uint32_t i, const pl_tensor *out,
                             pl_decode_pair *p)
{
    const pl_quant *q = &out->q;
    p->channels = q->count;
    p->alternate = q->quantized_dimension == out->ndims - 1 && q->count > 1;
    if (!p->alternate && q->quantized_dimension != 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "pair %u: quantized axis %d (0 or the last)",
                         i, q->quantized_dimension);
    bool nonzero = false;
    for (uint32_t c = 0; c < q->count; c++)
        nonzero = nonzero || q->zero_point[c] != 0;
    if (nonzero && out->type != PL_INT8)
        return ctx->fail(ctx, PL_ERR_MODEL, "pair %u: pruned %s needs zero points of 0", i,
                         pl_type_name(out->type));
    if (!nonzero || q->count == 1) {
        p->zero_point = (int8_t)(uint8_t)(q->zero_point[0] & 0xFF); /* TFLM keeps an int8 */
        return PL_OK;
    }
    if (p->count % p->channels != 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "pair %u: %zu elements in %zu channels", i,
                         p->count, p->channels);
    void *zps = NULL;
    PL_TRY(ctx->alloc_persistent(ctx, p->channels, &zps));
    for (uint32_t c = 0; c < q->count; c++)
        ((int8_t *)zps)[c] = (int8_t)(uint8_t)(q->zero_point[c] & 0xFF);
    p->zero_points = zps;
    return PL_OK;
}

pl_status pl_decode_prune_setup(pl_context *ctx, uint32_t i, const pl_tensor *out,
                                pl_decode_pair *p)
{
    if (out->q.count > 0)
        PL_TRY(zero_points(ctx, i, out, p));
    p->per_channel = p->alternate ? 1 : p->count / p->channels;
    if ((p->count + 7) / 8 > p->data_bytes)
        return ctx->fail(ctx, PL_ERR_MODEL, "pair %u: a bitmap of %zu elements in %zu bytes",
                         i, p->count, p->data_bytes);
    return PL_OK;
}

/* The pruned value of element k: its channel's zero point (0 but for int8). */
static void zero_fill(const pl_decode_pair *p, size_t k, uint8_t *out)
{
    memset(out, 0, p->size);
    if (p->zero_points != NULL) {
        size_t channel = p->alternate ? k % p->channels : k / p->per_channel;
        out[0] = (uint8_t)p->zero_points[channel];
    } else if (p->size == 1) {
        out[0] = (uint8_t)p->zero_point;
    }
}

pl_status pl_decode_prune_run(pl_context *ctx, const pl_decode_pair *p, uint8_t *out)
{
    size_t next = 0, entries = p->table_bytes / p->size;
    for (size_t k = 0; k < p->count; k++, out += p->size) {
        if (((p->data[k >> 3] >> (7u - (k & 7u))) & 1u) == 0) {
            zero_fill(p, k, out);
            continue;
        }
        if (next >= entries)
            return ctx->fail(ctx, PL_ERR_MODEL, "element %zu: kept value %zu past the "
                             "%zu-entry value table", k, next, entries);
        memcpy(out, p->table + next++ * p->size, p->size);
    }
    return PL_OK;
}
