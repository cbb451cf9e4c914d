/* planners.h - the planners behind pl_plan_compute, and the helpers they share.
**
** pl_plan_compute validates the buffers (lifetimes, offline overlaps), carves the caller's
** scratch and calls one planner. A planner writes off[i] for every buffer: 64-bit, so no
** intermediate offset can wrap; pl_plan_compute checks the total fits uint32 before it
** copies the offsets out. Offline buffers (offline_offset >= 0) keep their offset in every
** planner. Scratch passed to a planner is 8-byte aligned and at least its _scratch_size. */
#ifndef PL_MEMORY_PLANNERS_H
#define PL_MEMORY_PLANNERS_H

#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_plan.h"

/* count * per bytes, or SIZE_MAX when that does not fit a size_t. */
size_t pl_plan_array_bytes(uint32_t count, size_t per);

/* Strict "a goes before b" for sorting buffer ids; ctx is the sorter's data. */
typedef int (*pl_plan_before_fn)(const void *ctx, uint32_t a, uint32_t b);

/* Sorts ids in place (heap sort: no scratch, O(n log n)). before must be a strict total
** order, so the result does not depend on the sorting algorithm. */
void pl_plan_sort(uint32_t *ids, uint32_t n, pl_plan_before_fn before, const void *ctx);

/* max(off[i] + size) over all buffers: the head size of a plan. */
uint64_t pl_plan_total(const pl_plan_buffer *bufs, uint32_t n, const uint64_t *off);

/* Do buffers a and b share a node index? */
int pl_plan_overlap_in_time(const pl_plan_buffer *a, const pl_plan_buffer *b);

/* The host's interrupt check as the planners see it: every planner calls pl_plan_tick once
** per buffer placed (or search step) and returns as soon as it says stop. */
typedef struct pl_plan_poll {
    pl_plan_poll_fn fn; /* NULL: never stops */
    void *ctx;
    uint32_t left;      /* ticks until the next call of fn */
    int stopped;
} pl_plan_poll;

/* Counts one unit of work; nonzero once the host asked to stop (and from then on). */
int pl_plan_tick(pl_plan_poll *poll);

/* The time index the fit rules search: every buffer by (bit length of last - first, first). */
#define PL_FIT_CLASSES 32
typedef struct pl_fit {
    const pl_plan_buffer *bufs;
    uint32_t *index;                     /* n buffer ids, the caller's */
    uint32_t start[PL_FIT_CLASSES + 1];  /* index entries of class c: [start[c], start[c+1]) */
} pl_fit;

/* off[i] of a buffer not placed yet. */
#define PL_FIT_UNPLACED UINT64_MAX

typedef enum pl_fit_rule {
    PL_FIT_FIRST,        /* the lowest gap; empty buffers do not count */
    PL_FIT_FIRST_POINTS, /* the same, but an empty buffer splits a gap, as in TFLM's list */
    PL_FIT_BEST          /* TFLite's smallest fitting gap, else the end */
} pl_fit_rule;

/* Builds the index of bufs in index (n entries); f keeps both pointers. A PL_GREEDY_ONLY
** build builds none: its pl_fit_place walks an offset-ordered list alone (fit.c). */
void pl_fit_index(pl_fit *f, const pl_plan_buffer *bufs, uint32_t n, uint32_t *index);

/* Writes into out (up to n ids) the buffers live at a node of q's, q included: only the
** placed ones (off[i] != PL_FIT_UNPLACED) when off is given, empty ones only when points. */
uint32_t pl_fit_overlapping(const pl_fit *f, uint32_t q, const uint64_t *off, int points,
                            uint32_t *out);

/* Places the n buffers of order in turn (offline ones at their offsets, empty ones at 0)
** by rule. work holds up to as many ids as were placed before the current buffer, so it may
** be order itself: order is then consumed (its first entries overwritten) as it goes. */
void pl_fit_place(const pl_fit *f, uint32_t n, const uint32_t *order, uint32_t *work,
                  uint64_t *off, pl_fit_rule rule, pl_plan_poll *poll);

/* TFLM's GreedyMemoryPlanner, exactly (offsets and head size). */
size_t pl_greedy_scratch_size(uint32_t count);
void pl_greedy_plan(const pl_plan_buffer *bufs, uint32_t n, uint64_t *off, void *scratch,
                    pl_plan_poll *poll);

/* TFLite's ArenaPlanner order + SimpleMemoryArena::Allocate's smallest fitting gap. */
size_t pl_bestfit_scratch_size(uint32_t count);
void pl_bestfit_plan(const pl_plan_buffer *bufs, uint32_t n, uint64_t *off, void *scratch,
                     pl_plan_poll *poll);

/* No reuse: online buffers one after another in given order, after the offline ones. */
size_t pl_linear_scratch_size(uint32_t count);
void pl_linear_plan(const pl_plan_buffer *bufs, uint32_t n, uint64_t *off, void *scratch,
                    pl_plan_poll *poll);

/* The best of greedy, bestfit and a bounded deterministic search; stops at the lower bound. */
size_t pl_optimal_scratch_size(uint32_t count);
void pl_optimal_plan(const pl_plan_buffer *bufs, uint32_t n, uint64_t *off, void *scratch,
                     pl_plan_poll *poll);

#endif
