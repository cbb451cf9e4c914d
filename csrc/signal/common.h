/* common.h - what every Signal kernel needs beyond the kernel API (pl_node_io.h reads its
** options and checks its counts): tensors of an expected type and rank, state.
** Each records a message through ctx->fail (naming the node and op) and returns its status. */
#ifndef PL_SIGNAL_COMMON_H
#define PL_SIGNAL_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_node_io.h"

/* Input (output false) or output i as a full tensor; type must match and, when ndims >= 0,
** the rank too. Prepare only. */
pl_status pl_signal_tensor(pl_context *ctx, const pl_node *node, bool output, uint32_t i,
                           pl_type type, int32_t ndims, pl_tensor **out);

/* Persistent state of need bytes in *buf (prepare may run again after a resize: a larger
** need gets a new buffer; *cap tracks what *buf holds). The caller zeroes it. Products of
** model dimensions arrive in 64 bits: more than 32 bits of state is PL_ERR_MODEL. */
pl_status pl_signal_state(pl_context *ctx, uint64_t need, void **buf, size_t *cap);

/* Gives output i the shape of t (prepare). */
pl_status pl_signal_same_shape(pl_context *ctx, const pl_node *node, uint32_t i,
                               const pl_tensor *t);

#endif
