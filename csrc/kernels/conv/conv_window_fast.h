/* conv_window_fast.h - CONV_2D's output windows: where an output point reads the input.
** One definition for the portable kernel and the host fast paths' gathers (part of the
** CONV_2D contract, conv_fast.h). */
#ifndef PL_KERNELS_CONV_WINDOW_FAST_H
#define PL_KERNELS_CONV_WINDOW_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/common/padding.h"
#include "kernels/conv/conv_fast.h"

/* Output point (b, oy, ox)'s window: its origin in the input and its in-bounds taps
** [fy0, fy1) x [fx0, fx1) (TFLite skips the others). */
typedef struct pl_conv_window {
    int32_t b, y0, x0, fy0, fy1, fx0, fx1;
} pl_conv_window;

/* TFLite's in-bounds taps of one window axis (pl_pad_clip_taps), without a division when
** dilation is 1. */
static inline void pl_conv_clip_taps(int32_t origin, int32_t dilation, int32_t size,
                                     int32_t taps, int32_t *lo, int32_t *hi)
{
    if (dilation != 1) {
        pl_pad_clip_taps(origin, dilation, size, taps, lo, hi);
        return;
    }
    int32_t end = size - origin;
    *lo = origin < 0 ? -origin : 0;
    *hi = end < 0 ? 0 : end < taps ? end : taps;
}

static inline pl_conv_window pl_conv_window_at(const pl_conv_params *p, const int32_t *in_dims,
                                               const int32_t *f_dims, int32_t b, int32_t oy,
                                               int32_t ox)
{
    pl_conv_window w;
    w.b = b;
    w.y0 = oy * p->stride_h - p->pad_h;
    w.x0 = ox * p->stride_w - p->pad_w;
    pl_conv_clip_taps(w.y0, p->dilation_h, in_dims[1], f_dims[1], &w.fy0, &w.fy1);
    pl_conv_clip_taps(w.x0, p->dilation_w, in_dims[2], f_dims[2], &w.fx0, &w.fx1);
    return w;
}

/* Output points in order from one on: batch, row and column stepped without divisions. */
typedef struct pl_conv_walk {
    int32_t b, oy, ox, oh, ow;
} pl_conv_walk;

static inline pl_conv_walk pl_conv_walk_from(const int32_t *out_dims, size_t pt)
{
    pl_conv_walk k = {0, 0, 0, out_dims[1], out_dims[2]};
    k.ox = (int32_t)(pt % (size_t)k.ow);
    k.oy = (int32_t)(pt / (size_t)k.ow % (size_t)k.oh);
    k.b = (int32_t)(pt / (size_t)k.ow / (size_t)k.oh);
    return k;
}

static inline void pl_conv_walk_next(pl_conv_walk *k)
{
    if (++k->ox < k->ow)
        return;
    k->ox = 0;
    if (++k->oy < k->oh)
        return;
    k->oy = 0;
    k->b++;
}

#endif
