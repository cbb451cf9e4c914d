/* gather_string.c - GATHER of STRING params, as TFLite's GatherStrings.
**
** A string tensor's memory is TFLite's string buffer: int32 count, int32 offsets[count + 1]
** from the buffer's start, then the text. Params in the arena were written by set_tensor or
** an earlier kernel, and the arena's caller may have written them since: every offset is
** checked against the params' bytes before a string is read, and the result against the
** output's capacity before it is written. */
#include "gather_string.h"

#include <string.h>

#include "kernels/shape/operand.h"

static void put_le32(uint8_t *p, size_t v)
{
    for (int b = 0; b < 4; b++)
        p[b] = (uint8_t)(v >> (8 * b));
}

pl_status pl_gather_strings(pl_context *ctx, const pl_tensor *p, const pl_tensor *idx,
                            const pl_tensor *out, size_t n)
{
    const uint8_t *src = p->data;
    uint8_t *dst = out->data;
    size_t count = (size_t)p->dims[0], head = 4u * (count + 2u);
    if (p->bytes < head || pl_le32(src) != count)
        return ctx->fail(ctx, PL_ERR_ARG, "GATHER: params (tensor %d) holds no buffer of %zu "
                         "strings; set it first", (int)p->index, count);
    size_t at = 4u * (n + 2u);
    if (at > out->bytes)
        return ctx->fail(ctx, PL_ERR_ARG, "GATHER: %zu strings need %zu bytes, the output "
                         "holds %zu", n, at, out->bytes);
    for (size_t k = 0; k < n; k++) {
        size_t i = (size_t)pl_operand_at(idx, k);
        size_t a = pl_le32(src + 4u + 4u * i), b = pl_le32(src + 8u + 4u * i);
        if (a < head || b < a || b > p->bytes)
            return ctx->fail(ctx, PL_ERR_ARG, "GATHER: string %zu of params (tensor %d) lies "
                             "at %zu..%zu, outside its text at %zu..%zu", i, (int)p->index,
                             a, b, head, p->bytes);
        if (b - a > out->bytes - at)
            return ctx->fail(ctx, PL_ERR_ARG, "GATHER: the gathered strings need more than "
                             "the output's %zu bytes (a string tensor holds %u bytes of text "
                             "per element)", out->bytes, (unsigned)PL_STRING_BYTES);
        memcpy(dst + at, src + a, b - a);
        put_le32(dst + 4u + 4u * k, at);
        at += b - a;
    }
    put_le32(dst, n);
    put_le32(dst + 4u + 4u * n, at);
    return PL_OK;
}
