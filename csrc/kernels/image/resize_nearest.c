/* resize_nearest.c - RESIZE_NEAREST_NEIGHBOR (TFLite reference ResizeNearestNeighbor) for any
** fixed-size element type.
**
** Source index of output index v: min(floor((v + offset) * scale), size - 1), or with
** align_corners round-half-away instead of floor; offset 0.5 with half_pixel_centers (and
** then at least 0). scale is in/out, or (in - 1)/(out - 1) with align_corners; all in float
** as TFLite computes it. */
#include "resize.h"

#include <stdbool.h>
#include <string.h>

#include "kernels/common/fixedpoint.h"
#include "picolite/pl_node_io.h"

enum { OP_RESIZE_NEAREST_NEIGHBOR = 97 };

/* ResizeNearestNeighborOptions field ids (schema.fbs). */
enum {
    OPT_ALIGN_CORNERS = PL_RESIZE_NEAREST_ALIGN_CORNERS,
    OPT_HALF_PIXEL_CENTERS = PL_RESIZE_NEAREST_HALF_PIXEL_CENTERS
};

int32_t pl_resize_nearest_index(int32_t v, int32_t in, int32_t out, bool align, bool half)
{
    float scale = align && out > 1 ? (float)(in - 1) / (float)(out - 1)
                                   : (float)in / (float)out;
    float x = ((float)v + (half ? 0.5f : 0.0f)) * scale; /* >= 0: floor is truncation */
    int32_t i = align ? (int32_t)pl_fx_roundf(x) : (int32_t)x;
    i = i < in - 1 ? i : in - 1;
    return half && i < 0 ? 0 : i;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    return pl_resize_prepare(ctx, node, "RESIZE_NEAREST_NEIGHBOR");
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor in, size, out;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &in, &size, &out));
    PL_TRY(pl_resize_size(ctx, "RESIZE_NEAREST_NEIGHBOR", &in, &size, &out));
    const pl_nhwc in_shape = pl_nhwc_of(&in);
    const pl_nhwc out_shape = pl_nhwc_of(&out);
    bool align = pl_table_bool(&node->options, OPT_ALIGN_CORNERS, false);
    bool half = pl_table_bool(&node->options, OPT_HALF_PIXEL_CENTERS, false);
    size_t row = (size_t)in_shape.c * pl_type_size(in.type), k = 0;
    const uint8_t *src = in.data;
    for (int32_t b = 0; b < out_shape.n; b++)
        for (int32_t y = 0; y < out_shape.h; y++) {
            int32_t iy = pl_resize_nearest_index(y, in_shape.h, out_shape.h, align, half);
            for (int32_t x = 0; x < out_shape.w; x++, k++) {
                int32_t ix = pl_resize_nearest_index(x, in_shape.w, out_shape.w, align, half);
                size_t px = ((size_t)b * (size_t)in_shape.h + (size_t)iy) * (size_t)in_shape.w +
                            (size_t)ix;
                memcpy((uint8_t *)out.data + k * row, src + px * row, row);
            }
        }
    return PL_OK;
}

const pl_registration *pl_resize_nearest_neighbor_registration(void)
{
    static const pl_registration r = {.name = "RESIZE_NEAREST_NEIGHBOR",
                                      .builtin_code = OP_RESIZE_NEAREST_NEIGHBOR,
                                      .prepare = prepare, .invoke = invoke};
    return &r;
}
