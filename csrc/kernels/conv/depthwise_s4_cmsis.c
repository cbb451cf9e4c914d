/* depthwise_s4_cmsis.c - the nibbles CMSIS-NN's int4 depthwise kernels multiply
** (depthwise_s4_cmsis.h).
**
** Both walks go output point by output point and, within a point, channel by channel in
** output order; a channel's sum is its bias plus (input + offset) x weight over the taps
** inside the input (a padded tap adds nothing: arm_depthwise_conv_s4 skips it, the Helium
** path multiplies a buffer byte of minus the offset), in int32 that wraps, then TFLM's
** requantization and clamp. Only which nibble of which byte is each weight differs. */
#include "depthwise_s4_cmsis.h"

#include "kernels/common/fixedpoint.h"
#include "kernels/common/padding.h"
#include "kernels/common/rescale.h"

static inline int32_t nibble(uint8_t byte, bool high)
{
    uint8_t v = high ? (uint8_t)(byte >> 4) : (uint8_t)(byte & 0x0Fu);
    return (int32_t)(v ^ 0x08u) - 8; /* sign-extend 4 bits */
}

/* An output point's window: taps [fy0, fy1) x [fx0, fx1) lie inside the input, tap (fy, fx)
** reads input pixel (y0 + dilation_h * fy, x0 + dilation_w * fx). */
typedef struct window {
    int32_t y0, x0, fy0, fy1, fx0, fx1;
} window;

static window window_at(const pl_depthwise_conv_params *p, const int32_t *in_dims,
                        const int32_t *f_dims, int32_t oy, int32_t ox)
{
    window w;
    w.y0 = oy * p->stride_h - p->pad_h;
    w.x0 = ox * p->stride_w - p->pad_w;
    pl_pad_clip_taps(w.y0, p->dilation_h, in_dims[1], f_dims[1], &w.fy0, &w.fy1);
    pl_pad_clip_taps(w.x0, p->dilation_w, in_dims[2], f_dims[2], &w.fx0, &w.fx1);
    return w;
}

static inline int32_t input_at(const pl_depthwise_conv_params *p, const int32_t *in_dims,
                               const int8_t *x, const window *w, int32_t fy, int32_t fx,
                               int32_t ic)
{
    int64_t iy = w->y0 + (int64_t)p->dilation_h * fy, ix = w->x0 + (int64_t)p->dilation_w * fx;
    return x[(iy * in_dims[2] + ix) * in_dims[3] + ic] + p->input_offset;
}

static inline int8_t finish(const pl_depthwise_conv_params *p, uint32_t acc,
                            const int32_t *bias, int32_t oc)
{
    if (bias != NULL)
        acc += (uint32_t)bias[oc];
    int32_t a = pl_rescale_qm((int32_t)acc, p->multiplier[oc], p->shift[oc]) + p->output_offset;
    return (int8_t)pl_fx_clamp(a, p->act_min, p->act_max);
}

/* arm_depthwise_conv_s4 with an odd input depth D, one output point. Channel oc starts at
** byte oc / 2 with the parity the previous channel left; each tap takes the current nibble,
** a high nibble also moving the channel's own byte count on by one, and steps on by
** (D / 2) * multiplier bytes plus one after a high nibble; each filter row restarts at
** (row's first tap) * (D / 2) * multiplier + oc / 2 + that count. After a channel the
** parity flips once more when the filter has an even number of taps. With x == NULL it
** only walks (the parity never depends on the weights). Returns the first byte index at or
** past `bytes` it would read, else -1. */
static int64_t generic_odd_point(const pl_depthwise_conv_params *p, const int32_t *in_dims,
                                 const int32_t *f_dims, const window *w, const int8_t *x,
                                 const uint8_t *filter, int64_t bytes, const int32_t *bias,
                                 int8_t *out)
{
    const int32_t m = p->depth_multiplier, kw = f_dims[2];
    const int64_t step = (int64_t)(in_dims[3] >> 1) * m;
    const bool even_taps = ((int64_t)f_dims[1] * kw) % 2 == 0;
    bool low = true;
    for (int32_t ic = 0; ic < in_dims[3]; ic++)
        for (int32_t oc = ic * m; oc < (ic + 1) * m; oc++) {
            int64_t uneven = 0;
            uint32_t acc = 0;
            for (int32_t fy = w->fy0; fy < w->fy1; fy++) {
                int64_t at = ((int64_t)fy * kw + w->fx0) * step + oc / 2 + uneven;
                for (int32_t fx = w->fx0; fx < w->fx1; fx++) {
                    if (at >= bytes)
                        return at;
                    if (x != NULL)
                        acc += (uint32_t)(input_at(p, in_dims, x, w, fy, fx, ic) *
                                          nibble(filter[at], !low));
                    uneven += !low;
                    low = !low;
                    at += step + low;
                }
            }
            if (even_taps)
                low = !low;
            if (out != NULL)
                out[oc] = finish(p, acc, bias, oc);
        }
    return -1;
}

