/* conv_narrow.h - CONV_2D with few output channels (a segmentation or pitch head's one
** channel, a contour layer's eight), float32 and int8: conv_narrow.c plans it and copies the
** input into padded planes (a channel each for float, four channels' bytes for int8's
** VPDPBUSD), x86/narrow_*.c compute output rows with their points in the lanes. The matrix
** product puts output channels in the lanes: one channel of 16 used a sixteenth of them. */
#ifndef PL_FAST_CONV_NARROW_H
#define PL_FAST_CONV_NARROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fast/isa_pick.h"
#include "picolite/pl_kernel.h"

/* Output rows [0, rows) of a task: row j's out[j ow n + x n + o] for x < ow and o < n is the
** sum over the taps (fy, fx, c) in the portable kernel's order of plane c at row y0 + j sh
** + fy dh, column x + fx dw, times w[o k + (fy fw + fx) c_count + c], plus bias[o] (0
** without), clamped to [lo, hi]. */
typedef struct pl_narrow_row {
    const float *planes;  /* plane c at planes + c plane_size; rows of wp floats */
    size_t plane_size;
    int32_t wp, y0, sh, rows;
    int32_t fh, fw, c, dh, dw;
    const float *w;       /* n x (fh fw c), the filter as the model stores it */
    const float *bias;    /* n, or NULL */
    int32_t n, ow;
    float lo, hi;
    float *out;           /* the first row's first point */
} pl_narrow_row;

typedef struct pl_narrow_kernels {
    int32_t lanes;     /* points per vector */
    int32_t max_n;     /* the most channels worth taking (half the product's panel) */
    /* fused: each product fused into its sum (a target whose firmware fuses them) */
    void (*rows)(const pl_narrow_row *r, bool fused);
} pl_narrow_kernels;

/* NULL: isa has none (the matrix product, or the portable kernel, runs the node). */
const pl_narrow_kernels *pl_narrow_for(pl_isa isa);

extern const pl_narrow_kernels pl_narrow_avx512, pl_narrow_avx2;

/* int8: output rows [0, rows) as pl_narrow_row's, each sum TFLite's w (x - input zero
** point) over the taps plus the bias, computed as the sum of w u over every tap (u = x + 128,
** the padding's u making x - zero point 0) plus corr[o] = bias - (128 + zero point) sum(w),
** integers wrapping alike in any order; then TFLite's output stage with channel o's
** multiplier and shift. Planes: quad q's cell (row, column) is 4 bytes, the u of channels
** 4q..4q+3 (past the channels: any, their weights 0). */
typedef struct pl_narrow_s8_row {
    const uint8_t *planes; /* quad q at planes + 4 q plane_cells; rows of wp cells */
    size_t plane_cells;
    int32_t wp, y0, sh, rows;
    int32_t fh, fw, quads, dh, dw;
    const int32_t *w;      /* n x (fh fw quads): each cell's 4 weights, channels past 0 */
    const int32_t *corr, *multiplier, *shift; /* n each */
    int32_t output_offset, act_min, act_max;
    int32_t n, ow;
    int8_t *out;
} pl_narrow_s8_row;

typedef struct pl_narrow_s8_kernels {
    int32_t lanes, max_n;
    void (*rows)(const pl_narrow_s8_row *r);
} pl_narrow_s8_kernels;

/* NULL: isa has none. */
const pl_narrow_s8_kernels *pl_narrow_s8_for(pl_isa isa);

extern const pl_narrow_s8_kernels pl_narrow_s8_avx512;

/* The 4-byte cells a row may read past its planes' end (a vector block's last points); the output
** rows of a task (blocks of several rows keep more sums in flight than one row's vectors). */
enum { PL_NARROW_SLACK = 4 * 16, PL_NARROW_TASK_ROWS = 4 };

/* Prepare: the node's block for the narrow product, or false (nothing made: the caller plans
** the matrix product). */
bool pl_fast_conv_narrow_plan(pl_context *ctx, const pl_node *node);
pl_status pl_fast_conv_narrow_invoke(pl_context *ctx, pl_node *node, const void *block);

/* Every fast conv block starts with its kind. */
enum { PL_CONV_BLOCK_PRODUCT = 0, PL_CONV_BLOCK_NARROW = 1, PL_CONV_BLOCK_NARROW_S8 = 2 };

#endif
