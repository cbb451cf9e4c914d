/* convq_views_fast.h - invoke's views of a conv-like node's tensors (input, filter, bias,
** output), shared by the portable kernels and the host fast paths of CONV_2D and
** FULLY_CONNECTED so both read the node's inputs in the same roles. */
#ifndef PL_KERNELS_CONVQ_VIEWS_FAST_H
#define PL_KERNELS_CONVQ_VIEWS_FAST_H

#include "picolite/pl_node_io.h"

/* Invoke's eval views of input 0 (input), 1 (filter), 2 (bias: data NULL when absent)
** and output 0. */
typedef struct pl_convq_views {
    pl_tensor in, f, bias, out;
} pl_convq_views;

static inline pl_status pl_convq_views_get(pl_context *ctx, const pl_node *node,
                                           pl_convq_views *v)
{
    return pl_node_evals(ctx, node, 3, 1, &v->in, &v->f, &v->bias, &v->out);
}

#endif