/* arm_depthwise_conv_s4_opt on Helium, one output point (depth D = input depth). Channels go
** four at a time from an even channel; tap t's four weights start at nibble t * D. Where
** that is a byte's high nibble (odd D, odd t) the kernel assembles them one by one and gets
** them right; where it is a low one, a gather of bytes {0, 0, 1, 1} should sign-extend the
** low nibble in lanes 0 and 2 and the high one in lanes 1 and 3, but the predicate reaches
** all four lanes, so each channel takes the low nibble of its weight's byte. */
static void helium_point(const pl_depthwise_conv_params *p, const int32_t *in_dims,
                         const int32_t *f_dims, const window *w, const int8_t *x,
                         const uint8_t *filter, const int32_t *bias, int8_t *out)
{
    const int64_t d = in_dims[3];
    for (int32_t c = 0; c < d; c++) {
        uint32_t acc = 0;
        for (int32_t fy = w->fy0; fy < w->fy1; fy++)
            for (int32_t fx = w->fx0; fx < w->fx1; fx++) {
                int64_t row = ((int64_t)fy * f_dims[2] + fx) * d, at = row + c;
                bool high = (row & 1) != 0 && (at & 1) != 0;
                acc += (uint32_t)(input_at(p, in_dims, x, w, fy, fx, c) *
                                  nibble(filter[at / 2], high));
            }
        out[c] = finish(p, acc, bias, c);
    }
}

static int64_t packed_bytes(const int32_t *f_dims)
{
    return ((int64_t)f_dims[0] * f_dims[1] * f_dims[2] * f_dims[3] + 1) / 2;
}

pl_status pl_dw_s4_cmsis_plan(pl_context *ctx, const pl_depthwise_conv_params *p,
                              const int32_t *in_dims, const int32_t *f_dims,
                              const int32_t *out_dims, uint8_t *walk)
{
    *walk = PL_DW_S4_UNPACKED;
    if (!pl_arith_cmsis_nn(ctx->arith))
        return PL_OK;
    bool opt = p->depth_multiplier == 1 && in_dims[0] == 1 && p->dilation_w == 1 &&
               p->dilation_h == 1;
    if (opt && ctx->arith == PL_ARITH_CMSIS_NN_MVE) {
        *walk = PL_DW_S4_HELIUM_OPT;
        return PL_OK;
    }
    if (opt || in_dims[3] % 2 == 0)
        return PL_OK; /* the reference kernel's weights */
    *walk = PL_DW_S4_GENERIC_ODD;
    const int64_t bytes = packed_bytes(f_dims);
    for (int32_t oy = 0; oy < out_dims[1]; oy++)
        for (int32_t ox = 0; ox < out_dims[2]; ox++) {
            window w = window_at(p, in_dims, f_dims, oy, ox);
            int64_t at = generic_odd_point(p, in_dims, f_dims, &w, NULL, NULL, bytes, NULL,
                                           NULL);
            if (at >= 0)
                return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "DEPTHWISE_CONV_2D: CMSIS-NN's "
                                 "int4 kernel (arm_depthwise_conv_s4, odd input depth %d) "
                                 "reads byte %lld of this %lld-byte packed filter at output "
                                 "point (%d, %d): past its end (undefined)", (int)in_dims[3],
                                 (long long)at, (long long)bytes, (int)oy, (int)ox);
        }
    return PL_OK;
}

pl_status pl_dw_s4_cmsis(pl_context *ctx, const pl_depthwise_conv_params *p, uint8_t walk,
                         const int32_t *in_dims, const int8_t *in, const int32_t *f_dims,
                         const uint8_t *filter, const int32_t *bias, const int32_t *out_dims,
                         int8_t *out)
{
    const int64_t bytes = packed_bytes(f_dims);
    const int64_t in_batch = (int64_t)in_dims[1] * in_dims[2] * in_dims[3];
    int8_t *o = out;
    for (int32_t b = 0; b < out_dims[0]; b++)
        for (int32_t oy = 0; oy < out_dims[1]; oy++)
            for (int32_t ox = 0; ox < out_dims[2]; ox++, o += out_dims[3]) {
                window w = window_at(p, in_dims, f_dims, oy, ox);
                const int8_t *x = in + b * in_batch;
                if (walk == PL_DW_S4_HELIUM_OPT) {
                    helium_point(p, in_dims, f_dims, &w, x, filter, bias, o);
                } else if (generic_odd_point(p, in_dims, f_dims, &w, x, filter, bytes, bias,
                                             o) >= 0) {
                    return ctx->fail(ctx, PL_ERR_STATE, "DEPTHWISE_CONV_2D: the int4 walk "
                                     "left the packed filter");
                }
            }
    return PL_OK;
}
