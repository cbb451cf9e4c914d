/* strided_slice.c - STRIDED_SLICE's fast path, any element type: the portable kernel's
** strided copy with its axes reduced at prepare. Axes of one index only move the start; the
** innermost axes that read consecutive elements merge into one run copied whole (a
** microWakeWord ring buffer's slice is one or a few runs); the others stay loops. The bytes
** are the portable kernel's (a copy); an empty slice keeps the portable kernel. */
#include <string.h>

#include "fast/fast.h"
#include "kernels/shape/strided_slice_fast.h"

typedef struct slice_plan {
    int32_t axes;                                 /* loops around the runs */
    int32_t count[PL_STRIDED_SLICE_MAX_DIMS];     /* outermost first */
    int64_t step[PL_STRIDED_SLICE_MAX_DIMS];      /* bytes between indices of each loop */
    int64_t first;                                /* byte offset of the first run */
    size_t run;                                   /* bytes copied whole */
} slice_plan;

/* The reduced copy of d's slice of elements of esize bytes; false when it is empty. */
static bool reduce(const pl_strided_slice_op *d, size_t esize, slice_plan *sp)
{
    int32_t count[PL_STRIDED_SLICE_MAX_DIMS];
    int64_t step[PL_STRIDED_SLICE_MAX_DIMS];
    int32_t n = 0;
    memset(sp, 0, sizeof *sp);
    for (int32_t a = 0; a < d->ndims; a++) {
        if (d->count[a] == 0)
            return false;
        sp->first += (int64_t)d->start[a] * d->in_step[a];
        if (d->count[a] > 1) { /* an axis of one index only moves the start */
            count[n] = d->count[a];
            step[n++] = (int64_t)d->stride[a] * d->in_step[a];
        }
    }
    int64_t run = 1; /* elements: the innermost loops that read consecutive elements */
    while (n > 0 && step[n - 1] == run) {
        run *= count[n - 1];
        n--;
    }
    sp->axes = n;
    for (int32_t k = 0; k < n; k++) {
        sp->count[k] = count[k];
        sp->step[k] = step[k] * (int64_t)esize;
    }
    sp->first *= (int64_t)esize;
    sp->run = (size_t)run * esize;
    return true;
}

static bool plan(pl_context *ctx, const pl_node *node)
{
    pl_tensor in;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK || pl_type_size(in.type) == 0)
        return false;
    slice_plan sp;
    if (!reduce(node->user_data, pl_type_size(in.type), &sp))
        return false;
    void *block = pl_fast_block_new(node, sizeof sp);
    if (block != NULL)
        memcpy(block, &sp, sizeof sp);
    return block != NULL;
}

pl_status pl_fast_strided_slice_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

/* The innermost loop: count runs of run bytes, step bytes apart (single elements of the
** common sizes as one load each). */
static uint8_t *copy_runs(uint8_t *dst, const uint8_t *src, int32_t count, int64_t step,
                          size_t run)
{
    switch (run) {
    case 1:
        for (int32_t j = 0; j < count; j++)
            dst[j] = src[(int64_t)j * step];
        return dst + count;
    case 4:
        for (int32_t j = 0; j < count; j++)
            memcpy(dst + 4 * (size_t)j, src + (int64_t)j * step, 4);
        return dst + 4 * (size_t)count;
    default:
        for (int32_t j = 0; j < count; j++, dst += run)
            memcpy(dst, src + (int64_t)j * step, run);
        return dst;
    }
}

pl_status pl_fast_strided_slice_invoke(pl_context *ctx, pl_node *node)
{
    const slice_plan *sp = pl_fast_block(node);
    if (sp == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    pl_tensor in, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    const uint8_t *base = in.data;
    uint8_t *dst = out.data;
    if (sp->axes == 0) {
        memcpy(dst, base + sp->first, sp->run);
        return PL_OK;
    }
    const int32_t inner = sp->axes - 1;
    int32_t at[PL_STRIDED_SLICE_MAX_DIMS] = {0};
    int64_t src = sp->first; /* an offset: the odometer's carries pass the input's ends */
    for (;;) {
        dst = copy_runs(dst, base + src, sp->count[inner], sp->step[inner], sp->run);
        int32_t a = inner - 1; /* the next index of the outer loops, as an odometer */
        for (; a >= 0; a--) {
            src += sp->step[a];
            if (++at[a] < sp->count[a])
                break;
            src -= sp->step[a] * sp->count[a];
            at[a] = 0;
        }
        if (a < 0)
            return PL_OK;
    }
}
