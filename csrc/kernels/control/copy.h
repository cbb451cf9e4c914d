/* copy.h - moving tensors between a control-flow node and the subgraphs it runs (TFLM's
** CopyOpInputsToSubgraphInputs and friends): byte copies of equal-sized tensors. */
#ifndef PL_KERNELS_CONTROL_COPY_H
#define PL_KERNELS_CONTROL_COPY_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Which side of a copy: the node's inputs or outputs, or a subgraph's. */
typedef struct pl_copy_end {
    int32_t subgraph; /* -1: the node's own tensors */
    bool output;
    uint32_t first; /* the first index copied (IF skips its condition) */
} pl_copy_end;

/* Copies count tensors from one end to the other; PL_ERR_MODEL when sizes differ. */
pl_status pl_copy_tensors(pl_context *ctx, const pl_node *node, pl_copy_end from,
                          pl_copy_end to, uint32_t count);

/* Checks that subgraph k has the input or output count a node needs. */
pl_status pl_copy_check_count(pl_context *ctx, int32_t subgraph, bool output, uint32_t want);

#endif
