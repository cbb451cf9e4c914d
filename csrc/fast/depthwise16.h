/* depthwise16.h - the 16x8 depthwise rows the fast path runs (depthwise16.c stages each
** batch with its padding written out as 0 and its depth multiplier expanded, channels
** padded to 16). A run computes `points` consecutive output points of one row, all
** channels: tap pairs through VPMADDWD into int32 (at most 2^23 a pair and at most
** PL_DW16_MAX_TAPS taps, so exact), widened to int64, then TFLite's 16x8 stage (+ int64
** bias, the 64-bit rescale, + output offset, clamp): DepthwiseConvPerChannel's bits. */
#ifndef PL_FAST_DEPTHWISE16_H
#define PL_FAST_DEPTHWISE16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_fast.h"

enum { PL_DW16_MAX_TAPS = 256 };

typedef struct pl_dw16_job {
    int32_t taps;          /* filter taps rounded up to even (the extra one weighs 0) */
    const size_t *tap_at;  /* each tap's offset from its window's origin, in staged int16s */
    size_t step;           /* between consecutive output points' window origins */
    int32_t channels, cp;  /* output channels; staged channels (a multiple of 16) */
    const void *packed;    /* groups of 16 channels, PL_DW16_GROUP_BYTES(taps) each */
    int32_t out_offset, act_min, act_max;
    bool narrow;           /* every sum + bias fits in int32 (pl_s16_narrow) */
} pl_dw16_job;

/* One group of 16 channels: per tap pair, two vectors of int16 weight pairs in the order
** VPUNPCKLWD/VPUNPCKHWD give two taps' staged values (low: channels 0-3 and 8-11, high:
** 4-7 and 12-15), then bias, reduced multiplier, rounding and shift (int64, 16 each) in
** that order too (0-3, 8-11, 4-7, 12-15). */
static inline size_t pl_dw16_group_bytes(int32_t taps)
{
    return (size_t)taps / 2 * 64 + 4 * 16 * sizeof(int64_t);
}

typedef struct pl_dw_s16 {
    void (*run)(const pl_dw16_job *job, const int16_t *in, int32_t points, int16_t *out);
} pl_dw_s16;

/* NULL when isa has no such kernels in this build (AVX-512 runs the 256-bit rows,
** NEON_DOT NEON's). */
const pl_dw_s16 *pl_dw_s16_for(pl_isa isa);

extern const pl_dw_s16 pl_dw_s16_avx2;
extern const pl_dw_s16 pl_dw_s16_sse41;
extern const pl_dw_s16 pl_dw_s16_neon;

#endif
