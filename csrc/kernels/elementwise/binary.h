/* binary.h - the prepare and invoke steps every one- and two-input elementwise kernel shares:
** arity, the output shape (broadcast.h's pl_bcast_set_output), the broadcast walk.
**
** Used by the elementwise math kernels and the compare family. Two inputs broadcast NumPy
** style (kernels/common/broadcast.h); equal shapes of any rank walk flat. */
#ifndef PL_KERNELS_BINARY_H
#define PL_KERNELS_BINARY_H

#include "kernels/common/broadcast.h"
#include "picolite/pl_kernel.h"

/* Prepare: checks 2 inputs and 1 output, fills t (input 1, input 2, output), gives the
** output the broadcast shape. Incompatible shapes are PL_ERR_MODEL, ranks above
** PL_BCAST_MAX_DIMS that differ PL_ERR_UNSUPPORTED. */
pl_status pl_binary_prepare(pl_context *ctx, pl_node *node, pl_tensor *t[3]);

/* Prepare: checks 1 input and 1 output, fills in/out, gives the output the input's shape. */
pl_status pl_unary_prepare(pl_context *ctx, pl_node *node, pl_tensor **in, pl_tensor **out);

/* Invoke: the eval views of the two inputs and the output, and the broadcast walk.
** PL_ERR_STATE when the shapes no longer broadcast to the output. */
pl_status pl_binary_eval(pl_context *ctx, const pl_node *node, pl_tensor t[3], pl_bcast *bc);

/* Invoke: the eval views of a one-input node; returns the element count in *n. */
pl_status pl_unary_eval(pl_context *ctx, const pl_node *node, pl_tensor *in, pl_tensor *out,
                        size_t *n);

/* "float32, int8, ..." check: true when t is one of the n types. */
static inline bool pl_type_in(pl_type t, const pl_type *types, int n)
{
    for (int i = 0; i < n; i++) {
        if (types[i] == t)
            return true;
    }
    return false;
}

#endif
