/* slice.c - SLICE's fast path, any element type: the portable kernel's box copy (a memcpy per
** innermost row, its offset recomputed over every axis) as a reduced gather (runs.h): the
** innermost axes the box takes whole merge with the row into one run (a 1 x 49 x 40 ring
** buffer's slice is one run). A copy: the portable kernel's bytes. begin and size read at
** invoke, and an empty box, keep the portable kernel. */
#include <string.h>

#include "fast/fast.h"
#include "fast/runs.h"
#include "kernels/shape/slice_fast.h"

typedef struct slice_plan {
    pl_fast_runs runs;
    int32_t ndims;
    int32_t in_dims[PL_MAX_DIMS]; /* what the runs were reduced for */
} slice_plan;

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_slice_op *d = node->user_data;
    pl_tensor in;
    if (!d->ready || ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        pl_type_size(in.type) == 0)
        return false;
    int32_t stride[PL_MAX_DIMS];
    int64_t step[PL_MAX_DIMS], s = 1;
    for (int32_t a = in.ndims - 1; a >= 0; a--) {
        stride[a] = 1;
        step[a] = s;
        s *= in.dims[a];
    }
    slice_plan sp = {.ndims = in.ndims};
    memcpy(sp.in_dims, in.dims, sizeof(int32_t) * (size_t)in.ndims);
    if (!pl_fast_runs_plan(in.ndims, d->begin, stride, d->size, step, pl_type_size(in.type),
                           &sp.runs))
        return false;
    return pl_fast_block_put(node, &sp, sizeof sp);
}

pl_status pl_fast_slice_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

/* The output holds the box and the input is the one planned for (else the portable invoke
** runs and reports). */
static bool same_shapes(const slice_plan *sp, const pl_slice_op *d, const pl_tensor *in,
                        const pl_tensor *out)
{
    if (in->ndims != sp->ndims || out->ndims != sp->ndims)
        return false;
    for (int32_t a = 0; a < sp->ndims; a++)
        if (in->dims[a] != sp->in_dims[a] || out->dims[a] != d->size[a])
            return false;
    return true;
}

pl_status pl_fast_slice_invoke(pl_context *ctx, pl_node *node)
{
    const slice_plan *sp = pl_fast_block(node);
    pl_tensor in, out;
    if (sp != NULL) {
        PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
        PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    }
    if (sp == NULL || !same_shapes(sp, node->user_data, &in, &out))
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    pl_fast_runs_copy(&sp->runs, in.data, out.data);
    return PL_OK;
}
