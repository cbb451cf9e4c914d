/* strided_slice.c - STRIDED_SLICE's fast path, any element type: the portable kernel's
** strided copy with its axes reduced at prepare (runs.h). Axes of one index only move the
** start; the innermost axes that read consecutive elements merge into one run copied whole
** (a microWakeWord ring buffer's slice is one or a few runs); the others stay loops. The
** bytes are the portable kernel's (a copy); an empty slice keeps the portable kernel. */
#include <string.h>

#include "fast/fast.h"
#include "fast/runs.h"
#include "kernels/shape/strided_slice_fast.h"

typedef struct slice_plan {
    pl_fast_runs runs;
} slice_plan;

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_strided_slice_op *d = node->user_data;
    pl_tensor in;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK || pl_type_size(in.type) == 0)
        return false;
    slice_plan sp;
    if (!pl_fast_runs_plan(d->ndims, d->start, d->stride, d->count, d->in_step,
                           pl_type_size(in.type), &sp.runs))
        return false;
    return pl_fast_block_put(node, &sp, sizeof sp);
}

pl_status pl_fast_strided_slice_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

pl_status pl_fast_strided_slice_invoke(pl_context *ctx, pl_node *node)
{
    const slice_plan *sp = pl_fast_block(node);
    if (sp == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    pl_fast_runs_copy(&sp->runs, pl_fast_data(ctx, pl_node_input(node, 0)),
                      pl_fast_data(ctx, pl_node_output(node, 0)));
    return PL_OK;
}
