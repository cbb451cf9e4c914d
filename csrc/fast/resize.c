/* resize.c - RESIZE_BILINEAR's and RESIZE_NEAREST_NEIGHBOR's fast paths, for a constant size
** in a one-subgraph model (the kernels keep no op data: the block is found by the node's index).
** The portable kernels recompute both source coordinates, and the element's offset, for
** every output element; here prepare tabulates them per output row and column with the
** portable kernels' own functions (resize_fast.h) and invoke runs over the channels.
** Nearest copies a source pixel per output pixel, and a whole output row when it reads the
** source row of the row before (what the portable kernel writes there too). Bilinear runs
** resize_body.h's pixel, built for the instruction set: each element the portable kernel's
** expression operation for operation. A fused target's float (ctx->fused_madd) needs FMA
** (AVX2, AVX-512, NEON); SSE4.1 keeps the portable kernel there. */
#include <string.h>

#include "fast/fast.h"
#include "kernels/image/resize_fast.h"

#define PL_RESIZE_PX_NAME pl_fast_bilinear_px_c
#include "fast/resize_body.h"

typedef struct axis_entry {
    int32_t lo, hi; /* source indices (nearest: lo) */
    float wf;       /* float weight of hi */
    int32_t wq;     /* integer weight of hi, in 1/1024ths */
} axis_entry;

typedef struct resize_plan {
    int32_t in_dims[4], out_dims[4];
    pl_type type;
    bool bilinear;
    bool fused;               /* float on a fused target (the coordinates fused too) */
    pl_fast_bilinear_px px;   /* the set's bilinear pixel */
    axis_entry *rows, *cols; /* out_dims[1] then out_dims[2] entries, after the plan */
} resize_plan;

static void tabulate(resize_plan *rp, axis_entry *e, int32_t axis, bool align, bool half)
{
    const bool fused = rp->fused; /* the half-pixel coordinate fused too */
    int32_t in = rp->in_dims[axis], out = rp->out_dims[axis];
    bool floats = rp->type == PL_FLOAT32 || rp->type == PL_UINT8;
    float sf = pl_resize_scale_f(in, out, align);
    int32_t sq = pl_resize_scale_q(in, out, align);
    for (int32_t v = 0; v < out; v++) {
        memset(&e[v], 0, sizeof e[v]);
        if (!rp->bilinear) {
            e[v].lo = e[v].hi = pl_resize_nearest_index(v, in, out, align, half);
        } else if (floats) {
            pl_resize_axis_f a = pl_resize_coord_f(v, sf, half, fused, in);
            e[v].lo = a.lo, e[v].hi = a.hi, e[v].wf = a.at - (float)a.lo;
        } else {
            pl_resize_axis_q a = pl_resize_coord_q(v, sq, half, in);
            e[v].lo = a.lo, e[v].hi = a.hi, e[v].wq = a.at - (1 << 10) * a.lo;
        }
    }
}

/* int8's sum stays in int32 when no weight leaves -1024..1024 (the coordinates keep them in
** -512..1023): checked, else the plan declines. */
static bool weights_fit(const axis_entry *e, int32_t n)
{
    for (int32_t v = 0; v < n; v++)
        if (e[v].wq < -1024 || e[v].wq > 1024)
            return false;
    return true;
}

/* isa's bilinear pixel; *fma whether it has FMA (a fused target's float). */
static pl_fast_bilinear_px px_for(pl_isa isa, bool *fma)
{
    *fma = false;
#if defined(PL_FAST_X86)
    *fma = isa == PL_ISA_AVX2 || isa == PL_ISA_AVX512;
    if (isa == PL_ISA_AVX2 || isa == PL_ISA_AVX512 || isa == PL_ISA_SSE41)
        return *fma ? pl_fast_bilinear_px_avx2 : pl_fast_bilinear_px_sse41;
#elif defined(PL_FAST_ARM64)
    *fma = isa == PL_ISA_NEON || isa == PL_ISA_NEON_DOT;
    if (*fma)
        return pl_fast_bilinear_px_neon;
#endif
    (void)isa;
    return pl_fast_bilinear_px_c;
}

static bool plan(pl_context *ctx, const pl_node *node, bool bilinear)
{
    pl_tensor in, size, out;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        ctx->get_eval(ctx, pl_node_input(node, 1), &size) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK || !size.is_constant ||
        in.ndims != 4 || out.ndims != 4 || pl_type_size(in.type) == 0)
        return false;
    bool floats = in.type == PL_FLOAT32 || in.type == PL_UINT8;
    bool fused = bilinear && in.type == PL_FLOAT32 && ctx->fused_madd, fma;
    pl_fast_bilinear_px px = px_for(pl_fast_isa_of(node), &fma);
    if (fused && !fma)
        return false;
    bool align = pl_table_bool(&node->options, bilinear ? PL_RESIZE_BILINEAR_ALIGN_CORNERS
                                                        : PL_RESIZE_NEAREST_ALIGN_CORNERS,
                               false);
    bool half = pl_table_bool(&node->options, bilinear ? PL_RESIZE_BILINEAR_HALF_PIXEL_CENTERS
                                                       : PL_RESIZE_NEAREST_HALF_PIXEL_CENTERS,
                              false);
    size_t head = (sizeof(resize_plan) + 15) & ~(size_t)15;
    size_t entries = (size_t)out.dims[1] + (size_t)out.dims[2];
    resize_plan *rp = pl_fast_node_block_new(ctx, node, head + entries * sizeof(axis_entry));
    if (rp == NULL)
        return false;
    memcpy(rp->in_dims, in.dims, sizeof rp->in_dims);
    memcpy(rp->out_dims, out.dims, sizeof rp->out_dims);
    rp->type = in.type;
    rp->bilinear = bilinear;
    rp->fused = fused;
    rp->px = px;
    rp->rows = (axis_entry *)((uint8_t *)rp + head);
    rp->cols = rp->rows + out.dims[1];
    tabulate(rp, rp->rows, 1, align, half);
    tabulate(rp, rp->cols, 2, align, half);
    return !bilinear || floats || in.type == PL_INT16 ||
           (weights_fit(rp->rows, out.dims[1]) && weights_fit(rp->cols, out.dims[2]));
}

