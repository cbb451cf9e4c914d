/* allocation_info.h - TFLM's memory plan: its buffer list and lifetimes, placed by the
** greedy planner.
**
** The list is TFLM's AllocationInfo: every tensor of every subgraph that has no data in the
** model, is not a variable (unless an offline plan places it) and has bytes, in subgraph and
** tensor order, then every scratch request. Lifetimes are AllocationInfoBuilder's, marked
** from subgraph 0 alone: what control flow never reaches keeps first = last = -1 and is
** planned apart from everything live. picolite's greedy planner is TFLM's offset for offset. */
#ifndef PL_TFLM_ALLOCATION_INFO_H
#define PL_TFLM_ALLOCATION_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "tflm/program.h"

typedef struct pl_tflm_plan {
    uint32_t buffers;     /* planned buffers (the planner's AddBuffer calls) */
    uint32_t head;        /* GetMaximumMemorySize */
    uint32_t head_tensors; /* the highest end among tensors */
    uint32_t scratch_bytes; /* scratch buffers' aligned bytes */
    uint64_t lower_bound; /* live bytes at the busiest time */
} pl_tflm_plan;

/* Scratch bytes pl_tflm_plan_run needs for the program's model and requests. */
size_t pl_tflm_plan_scratch_size(const pl_tflm_program *p);

/* Plans the program's buffers. PL_ERR_UNSUPPORTED for control flow nested past picolite's
** depth, PL_ERR_MODEL for an offline plan whose buffers overlap. */
pl_status pl_tflm_plan_run(const pl_tflm_program *p, void *scratch, size_t scratch_size,
                           pl_tflm_plan *out, pl_error *err);

#endif
