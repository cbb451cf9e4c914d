/* s16.h - the 16x8 fast paths (int16 activations, int8 weights), called by the operators'
** fast prepare and invoke when the node is 16x8 (not public). */
#ifndef PL_FAST_S16_H
#define PL_FAST_S16_H

#include "fast/fast.h"

/* Prepare, after the portable prepare: sets up the node's block; false: the portable
** kernel runs the node. */
bool pl_fast_conv16_plan(pl_context *ctx, const pl_node *node);
/* Invoke with the block the plan set up. */
pl_status pl_fast_conv16_invoke(pl_context *ctx, const pl_node *node, const void *block);
bool pl_fast_fully_connected16_plan(pl_context *ctx, const pl_node *node);
pl_status pl_fast_fully_connected16_invoke(pl_context *ctx, const pl_node *node,
                                           const void *block);
bool pl_fast_depthwise16_plan(pl_context *ctx, const pl_node *node);
pl_status pl_fast_depthwise16_invoke(pl_context *ctx, const pl_node *node, const void *block);

#endif
