/* gather.c - GATHER's fast path, any fixed-size element type (STRING params keep the portable
** kernel). The portable kernel reads every index through a type switch twice (its check,
** then its copy); here the indices are widened once into host memory while checked, then
** each output row is one memcpy (an embedding lookup: one row per index). Any index outside
** 0..axis_size - 1 runs the portable invoke, which fails naming it as before. The rows are
** the portable kernel's, in its order: its bytes. */
#include <string.h>

#include "fast/fast.h"
#include "kernels/gather/gather_fast.h"

typedef struct gather_plan {
    pl_gather_op op;  /* what the plan was made from */
    size_t row;       /* bytes of one output row */
    size_t count;     /* indices: batch * coords */
    int64_t index[];  /* the indices of the current invoke, widened */
} gather_plan;

enum { MAX_INDICES = 1 << 16 }; /* more keep the portable kernel (host memory bounded) */

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_gather_op *d = node->user_data;
    pl_tensor p, idx;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &p) != PL_OK ||
        ctx->get_eval(ctx, pl_node_input(node, 1), &idx) != PL_OK ||
        p.type == PL_STRING || pl_type_size(p.type) == 0 ||
        (idx.type != PL_INT16 && idx.type != PL_INT32 && idx.type != PL_INT64))
        return false;
    size_t count = d->batch * d->coords;
    if (count > MAX_INDICES || count == 0)
        return false;
    gather_plan *gp = pl_fast_block_new(node, sizeof *gp + count * sizeof(int64_t));
    if (gp == NULL)
        return false;
    memcpy(&gp->op, d, sizeof gp->op); /* padding too: invoke compares the bytes */
    gp->row = d->inner * pl_type_size(p.type);
    gp->count = count;
    return true;
}

pl_status pl_fast_gather_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

/* Widens the indices into gp->index; false when one is outside 0..size - 1. */
#define WIDEN(TYPE)                                                                       \
    do {                                                                                  \
        for (size_t k = 0; k < gp->count; k++) {                                          \
            TYPE v;                                                                       \
            memcpy(&v, (const uint8_t *)idx->data + k * sizeof v, sizeof v);              \
            bad |= v < 0 || v >= size;                                                    \
            gp->index[k] = (int64_t)v;                                                    \
        }                                                                                 \
    } while (0)

static bool read_indices(gather_plan *gp, const pl_tensor *idx, int32_t size)
{
    bool bad = false;
    if (idx->type == PL_INT16)
        WIDEN(int16_t);
    else if (idx->type == PL_INT32)
        WIDEN(int32_t);
    else
        WIDEN(int64_t);
    return !bad;
}

pl_status pl_fast_gather_invoke(pl_context *ctx, pl_node *node)
{
    const pl_gather_op *d = node->user_data;
    gather_plan *gp = pl_fast_block(node);
    pl_tensor p, idx, out;
    /* a block of other op data: a resized model's prepare folding before this plan */
    if (gp != NULL && memcmp(&gp->op, d, sizeof gp->op) != 0)
        gp = NULL;
    if (gp != NULL) {
        PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &p));
        PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 1), &idx));
        PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    }
    if (gp == NULL || !read_indices(gp, &idx, d->axis_size))
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const uint8_t *src = p.data;
    uint8_t *dst = out.data;
    const size_t row = gp->row, axis = (size_t)d->axis_size;
    for (size_t b = 0; b < d->batch; b++) {
        const int64_t *index = gp->index + b * d->coords;
        for (size_t r = 0; r < d->outer; r++) {
            const uint8_t *plane = src + (b * d->outer + r) * axis * row;
            for (size_t c = 0; c < d->coords; c++, dst += row)
                memcpy(dst, plane + (size_t)index[c] * row, row);
        }
    }
    return PL_OK;
}