static pl_status prepare(pl_context *ctx, pl_node *node, bool bilinear)
{
    PL_TRY(pl_fast_reg_of(node)->base->prepare(ctx, node));
    if (!plan(ctx, node, bilinear))
        pl_fast_node_block_drop(node);
    return PL_OK;
}

pl_status pl_fast_resize_bilinear_prepare(pl_context *ctx, pl_node *node)
{
    return prepare(ctx, node, true);
}

pl_status pl_fast_resize_nearest_prepare(pl_context *ctx, pl_node *node)
{
    return prepare(ctx, node, false);
}

/* One output row of nearest: a pixel of px bytes per column. */
static void nearest_row(const resize_plan *rp, uint8_t *dst, const uint8_t *src, size_t px)
{
    for (int32_t x = 0; x < rp->out_dims[2]; x++, dst += px)
        memcpy(dst, src + (size_t)rp->cols[x].lo * px, px);
}

static void nearest(const resize_plan *rp, const uint8_t *in, uint8_t *out)
{
    size_t px = (size_t)rp->in_dims[3] * pl_type_size(rp->type);
    size_t in_row = (size_t)rp->in_dims[2] * px, out_row = (size_t)rp->out_dims[2] * px;
    for (int32_t b = 0; b < rp->out_dims[0]; b++) {
        const uint8_t *plane = in + (size_t)b * (size_t)rp->in_dims[1] * in_row;
        for (int32_t y = 0; y < rp->out_dims[1]; y++, out += out_row) {
            if (y > 0 && rp->rows[y].lo == rp->rows[y - 1].lo)
                memcpy(out, out - out_row, out_row); /* the same source row */
            else
                nearest_row(rp, out, plane + (size_t)rp->rows[y].lo * in_row, px);
        }
    }
}

/* One output pixel of bilinear from the source rows lo and hi (byte pointers). */
static void bilinear_px(const resize_plan *rp, uint8_t *dst, const uint8_t *row_lo,
                        const uint8_t *row_hi, const axis_entry *ey, const axis_entry *ex,
                        size_t px)
{
    const int32_t one = 1 << 10;
    const pl_fast_bilinear_corners k = {
        .r00 = row_lo + (size_t)ex->lo * px, .r10 = row_hi + (size_t)ex->lo * px,
        .r01 = row_lo + (size_t)ex->hi * px, .r11 = row_hi + (size_t)ex->hi * px,
        .wy = ey->wf, .wx = ex->wf,
        .w = {(one - ey->wq) * (one - ex->wq), ey->wq * (one - ex->wq),
              (one - ey->wq) * ex->wq, ey->wq * ex->wq}};
    rp->px(dst, &k, rp->in_dims[3], rp->type, rp->fused);
}

static void bilinear(const resize_plan *rp, const uint8_t *in, uint8_t *out)
{
    size_t px = (size_t)rp->in_dims[3] * pl_type_size(rp->type);
    size_t in_row = (size_t)rp->in_dims[2] * px;
    for (int32_t b = 0; b < rp->out_dims[0]; b++) {
        const uint8_t *plane = in + (size_t)b * (size_t)rp->in_dims[1] * in_row;
        for (int32_t y = 0; y < rp->out_dims[1]; y++) {
            const axis_entry *ey = &rp->rows[y];
            const uint8_t *lo = plane + (size_t)ey->lo * in_row;
            const uint8_t *hi = plane + (size_t)ey->hi * in_row;
            for (int32_t x = 0; x < rp->out_dims[2]; x++, out += px)
                bilinear_px(rp, out, lo, hi, ey, &rp->cols[x], px);
        }
    }
}

pl_status pl_fast_resize_invoke(pl_context *ctx, pl_node *node)
{
    const resize_plan *rp = pl_fast_node_block(node);
    pl_tensor in, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    bool planned = rp != NULL && in.type == rp->type && in.ndims == 4 && out.ndims == 4 &&
                   memcmp(in.dims, rp->in_dims, sizeof rp->in_dims) == 0 &&
                   memcmp(out.dims, rp->out_dims, sizeof rp->out_dims) == 0;
    if (!planned)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    if (rp->bilinear)
        bilinear(rp, in.data, out.data);
    else
        nearest(rp, in.data, out.data);
    return PL_OK;
}
