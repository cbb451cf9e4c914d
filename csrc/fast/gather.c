/* gather.c - GATHER's fast path, any fixed-size element type (STRING params keep the portable
** kernel). The portable kernel reads every index through a function and a type switch twice
** (its check, then its copy) and copies each row with a memcpy of a size known only at run
** time; here the indices are read as their type, checked in one pass (any outside
** 0..axis_size - 1 runs the portable invoke, which fails naming it), and rows of one element
** of 1, 2, 4 or 8 bytes are moved as one load and store. The rows are the portable kernel's,
** in its order: its bytes. */
#include <string.h>

#include "fast/fast.h"
#include "kernels/gather/gather_fast.h"

typedef struct gather_plan {
    size_t row;       /* bytes of one output row */
} gather_plan;

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_gather_op *d = node->user_data;
    pl_tensor p, idx;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &p) != PL_OK ||
        ctx->get_eval(ctx, pl_node_input(node, 1), &idx) != PL_OK ||
        p.type == PL_STRING || pl_type_size(p.type) == 0 ||
        (idx.type != PL_INT16 && idx.type != PL_INT32 && idx.type != PL_INT64))
        return false;
    gather_plan *gp = pl_fast_block_new(node, sizeof *gp);
    if (gp == NULL)
        return false;
    gp->row = d->inner * pl_type_size(p.type);
    return true;
}

pl_status pl_fast_gather_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

/* Whether all n indices of TYPE at x are in 0..size - 1. */
#define IN_RANGE(NAME, TYPE)                                                              \
    static bool NAME(const uint8_t *x, size_t n, int32_t size)                            \
    {                                                                                     \
        bool bad = false;                                                                 \
        for (size_t k = 0; k < n; k++) {                                                  \
            TYPE v;                                                                       \
            memcpy(&v, x + k * sizeof v, sizeof v);                                       \
            bad |= v < 0 || v >= size;                                                    \
        }                                                                                 \
        return !bad;                                                                      \
    }

IN_RANGE(in_range_s16, int16_t)
IN_RANGE(in_range_s32, int32_t)
IN_RANGE(in_range_s64, int64_t)

/* Rows of ROW bytes (a constant: one load and store when small) for n indices of TYPE. */
#define COPY_ROWS(TYPE, ROW)                                                              \
    for (size_t c = 0; c < n; c++, dst += (ROW)) {                                        \
        TYPE v;                                                                           \
        memcpy(&v, index + c * sizeof v, sizeof v);                                       \
        memcpy(dst, plane + (size_t)v * (ROW), (ROW));                                    \
    }

#define COPY_BY_ROW(TYPE)                                                                 \
    switch (row) {                                                                        \
    case 1: COPY_ROWS(TYPE, 1) break;                                                     \
    case 2: COPY_ROWS(TYPE, 2) break;                                                     \
    case 4: COPY_ROWS(TYPE, 4) break;                                                     \
    case 8: COPY_ROWS(TYPE, 8) break;                                                     \
    default: COPY_ROWS(TYPE, row) break;                                                  \
    }

/* Output rows for n indices (index: their bytes, of type) from plane, at dst; returns the
** end of what it wrote. */
static uint8_t *copy_rows(uint8_t *dst, const uint8_t *plane, const uint8_t *index, size_t n,
                          pl_type type, size_t row)
{
    if (type == PL_INT16)
        COPY_BY_ROW(int16_t)
    else if (type == PL_INT32)
        COPY_BY_ROW(int32_t)
    else
        COPY_BY_ROW(int64_t)
    return dst;
}

pl_status pl_fast_gather_invoke(pl_context *ctx, pl_node *node)
{
    const pl_gather_op *d = node->user_data;
    const gather_plan *gp = pl_fast_block(node);
    if (gp == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    pl_tensor p, idx, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &p));
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 1), &idx));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    const size_t count = d->batch * d->coords, is = pl_type_size(idx.type);
    bool ok = idx.type == PL_INT16   ? in_range_s16(idx.data, count, d->axis_size)
              : idx.type == PL_INT32 ? in_range_s32(idx.data, count, d->axis_size)
                                     : in_range_s64(idx.data, count, d->axis_size);
    if (!ok)
        return pl_fast_reg_of(node)->base->invoke(ctx, node); /* it fails, naming the index */
    const uint8_t *src = p.data, *index = idx.data;
    uint8_t *dst = out.data;
    const size_t row = gp->row, axis = (size_t)d->axis_size;
    for (size_t b = 0; b < d->batch; b++)
        for (size_t r = 0; r < d->outer; r++)
            dst = copy_rows(dst, src + (b * d->outer + r) * axis * row,
                            index + b * d->coords * is, d->coords, idx.type, row);
    return PL_OK;
}
