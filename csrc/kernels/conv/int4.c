/* int4.c - unpacking int4 filters into scratch (int4.h). */
#include "int4.h"

void pl_int4_unpack(const uint8_t *packed, size_t count, int8_t *out)
{
    for (size_t i = 0; i < count; i++) {
        uint8_t nibble = (uint8_t)(packed[i / 2] >> (4 * (i % 2))) & 0x0Fu;
        out[i] = (int8_t)((int32_t)(nibble ^ 0x08u) - 8); /* sign-extend 4 bits */
    }
}

pl_status pl_int4_filter_prepare(pl_context *ctx, const char *op, const pl_tensor *f,
                                 int32_t *scratch)
{
    if (!f->is_constant || f->data == NULL)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s: an int4 filter must be a constant",
                         op);
    return ctx->request_scratch(ctx, pl_tensor_count(f), scratch);
}

const int8_t *pl_int4_filter_unpack(pl_context *ctx, const char *op, const pl_tensor *f,
                                    int32_t scratch)
{
    int8_t *out = ctx->get_scratch(ctx, scratch);
    if (out == NULL) {
        ctx->fail(ctx, PL_ERR_STATE, "%s: the int4 filter's scratch buffer %d is missing", op,
                  (int)scratch);
        return NULL;
    }
    pl_int4_unpack(f->data, pl_tensor_count(f), out);
    return out;
}
