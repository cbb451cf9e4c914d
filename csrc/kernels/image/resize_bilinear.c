/* resize_bilinear.c - RESIZE_BILINEAR as LiteRT's reference kernels compute it.
**
** FLOAT32 and UINT8: TFLite's float ResizeBilinear (the same float operations in the same
** order; UINT8 adds 0.5 and truncates). INT8 and INT16: ResizeBilinearInteger, with 10-bit
** fixed-point source coordinates and the 20-bit weighted sum rounded half away from zero.
** align_corners and half_pixel_centers as the options say (not both, as TFLite requires). */
#include "resize.h"
#include "picolite/pl_node_io.h"

#include <math.h>
#include <stdbool.h>

enum { OP_RESIZE_BILINEAR = 23 };

/* ResizeBilinearOptions field ids (schema.fbs; 0 and 1 are the deprecated new_height/width). */
enum {
    OPT_ALIGN_CORNERS = PL_RESIZE_BILINEAR_ALIGN_CORNERS,
    OPT_HALF_PIXEL_CENTERS = PL_RESIZE_BILINEAR_HALF_PIXEL_CENTERS
};

typedef pl_resize_axis_f axis_f;
typedef pl_resize_axis_q axis_q;

/* floor and ceil of a float of magnitude below 2^24 (source coordinates are), without libm */
static int32_t floor_i(float x)
{
    int32_t t = (int32_t)x;
    return (float)t > x ? t - 1 : t;
}

static int32_t ceil_i(float x)
{
    int32_t t = (int32_t)x;
    return (float)t < x ? t + 1 : t;
}

/* TFLite's ComputeInterpolationValues; fused: (v + 0.5) * scale - 0.5 in one rounding, as
** the Cortex-M4F firmware's VFMA computes it. */
axis_f pl_resize_coord_f(int32_t v, float scale, bool half, bool fused, int32_t in)
{
    axis_f a;
    if (half)
        a.at = fused ? fmaf((float)v + 0.5f, scale, -0.5f) : ((float)v + 0.5f) * scale - 0.5f;
    else
        a.at = (float)v * scale;
    a.lo = floor_i(a.at) > 0 ? floor_i(a.at) : 0;
    a.hi = ceil_i(a.at) < in - 1 ? ceil_i(a.at) : in - 1;
    return a;
}

/* TFLite's ComputeInterpolationValuesInteger (C division truncates, as C++'s). */
axis_q pl_resize_coord_q(int32_t v, int32_t scale_10, bool half, int32_t in)
{
    axis_q a;
    a.at = half ? v * scale_10 + scale_10 / 2 - (1 << 9) : v * scale_10;
    a.lo = a.at / (1 << 10) > 0 ? a.at / (1 << 10) : 0;
    a.hi = (a.at + (1 << 10) - 1) / (1 << 10) < in - 1 ? (a.at + (1 << 10) - 1) / (1 << 10)
                                                        : in - 1;
    return a;
}

float pl_resize_scale_f(int32_t in, int32_t out, bool align)
{
    return align && out > 1 ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
}

int32_t pl_resize_scale_q(int32_t in, int32_t out, bool align)
{
    if (align && out > 1)
        return ((1 << 10) * (in - 1) + (out - 1) / 2) / (out - 1);
    return ((1 << 10) * in + out / 2) / out;
}

/* Element (b, y, x, c) of an NHWC tensor of dims d. */
static size_t at(const int32_t *d, int32_t b, int32_t y, int32_t x, int32_t c)
{
    return (((size_t)b * (size_t)d[1] + (size_t)y) * (size_t)d[2] + (size_t)x) * (size_t)d[3] +
           (size_t)c;
}

static float value_f(const pl_tensor *t, size_t i)
{
    return t->type == PL_FLOAT32 ? ((const float *)t->data)[i]
                                 : (float)((const uint8_t *)t->data)[i];
}

/* The four weighted corners, fused as the firmware's GCC contracts TFLite's sum of four
** products of three: the second term whole, then the first, third and fourth each fused on
** their last product. */
static float corners_fma(float v00, float v10, float v01, float v11, float wy, float wx)
{
    float s = fmaf(v00 * (1 - wy), 1 - wx, v10 * wy * (1 - wx));
    s = fmaf(v01 * (1 - wy), wx, s);
    return fmaf(v11 * wy, wx, s);
}

