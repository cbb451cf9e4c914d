/* pad.c - PAD and PADV2's fast path, any element type. The portable kernel fills the whole
** output with the pad value and then copies each innermost input row (a memcpy of one row,
** its offset recomputed over every axis); here every unpadded axis merges into the axis
** around it at prepare (a 1 x 112 x 112 x 32 input padded in H and W copies rows of 112 x 32
** elements), and the output is written once, in order: the pad before, the input's part,
** the pad after, per axis. The value is pl_pad_value's, as the portable invoke's; each output
** byte is the value's or the input's as there: the portable kernel's bytes. */
#include <string.h>

#include "fast/fast.h"
#include "kernels/shape/pad_fast.h"

typedef struct pad_plan {
    int32_t axes;                      /* after merging, at least 1 */
    size_t esize;
    size_t in_bytes[PL_PAD_MAX_DIMS];  /* bytes of one index of each axis, input and output */
    size_t out_bytes[PL_PAD_MAX_DIMS];
    int32_t in_dims[PL_PAD_MAX_DIMS];  /* indices taken from the input */
    size_t before[PL_PAD_MAX_DIMS];    /* bytes of pad before and after the input's part */
    size_t after[PL_PAD_MAX_DIMS];
} pad_plan;

/* Merges every unpadded axis into the one around it: its indices become those of the outer
** axis times its own (the element offsets are the same). */
static void reduce(const pl_pad_op *d, size_t esize, pad_plan *pp)
{
    int64_t in[PL_PAD_MAX_DIMS], out[PL_PAD_MAX_DIMS], before[PL_PAD_MAX_DIMS];
    int32_t n = 0;
    for (int32_t a = 0; a < d->ndims; a++) {
        bool padded = d->in_dims[a] != d->out_dims[a];
        if (n > 0 && !padded) {
            in[n - 1] *= d->in_dims[a];
            out[n - 1] *= d->out_dims[a];
            before[n - 1] *= d->out_dims[a];
            continue;
        }
        in[n] = d->in_dims[a], out[n] = d->out_dims[a], before[n++] = d->before[a];
    }
    memset(pp, 0, sizeof *pp);
    pp->axes = n;
    pp->esize = esize;
    size_t in_inner = esize, out_inner = esize;
    for (int32_t a = n - 1; a >= 0; a--) {
        pp->in_bytes[a] = in_inner;
        pp->out_bytes[a] = out_inner;
        pp->in_dims[a] = (int32_t)in[a];
        pp->before[a] = (size_t)before[a] * out_inner;
        pp->after[a] = (size_t)(out[a] - before[a] - in[a]) * out_inner;
        in_inner *= (size_t)in[a];
        out_inner *= (size_t)out[a];
    }
}

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_pad_op *d = node->user_data;
    pl_tensor in;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK || d->ndims < 1 ||
        pl_type_size(in.type) == 0 || pl_type_size(in.type) > PL_PAD_MAX_ELEMENT)
        return false;
    for (int32_t a = 0; a < d->ndims; a++)
        if (d->out_dims[a] > (int32_t)(INT32_MAX / 2) || d->in_dims[a] != in.dims[a])
            return false;
    pad_plan pp;
    reduce(d, pl_type_size(in.type), &pp);
    return pl_fast_block_put(node, &pp, sizeof pp);
}

pl_status pl_fast_pad_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

enum { PATTERN = 64 }; /* bytes: a multiple of every element size (1, 2, 4, 8, 16) */

/* bytes of the value repeated (a multiple of its size): memset for one byte, else copies of
** the 64-byte pattern. */
static uint8_t *fill(uint8_t *dst, size_t bytes, const uint8_t *pattern, size_t esize)
{
    if (esize == 1) {
        memset(dst, pattern[0], bytes);
        return dst + bytes;
    }
    for (; bytes >= PATTERN; bytes -= PATTERN, dst += PATTERN)
        memcpy(dst, pattern, PATTERN);
    memcpy(dst, pattern, bytes);
    return dst + bytes;
}

/* Writes output axis a and those inside it (one index of the axis around it), from src. */
static uint8_t *pad_axis(const pad_plan *pp, int32_t a, uint8_t *dst, const uint8_t *src,
                         const uint8_t *pattern)
{
    dst = fill(dst, pp->before[a], pattern, pp->esize);
    if (a == pp->axes - 1) {
        size_t row = (size_t)pp->in_dims[a] * pp->esize;
        memcpy(dst, src, row);
        dst += row;
    } else {
        for (int32_t i = 0; i < pp->in_dims[a]; i++)
            dst = pad_axis(pp, a + 1, dst, src + (size_t)i * pp->in_bytes[a], pattern);
    }
    return fill(dst, pp->after[a], pattern, pp->esize);
}

pl_status pl_fast_pad_invoke(pl_context *ctx, pl_node *node)
{
    const pad_plan *pp = pl_fast_block(node);
    if (pp == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    pl_tensor in, v, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 2), &v));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    uint8_t value[PL_PAD_MAX_ELEMENT], pattern[PATTERN];
    pl_pad_value(node->user_data, out.type, &v, value);
    for (size_t k = 0; k < PATTERN; k += pp->esize)
        memcpy(pattern + k, value, pp->esize);
    pad_axis(pp, 0, out.data, in.data, pattern);
    return PL_OK;
}
