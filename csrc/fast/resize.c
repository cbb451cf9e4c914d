/* resize.c - RESIZE_BILINEAR's and RESIZE_NEAREST_NEIGHBOR's fast paths, for a constant size
** in a one-subgraph model (the kernels keep no op data: the block is found by the node's index).
** The portable kernels recompute both source coordinates, and the element's offset, for
** every output element; here prepare tabulates them per output row and column with the
** portable kernels' own functions (resize_fast.h) and invoke runs over the channels.
** Nearest copies a source pixel per output pixel, and a whole output row when it reads the
** source row of the row before (what the portable kernel writes there too). Bilinear
** computes each element with the portable kernel's expression, operation for operation
** (float: the four products of three in its order, then the sum and the rounding term,
** unfused; int8 and int16: the same integer sum, its rounding and its truncating division).
** A fused target's float (ctx->fused_madd: the firmware's contractions) runs the portable
** kernel's fused expression with FMA (resize_fma_body.h: AVX2, AVX-512, NEON); SSE4.1,
** which has none, keeps the portable kernel there. */
#include <string.h>

#include "fast/fast.h"
#include "kernels/image/resize_fast.h"

typedef struct axis_entry {
    int32_t lo, hi; /* source indices (nearest: lo) */
    float wf;       /* float weight of hi */
    int32_t wq;     /* integer weight of hi, in 1/1024ths */
} axis_entry;

typedef struct resize_plan {
    int32_t in_dims[4], out_dims[4];
    pl_type type;
    bool bilinear;
    pl_fast_bilinear_fma fma; /* float on a fused target, else NULL */
    axis_entry *rows, *cols; /* out_dims[1] then out_dims[2] entries, after the plan */
} resize_plan;

static void tabulate(resize_plan *rp, axis_entry *e, int32_t axis, bool align, bool half)
{
    const bool fused = rp->fma != NULL; /* the half-pixel coordinate fused too */
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

/* The fused float pixel of isa's set; NULL for a set without FMA. */
static pl_fast_bilinear_fma fma_for(pl_isa isa)
{
#if defined(PL_FAST_X86)
    if (isa == PL_ISA_AVX2 || isa == PL_ISA_AVX512)
        return pl_fast_bilinear_fma_avx2;
#elif defined(PL_FAST_ARM64)
    if (isa == PL_ISA_NEON || isa == PL_ISA_NEON_DOT)
        return pl_fast_bilinear_fma_neon;
#endif
    (void)isa;
    return NULL;
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
    bool fused = bilinear && in.type == PL_FLOAT32 && ctx->fused_madd;
    if (fused && fma_for(pl_fast_isa_of(node)) == NULL)
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
    rp->fma = fused ? fma_for(pl_fast_isa_of(node)) : NULL;
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

/* The portable kernel's float sum over c channels, its operations in its order; the four
** corners' rows r00 (lo, lo), r10 (hi, lo), r01 (lo, hi), r11 (hi, hi). */
#define BILINEAR_F(TYPE, STORE, ROUNDING)                                                  \
    for (int32_t c = 0; c < channels; c++) {                                           \
        float v = (float)((const TYPE *)r00)[c] * (1 - wy) * (1 - wx) +                    \
                  (float)((const TYPE *)r10)[c] * wy * (1 - wx) +                          \
                  (float)((const TYPE *)r01)[c] * (1 - wy) * wx +                          \
                  (float)((const TYPE *)r11)[c] * wy * wx + (ROUNDING);                    \
        ((STORE *)dst)[c] = (STORE)v;                                                      \
    }

/* The portable kernel's integer sum: SUM_T wide enough for it, then rounded half away from
** zero and divided by 2^20 (truncating). */
#define BILINEAR_Q(TYPE, SUM_T)                                                            \
    for (int32_t c = 0; c < channels; c++) {                                           \
        SUM_T s = (SUM_T)((const TYPE *)r00)[c] * w00 + (SUM_T)((const TYPE *)r10)[c] * w10 + \
                  (SUM_T)((const TYPE *)r01)[c] * w01 + (SUM_T)((const TYPE *)r11)[c] * w11; \
        ((TYPE *)dst)[c] = (TYPE)((s + (s > 0 ? (1 << 19) : -(1 << 19))) / (1 << 20));      \
    }

/* One output pixel of bilinear from the source rows lo and hi (byte pointers). */
static void bilinear_px(const resize_plan *rp, uint8_t *dst, const uint8_t *row_lo,
                        const uint8_t *row_hi, const axis_entry *ey, const axis_entry *ex,
                        size_t px)
{
    const int32_t channels = rp->in_dims[3];
    const uint8_t *r00 = row_lo + (size_t)ex->lo * px, *r01 = row_lo + (size_t)ex->hi * px;
    const uint8_t *r10 = row_hi + (size_t)ex->lo * px, *r11 = row_hi + (size_t)ex->hi * px;
    const float wy = ey->wf, wx = ex->wf;
    const int32_t w00 = ((1 << 10) - ey->wq) * ((1 << 10) - ex->wq);
    const int32_t w10 = ey->wq * ((1 << 10) - ex->wq), w01 = ((1 << 10) - ey->wq) * ex->wq;
    const int32_t w11 = ey->wq * ex->wq;
    if (rp->fma != NULL) {
        rp->fma((float *)(void *)dst, (const float *)(const void *)r00,
                (const float *)(const void *)r10, (const float *)(const void *)r01,
                (const float *)(const void *)r11, wy, wx, channels);
        return;
    }
    switch (rp->type) {
    case PL_FLOAT32: BILINEAR_F(float, float, 0.0f) break;
    case PL_UINT8: BILINEAR_F(uint8_t, uint8_t, 0.5f) break;
    case PL_INT8: BILINEAR_Q(int8_t, int32_t) break;
    default: BILINEAR_Q(int16_t, int64_t) break;
    }
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
