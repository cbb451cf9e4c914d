/* conv_gather.c - CONV_2D's int8 windows gathered as rows (im2col) for the matrix product
** (see conv_gather.h). */
#include "fast/conv_gather.h"

#include <string.h>

#include "kernels/conv/conv_window_fast.h"

/* n bytes of value v: short fills (a few taps of few channels) skip the call. */
static inline void fill(uint8_t *dst, uint8_t v, size_t n)
{
    if (n > 32) {
        memset(dst, v, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = v;
}

/* 16 bytes of v: a short window row's padding, written whole before its in-bounds taps. */
static inline void fill16(uint8_t *dst, uint8_t v)
{
    uint64_t bytes = 0x0101010101010101ull * v;
    memcpy(dst, &bytes, 8);
    memcpy(dst + 8, &bytes, 8);
}

/* copy_flipped of a run of n <= 16 bytes as one 16-byte copy (src has 16 readable bytes, dst
** 16 writable): the bytes past n land where the next run, the row's padding (zeroed after it)
** or the next row will be written, or in the spill room. */
static inline void copy16_flipped(uint8_t *dst, const int8_t *src)
{
    uint64_t lo, hi;
    memcpy(&lo, src, 8);
    memcpy(&hi, src + 8, 8);
    lo ^= 0x8080808080808080ull;
    hi ^= 0x8080808080808080ull;
    memcpy(dst, &lo, 8);
    memcpy(dst + 8, &hi, 8);
}

/* The taps of one window row fy in the input: a run when the taps touch (dilation 1). */
static inline void gather_row_s8(const pl_conv_params *p, const pl_conv_window *w,
                                 const int32_t *in_dims, const int8_t *in, int32_t fy,
                                 int32_t kw, uint8_t pad, uint8_t *row)
{
    const size_t ic = (size_t)in_dims[3];
    /* a short row is padded whole first (the rows have PL_FAST_GATHER_SPILL bytes of room past
    ** them) */
    const bool short_row = (size_t)kw * ic <= 16;
    if (short_row)
        fill16(row, pad);
    if (fy < w->fy0 || fy >= w->fy1 || w->fx0 >= w->fx1) {
        if (!short_row)
            fill(row, pad, (size_t)kw * ic);
        return;
    }
    size_t iy = (size_t)(w->y0 + fy * p->dilation_h);
    const int8_t *line = in + ((size_t)w->b * (size_t)in_dims[1] + iy) * (size_t)in_dims[2] * ic;
    if (!short_row)
        fill(row, pad, (size_t)w->fx0 * ic);
    if (p->dilation_w == 1) {
        pl_fast_copy_flipped(row + (size_t)w->fx0 * ic, line + (size_t)(w->x0 + w->fx0) * ic,
                     (size_t)(w->fx1 - w->fx0) * ic);
    } else {
        for (int32_t fx = w->fx0; fx < w->fx1; fx++)
            pl_fast_copy_flipped(row + (size_t)fx * ic,
                         line + (size_t)(w->x0 + fx * p->dilation_w) * ic, ic);
    }
    if (!short_row)
        fill(row + (size_t)w->fx1 * ic, pad, (size_t)(kw - w->fx1) * ic);
}

void pl_fast_conv_gather_s8(const pl_conv_params *p, const pl_gather_s8 *g,
                            const int32_t *in_dims, const int8_t *in, size_t in_bytes,
                            const int32_t *f_dims, const int32_t *out_dims, size_t first,
                            int32_t rows)
{
    if (f_dims[1] == 1 && f_dims[2] == 1 && p->stride_h == 1 && p->stride_w == 1 &&
        g->kp == g->k && out_dims[1] == in_dims[1] && out_dims[2] == in_dims[2] &&
        (first + (size_t)rows) * (size_t)g->k <= in_bytes) {
        /* a pointwise convolution over every point: its rows lie in order in the input, one
        ** run (a fifth of a 1x1 16 -> 96 layer's time went on finding each row's window) */
        pl_fast_copy_flipped(g->a, in + first * (size_t)g->k, (size_t)rows * (size_t)g->k);
        return;
    }
    const size_t span = (size_t)f_dims[2] * (size_t)in_dims[3];
    const size_t line = (size_t)in_dims[2] * (size_t)in_dims[3];
    /* a window's last run starts this far after its first */
    const size_t last_run = (size_t)((f_dims[1] - 1) * p->dilation_h) * line;
    pl_conv_walk k = pl_conv_walk_from(out_dims, first);
    for (int32_t r = 0; r < rows; r++, pl_conv_walk_next(&k)) {
        pl_conv_window w = pl_conv_window_at(p, in_dims, f_dims, k.b, k.oy, k.ox);
        uint8_t *row = g->a + (size_t)r * (size_t)g->kp;
        if (w.fy0 == 0 && w.fy1 == f_dims[1] && w.fx0 == 0 && w.fx1 == f_dims[2] &&
            p->dilation_w == 1) { /* the whole window inside: one run per filter row */
            size_t at = ((size_t)w.b * (size_t)in_dims[1] + (size_t)w.y0) * line +
                        (size_t)w.x0 * (size_t)in_dims[3];
            const int8_t *src = in + at;
            if (span <= 16 && at + last_run + 16 <= in_bytes) /* few channels: whole copies */
                for (int32_t fy = 0; fy < f_dims[1]; fy++, row += span)
                    copy16_flipped(row, src + (size_t)(fy * p->dilation_h) * line);
            else
                for (int32_t fy = 0; fy < f_dims[1]; fy++, row += span)
                    pl_fast_copy_flipped(row, src + (size_t)(fy * p->dilation_h) * line, span);
        } else {
            for (int32_t fy = 0; fy < f_dims[1]; fy++, row += span)
                gather_row_s8(p, &w, in_dims, in, fy, f_dims[2], g->pad, row);
        }
        for (int32_t i = g->k; i < g->kp; i++)
            *row++ = 0;
    }
}

void pl_fast_conv_window_extent(const pl_conv_params *p, const int32_t *f_dims,
                                const int32_t *out_dims, int64_t *hp, int64_t *wp)
{
    *hp = (int64_t)(out_dims[1] - 1) * p->stride_h + (int64_t)(f_dims[1] - 1) * p->dilation_h + 1;
    *wp = (int64_t)(out_dims[2] - 1) * p->stride_w + (int64_t)(f_dims[2] - 1) * p->dilation_w + 1;
}

void pl_fast_conv_fill_taps(const pl_conv_params *p, const int32_t *f_dims, int32_t c,
                            int32_t src_w, int32_t *tap_at)
{
    for (int32_t fy = 0, t = 0; fy < f_dims[1]; fy++)
        for (int32_t fx = 0; fx < f_dims[2]; fx++)
            for (int32_t ch = 0; ch < c; ch++, t++)
                tap_at[t] = (fy * p->dilation_h * src_w + fx * p->dilation_w) * c + ch;
}

void pl_fast_conv_origins(const uint8_t *base, size_t plane, size_t line, size_t step,
                          int32_t stride_h, const int32_t *out_dims, size_t first, int32_t rows,
                          const uint8_t **origin)
{
    pl_conv_walk k = pl_conv_walk_from(out_dims, first);
    const uint8_t *row = base + (size_t)k.b * plane + (size_t)k.oy * (size_t)stride_h * line;
    const uint8_t *at = row + (size_t)k.ox * step;
    for (int32_t r = 0; r < rows; r++) {
        origin[r] = at;
        pl_conv_walk_next(&k);
        if (k.ox != 0) {
            at += step;
        } else { /* the next output row: its input row, or the next image's first */
            row = k.oy != 0 ? row + (size_t)stride_h * line : base + (size_t)k.b * plane;
            at = row;
        }
    }
}
