/* runs.h - a gather copy with its axes reduced at prepare, for the fast paths that copy
** (STRIDED_SLICE, SLICE, TRANSPOSE): output element (j...) of a count[0] x ... box comes from
** input element first + sum(j[a] * step[a]). Axes of one index only move the start; the
** innermost axes that read consecutive elements merge into one run copied whole; the others
** stay loops, walked by an odometer. A copy in the kernel's order: the kernel's bytes. */
#ifndef PL_FAST_RUNS_H
#define PL_FAST_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "picolite/pl_types.h"

typedef struct pl_fast_runs {
    int32_t axes;                 /* loops around the runs */
    int32_t count[PL_MAX_DIMS];   /* outermost first */
    int64_t step[PL_MAX_DIMS];    /* bytes between indices of each loop */
    int64_t first;                /* byte offset of the first run */
    size_t run;                   /* bytes copied whole */
} pl_fast_runs;

/* The reduced copy of ndims axes (start index, stride in indices, count of indices and
** input elements per index of each) of elements of esize bytes; false when it is empty. */
static inline bool pl_fast_runs_plan(int32_t ndims, const int32_t *start, const int32_t *stride,
                                     const int32_t *count, const int64_t *in_step,
                                     size_t esize, pl_fast_runs *sp)
{
    int32_t n = 0;
    memset(sp, 0, sizeof *sp);
    for (int32_t a = 0; a < ndims; a++) {
        if (count[a] == 0)
            return false;
        sp->first += (int64_t)start[a] * in_step[a];
        if (count[a] > 1) { /* an axis of one index only moves the start */
            sp->count[n] = count[a];
            sp->step[n++] = (int64_t)stride[a] * in_step[a];
        }
    }
    int64_t run = 1; /* elements: the innermost loops that read consecutive elements */
    while (n > 0 && sp->step[n - 1] == run) {
        run *= sp->count[n - 1];
        n--;
    }
    sp->axes = n;
    for (int32_t k = 0; k < n; k++)
        sp->step[k] *= (int64_t)esize;
    for (int32_t k = n; k < PL_MAX_DIMS; k++)
        sp->count[k] = 0, sp->step[k] = 0;
    sp->first *= (int64_t)esize;
    sp->run = (size_t)run * esize;
    return true;
}

/* run < 256 bytes from src to dst as fixed-size moves, the last one overlapping (a memcpy
** call costs about 12 cycles whatever its size). */
static inline void pl_fast_copy_short(uint8_t *dst, const uint8_t *src, size_t run)
{
    if (run >= 16) {
        for (size_t i = 0; i + 16 < run; i += 16)
            memcpy(dst + i, src + i, 16);
        memcpy(dst + run - 16, src + run - 16, 16);
    } else if (run >= 8) {
        memcpy(dst, src, 8);
        memcpy(dst + run - 8, src + run - 8, 8);
    } else if (run >= 4) {
        memcpy(dst, src, 4);
        memcpy(dst + run - 4, src + run - 4, 4);
    } else if (run >= 2) {
        memcpy(dst, src, 2);
        memcpy(dst + run - 2, src + run - 2, 2);
    } else if (run == 1) {
        *dst = *src;
    }
}

/* count runs of run bytes from src to dst, src_step bytes apart in src and dst_step in dst
** (single elements of the common sizes as one load each, runs under 256 bytes as fixed-size
** moves). */
static inline void pl_fast_copy_runs(uint8_t *dst, int64_t dst_step, const uint8_t *src,
                                     int64_t src_step, size_t run, size_t count)
{
    if (run == 1) {
        for (size_t j = 0; j < count; j++)
            dst[(int64_t)j * dst_step] = src[(int64_t)j * src_step];
    } else if (run == 4) {
        for (size_t j = 0; j < count; j++)
            memcpy(dst + (int64_t)j * dst_step, src + (int64_t)j * src_step, 4);
    } else if (run < 256) {
        for (size_t j = 0; j < count; j++)
            pl_fast_copy_short(dst + (int64_t)j * dst_step, src + (int64_t)j * src_step, run);
    } else {
        for (size_t j = 0; j < count; j++)
            memcpy(dst + (int64_t)j * dst_step, src + (int64_t)j * src_step, run);
    }
}

/* The innermost loop of the gather: count runs of run bytes, step bytes apart, to dst in
** order; returns the end of what it wrote. */
static inline uint8_t *pl_fast_runs_row(uint8_t *dst, const uint8_t *src, int32_t count,
                                        int64_t step, size_t run)
{
    pl_fast_copy_runs(dst, (int64_t)run, src, step, run, (size_t)count);
    return dst + (size_t)count * run;
}

/* Writes the whole box of sp, in order, to out from in. */
static inline void pl_fast_runs_copy(const pl_fast_runs *sp, const void *in, void *out)
{
    const uint8_t *base = in;
    uint8_t *dst = out;
    if (sp->axes == 0) {
        memcpy(dst, base + sp->first, sp->run);
        return;
    }
    const int32_t inner = sp->axes - 1;
    int32_t at[PL_MAX_DIMS] = {0};
    int64_t src = sp->first; /* an offset: the odometer's carries pass the input's ends */
    for (;;) {
        dst = pl_fast_runs_row(dst, base + src, sp->count[inner], sp->step[inner], sp->run);
        int32_t a = inner - 1; /* the next index of the outer loops, as an odometer */
        for (; a >= 0; a--) {
            src += sp->step[a];
            if (++at[a] < sp->count[a])
                break;
            src -= sp->step[a] * sp->count[a];
            at[a] = 0;
        }
        if (a < 0)
            return;
    }
}

#endif
