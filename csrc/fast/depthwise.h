/* depthwise.h - the depthwise convolution rows the fast path runs, one table per
** instruction set.
**
** depthwise.c stages the input rows of a band of output rows into host memory with the
** padding written out (so every tap of every window is in bounds) and the depth multiplier
** expanded (staged channel c is input channel c / m), channels padded to PL_DW_PAD with
** zeros; float rows whose windows lie whole in the input may read it there instead. A run then
** computes `points` consecutive output points of one row, all channels:
**   int8:  staged values are int16 (x + input offset), padding 0, so a padded tap adds 0 to
**          the exact int32 sum, as the reference's skipped tap does; then TFLite's rescale.
**   float: each channel sums its taps in the reference's order with a multiply and an add
**          (no fused multiply-add); a padded tap adds 0 * w (finite w: plan checks), which
**          leaves a sum that started at +0 unchanged, so the bits are the reference's. */
#ifndef PL_FAST_DEPTHWISE_H
#define PL_FAST_DEPTHWISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fast/inline.h"
#include "kernels/conv/depthwise_conv_fast.h"
#include "fast/isa_pick.h"
#include "picolite/pl_fast.h"

/* Staged channels are padded to a multiple of this. */
#define PL_DW_PAD 16

/* Where a depthwise batch is staged with its padding written out: the staged extent
** (wp wide), the input rows and columns that land in it, and the output points' step. */
typedef struct pl_dw_geometry {
    int32_t m, in_c, in_h, in_w, wp, pad_h, pad_w, stride_h, oh, ow;
    int32_t rows, cols;   /* input rows and columns that land in the staged extent */
    int32_t channels, cp; /* output channels; staged channels (a PL_DW_PAD multiple) */
    size_t step;          /* between consecutive output points' window origins */
    size_t staged;        /* staged elements of one batch */
} pl_dw_geometry;

/* The geometry of a depthwise node (NHWC input, 1HWC filter); false when the fast path does
** not apply (odd shapes, or a staged batch above max_staged elements). */
bool pl_dw_geometry_of(const pl_depthwise_conv_params *p, const pl_tensor *in,
                       const pl_tensor *f, const pl_tensor *out, size_t max_staged,
                       pl_dw_geometry *g);

/* One row's job. Element offsets count staged elements (int16 or float). */
typedef struct pl_dw_job {
    int32_t taps;          /* filter taps; int8: rounded up to even (the extra one weighs 0) */
    const size_t *tap_at;  /* each tap's offset from its window's origin */
    size_t step;           /* between consecutive output points' window origins */
    int32_t channels, cp;  /* output channels; staged channels (PL_DW_PAD multiple) */
    const void *packed;    /* from the table's pack (int8) or [taps][cp] then [cp] bias */
    int32_t out_offset, act_min, act_max; /* int8 */
    float act_lo, act_hi;                 /* float */
} pl_dw_job;

/* int8 weights (pairs of taps as int16 pairs) and the per-channel stage arrays, in groups
** of `group` channels (the last group may be 16 wide). Within a group, pair p holds two
** vectors: the low half has, for each 8-channel lane L, channels 8L..8L+3 as (w[2p][c],
** w[2p+1][c]) int16 pairs, the high half channels 8L+4..8L+7: the order VPUNPCKLWD/
** VPUNPCKHWD give to two taps' staged values, so VPMADDWD sums each channel's pair. Then
** addend, multiplier, left and right shifts, and the quick form's scale, limit and tilt
** (floats, gemm.h), group entries each in the same order. */
typedef struct pl_dw_s8 {
    int32_t group; /* channels per group: 16 or 32 */
    void (*run)(const pl_dw_job *job, const int16_t *in, int32_t points, int8_t *out);
    /* Staging with depth multiplier 1: cols pixels of cin channels from s (contiguous) to
    ** o (pixels cp apart) as x + off; o's channels past cin are left alone. NULL: the
    ** portable staging loop. */
    void (*stage)(const int8_t *s, int16_t *o, size_t cols, size_t cin, size_t cp,
                  int16_t off);
} pl_dw_s8;

typedef struct pl_dw_f32 {
    void (*run)(const pl_dw_job *job, const float *in, int32_t points, float *out);
    /* run with each product fused into its sum (ctx->fused_madd); NULL without FMA */
    void (*run_fused)(const pl_dw_job *job, const float *in, int32_t points, float *out);
} pl_dw_f32;

/* NULL when isa has no such kernels in this build. */
const pl_dw_s8 *pl_dw_s8_for(pl_isa isa);
const pl_dw_f32 *pl_dw_f32_for(pl_isa isa);

/* Bytes of one group of g channels in the int8 layout, for `taps` (even) taps. */
static inline size_t pl_dw_s8_group_bytes(int32_t taps, int32_t g)
{
    return (size_t)taps / 2 * (size_t)g * 2 * sizeof(int16_t) + 7 * (size_t)g * sizeof(int32_t);
}

PL_FAST_TABLES(pl_dw_s8, pl_dw_s8);
PL_FAST_TABLES(pl_dw_f32, pl_dw_f32);

#endif
