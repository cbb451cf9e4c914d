/* transpose.c - TRANSPOSE's fast path, any element type. The portable kernel walks the output
** element by element (a memcpy and an odometer step each); here the walk is reduced at
** prepare (runs.h: axes of one index dropped, axes adjacent in the input too merged). When
** the innermost output axis reads consecutive input elements, rows are copied whole;
** otherwise the output axis that does (the input's innermost) and the output's innermost
** form a 2-D transpose done in 16 x 16 tiles (NHWC -> NCHW is one such transpose per batch).
** Every output element is the input element the portable walk copies there (the walk is the
** op data's: CMSIS-NN's int8 permutation included): the portable kernel's bytes. */
#include <string.h>

#include "fast/fast.h"
#include "fast/runs.h"
#include "kernels/shape/transpose_fast.h"

typedef struct transpose_plan {
    pl_fast_runs runs;
    int32_t tile_axis; /* -1: runs; else the loop reading consecutive elements */
} transpose_plan;

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_transpose_op *d = node->user_data;
    pl_tensor in;
    if (d->ndims < 1 || ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        pl_type_size(in.type) == 0)
        return false;
    int32_t zero[PL_TRANSPOSE_MAX_DIMS] = {0}, one[PL_TRANSPOSE_MAX_DIMS];
    int64_t step[PL_TRANSPOSE_MAX_DIMS];
    for (int32_t a = 0; a < d->ndims; a++)
        one[a] = 1, step[a] = (int64_t)d->in_step[a];
    transpose_plan tp = {.tile_axis = -1};
    size_t esize = pl_type_size(in.type);
    if (!pl_fast_runs_plan(d->ndims, zero, one, d->out_dims, step, esize, &tp.runs))
        return false;
    const pl_fast_runs *r = &tp.runs;
    for (int32_t a = 0; r->run == esize && a + 1 < r->axes; a++)
        if (r->step[a] == (int64_t)esize)
            tp.tile_axis = a;
    return pl_fast_block_put(node, &tp, sizeof tp);
}

pl_status pl_fast_transpose_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

enum { TILE = 16 };

/* dst[p * dst_row + q] = src[p + q * src_col] for p < rows, q < cols, in tiles; elements of
** ES bytes, each one memcpy (a load and a store: any alignment, any type). */
#define TILED(NAME, ES)                                                                    \
    static void NAME(uint8_t *dst, const uint8_t *src, size_t rows, size_t cols,           \
                     size_t dst_row, size_t src_col)                                       \
    {                                                                                      \
        for (size_t p0 = 0; p0 < rows; p0 += TILE) {                                       \
            size_t p1 = p0 + TILE < rows ? p0 + TILE : rows;                               \
            for (size_t q0 = 0; q0 < cols; q0 += TILE) {                                   \
                size_t q1 = q0 + TILE < cols ? q0 + TILE : cols;                           \
                for (size_t p = p0; p < p1; p++)                                           \
                    for (size_t q = q0; q < q1; q++)                                       \
                        memcpy(dst + (p * dst_row + q) * ES, src + (p + q * src_col) * ES, \
                               ES);                                                        \
            }                                                                              \
        }                                                                                  \
    }

TILED(tile_1, 1)
TILED(tile_2, 2)
TILED(tile_4, 4)
TILED(tile_8, 8)
TILED(tile_16, 16)

/* One 2-D transpose of plane t at byte offsets src and dst. */
static void tile_plane(const pl_fast_runs *r, int32_t t, uint8_t *dst, const uint8_t *src,
                       size_t dst_row)
{
    size_t rows = (size_t)r->count[t], cols = (size_t)r->count[r->axes - 1];
    size_t src_col = (size_t)r->step[r->axes - 1] / r->run;
    switch (r->run) {
    case 1: tile_1(dst, src, rows, cols, dst_row, src_col); break;
    case 2: tile_2(dst, src, rows, cols, dst_row, src_col); break;
    case 4: tile_4(dst, src, rows, cols, dst_row, src_col); break;
    case 8: tile_8(dst, src, rows, cols, dst_row, src_col); break;
    default: tile_16(dst, src, rows, cols, dst_row, src_col); break;
    }
}

/* The tiled walk: every index of the loops other than the plane's two, as an odometer. */
static void tiled(const transpose_plan *tp, const uint8_t *in, uint8_t *out)
{
    const pl_fast_runs *r = &tp->runs;
    int64_t out_step[PL_MAX_DIMS], s = (int64_t)r->run; /* output bytes per index */
    for (int32_t a = r->axes - 1; a >= 0; a--) {
        out_step[a] = s;
        s *= r->count[a];
    }
    const int32_t t = tp->tile_axis, last = r->axes - 1;
    const size_t dst_row = (size_t)(out_step[t] / (int64_t)r->run);
    int32_t at[PL_MAX_DIMS] = {0};
    int64_t src = r->first, dst = 0;
    for (;;) {
        tile_plane(r, t, out + dst, in + src, dst_row);
        int32_t a = last - 1;
        for (; a >= 0; a--) {
            if (a == t)
                continue;
            src += r->step[a], dst += out_step[a];
            if (++at[a] < r->count[a])
                break;
            src -= r->step[a] * r->count[a], dst -= out_step[a] * r->count[a];
            at[a] = 0;
        }
        if (a < 0)
            return;
    }
}

pl_status pl_fast_transpose_invoke(pl_context *ctx, pl_node *node)
{
    const transpose_plan *tp = pl_fast_block(node);
    if (tp == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    pl_tensor in, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    if (tp->tile_axis < 0)
        pl_fast_runs_copy(&tp->runs, in.data, out.data);
    else
        tiled(tp, in.data, out.data);
    return PL_OK;
}