static void bilinear_f(const pl_tensor *in, const pl_tensor *out, bool align, bool half,
                       bool fused)
{
    const int32_t *di = in->dims, *dout = out->dims;
    float sy = pl_resize_scale_f(di[1], dout[1], align);
    float sx = pl_resize_scale_f(di[2], dout[2], align);
    float rounding = in->type == PL_UINT8 ? 0.5f : 0.0f;
    size_t k = 0;
    for (int32_t b = 0; b < dout[0]; b++)
        for (int32_t y = 0; y < dout[1]; y++) {
            axis_f ay = pl_resize_coord_f(y, sy, half, fused, di[1]);
            float wy = ay.at - (float)ay.lo;
            for (int32_t x = 0; x < dout[2]; x++) {
                axis_f ax = pl_resize_coord_f(x, sx, half, fused, di[2]);
                float wx = ax.at - (float)ax.lo;
                for (int32_t c = 0; c < dout[3]; c++, k++) {
                    if (fused) { /* float only: the firmware's float template */
                        ((float *)out->data)[k] =
                            corners_fma(value_f(in, at(di, b, ay.lo, ax.lo, c)),
                                        value_f(in, at(di, b, ay.hi, ax.lo, c)),
                                        value_f(in, at(di, b, ay.lo, ax.hi, c)),
                                        value_f(in, at(di, b, ay.hi, ax.hi, c)), wy, wx) +
                            rounding;
                        continue;
                    }
                    float v = value_f(in, at(di, b, ay.lo, ax.lo, c)) * (1 - wy) * (1 - wx) +
                              value_f(in, at(di, b, ay.hi, ax.lo, c)) * wy * (1 - wx) +
                              value_f(in, at(di, b, ay.lo, ax.hi, c)) * (1 - wy) * wx +
                              value_f(in, at(di, b, ay.hi, ax.hi, c)) * wy * wx + rounding;
                    if (in->type == PL_FLOAT32)
                        ((float *)out->data)[k] = v;
                    else
                        ((uint8_t *)out->data)[k] = (uint8_t)v;
                }
            }
        }
}

static int64_t value_q(const pl_tensor *t, size_t i)
{
    return t->type == PL_INT8 ? ((const int8_t *)t->data)[i] : ((const int16_t *)t->data)[i];
}

static void bilinear_q(const pl_tensor *in, const pl_tensor *out, bool align, bool half)
{
    const int32_t *di = in->dims, *dout = out->dims;
    int32_t sy = pl_resize_scale_q(di[1], dout[1], align);
    int32_t sx = pl_resize_scale_q(di[2], dout[2], align);
    size_t k = 0;
    for (int32_t b = 0; b < dout[0]; b++)
        for (int32_t y = 0; y < dout[1]; y++) {
            axis_q ay = pl_resize_coord_q(y, sy, half, di[1]);
            int64_t wy = ay.at - (1 << 10) * ay.lo;
            for (int32_t x = 0; x < dout[2]; x++) {
                axis_q ax = pl_resize_coord_q(x, sx, half, di[2]);
                int64_t wx = ax.at - (1 << 10) * ax.lo;
                for (int32_t c = 0; c < dout[3]; c++, k++) {
                    int64_t s = value_q(in, at(di, b, ay.lo, ax.lo, c)) * ((1 << 10) - wy) *
                                    ((1 << 10) - wx) +
                                value_q(in, at(di, b, ay.hi, ax.lo, c)) * wy * ((1 << 10) - wx) +
                                value_q(in, at(di, b, ay.lo, ax.hi, c)) * ((1 << 10) - wy) * wx +
                                value_q(in, at(di, b, ay.hi, ax.hi, c)) * wy * wx;
                    int64_t v = (s + (s > 0 ? (1 << 19) : -(1 << 19))) / (1 << 20);
                    if (in->type == PL_INT8)
                        ((int8_t *)out->data)[k] = (int8_t)v;
                    else
                        ((int16_t *)out->data)[k] = (int16_t)v;
                }
            }
        }
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    PL_TRY(pl_resize_prepare(ctx, node, "RESIZE_BILINEAR"));
    pl_tensor *in;
    PL_TRY(pl_node_tensor(ctx, node, false, 0, &in));
    if (in->type != PL_FLOAT32 && in->type != PL_UINT8 && in->type != PL_INT8 &&
        in->type != PL_INT16)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "RESIZE_BILINEAR: type %s (FLOAT32, UINT8, "
                         "INT8 and INT16 are supported)", pl_type_name(in->type));
    if (pl_table_bool(&node->options, OPT_ALIGN_CORNERS, false) &&
        pl_table_bool(&node->options, OPT_HALF_PIXEL_CENTERS, false))
        return ctx->fail(ctx, PL_ERR_MODEL, "RESIZE_BILINEAR: align_corners and "
                         "half_pixel_centers are exclusive");
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor in, size, out;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &in, &size, &out));
    PL_TRY(pl_resize_size(ctx, "RESIZE_BILINEAR", &in, &size, &out));
    bool align = pl_table_bool(&node->options, OPT_ALIGN_CORNERS, false);
    bool half = pl_table_bool(&node->options, OPT_HALF_PIXEL_CENTERS, false);
    if (in.type == PL_FLOAT32 || in.type == PL_UINT8) /* TFLM has no uint8 resize */
        bilinear_f(&in, &out, align, half, ctx->fused_madd && in.type == PL_FLOAT32);
    else
        bilinear_q(&in, &out, align, half);
    return PL_OK;
}

const pl_registration *pl_resize_bilinear_registration(void)
{
    static const pl_registration r = {.name = "RESIZE_BILINEAR",
                                      .builtin_code = OP_RESIZE_BILINEAR, .prepare = prepare,
                                      .invoke = invoke};
    return &r;
}
