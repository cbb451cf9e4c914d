/* pl_plan.h - memory planners: buffers with lifetimes in, offsets and the head size out.
**
**   pl_plan_buffer b[3] = {{100, 0, 1, -1}, {80, 2, 3, -1}, {50, 1, 2, -1}};
**   size_t need = pl_plan_scratch_size(PL_PLANNER_GREEDY, 3);     // caller provides it
**   pl_plan_compute(PL_PLANNER_GREEDY, b, 3, scratch, need, &head, &err);
**   // b[i].offset = 0, 0, 100; head = 150
**
** Planners allocate nothing: working memory is the caller's scratch (the runtime takes it
** from the arena's temp section). Sizes are used as given (the runtime aligns them). */
#ifndef PL_PLAN_H
#define PL_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "pl_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pl_planner {
    PL_PLANNER_GREEDY = 0, /* TFLM's GreedyMemoryPlanner, exactly */
    PL_PLANNER_BESTFIT,    /* TFLite's ArenaPlanner / SimpleMemoryArena */
    PL_PLANNER_LINEAR,     /* no reuse: every buffer after the previous one */
    PL_PLANNER_OPTIMAL,    /* never worse than greedy and bestfit; at the lower bound when found */
    PL_PLANNER_COUNT
} pl_planner;

/* Buffer flags. */
#define PL_PLAN_IO 1u /* a model input or output: bestfit places these first, in order */

typedef struct pl_plan_buffer {
    uint32_t size;          /* bytes */
    int32_t first;          /* first node index that uses it */
    int32_t last;           /* last node index that uses it (inclusive, >= first) */
    int32_t offline_offset; /* fixed offset from an offline plan, or -1 to plan it */
    uint32_t flags;         /* PL_PLAN_* */
    uint32_t offset;        /* output */
} pl_plan_buffer;

/* "greedy", "bestfit", "linear", "optimal"; NULL for an unknown value. */
const char *pl_planner_name(pl_planner planner);

/* Looks a planner up by name; PL_ERR_ARG naming the known planners when unknown. */
pl_status pl_planner_from_name(const char *name, pl_planner *out, pl_error *err);

/* Bytes of scratch pl_plan_compute needs for count buffers with this planner. */
size_t pl_plan_scratch_size(pl_planner planner, uint32_t count);

/* Sets every bufs[i].offset and *total (the head size: max offset + size, 0 when empty).
** Fails with PL_ERR_ARG on a bad lifetime (first > last, negative) or too little scratch,
** and with PL_ERR_ARG when offline buffers overlap in time and space. */
pl_status pl_plan_compute(pl_planner planner, pl_plan_buffer *bufs, uint32_t count,
                          void *scratch, size_t scratch_size, uint32_t *total, pl_error *err);

/* A host's interrupt check for long plans: polled every PL_PLAN_POLL_EVERY buffers placed
** (and search steps), without any lock of the caller's; nonzero stops the plan. */
typedef int (*pl_plan_poll_fn)(void *poll_ctx);
#define PL_PLAN_POLL_EVERY 256u

/* pl_plan_compute, polling poll (may be NULL) as it goes: PL_ERR_STATE "plan interrupted"
** when poll asked to stop (the offsets are then meaningless). */
pl_status pl_plan_compute_polled(pl_planner planner, pl_plan_buffer *bufs, uint32_t count,
                                 void *scratch, size_t scratch_size, uint32_t *total,
                                 pl_plan_poll_fn poll, void *poll_ctx, pl_error *err);

/* The live-bytes lower bound: max over node indices of the sizes of buffers live there.
** No plan can have a smaller head. Needs no scratch; O(count^2), for model-sized plans. */
uint64_t pl_plan_lower_bound(const pl_plan_buffer *bufs, uint32_t count);

/* The same bound in O(count log count), for large plans, in caller scratch of
** pl_plan_lower_bound_scratch_size(count) bytes (4-byte aligned). */
size_t pl_plan_lower_bound_scratch_size(uint32_t count);
uint64_t pl_plan_lower_bound_sorted(const pl_plan_buffer *bufs, uint32_t count, void *scratch);

#ifdef __cplusplus
}
#endif

#endif
