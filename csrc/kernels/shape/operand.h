/* operand.h - small integer operand tensors (shapes, sizes, indices, axes) of the shape,
** gather and image kernels: element reads of any index type, shapes read from a vector.
**
** Such operands are constants in most models (their data is there at prepare, so the output
** shape is computed then) but may be computed by earlier nodes (SHAPE -> ... -> FILL): the
** kernel then keeps the model's declared output shape at prepare and checks at invoke that
** the values give exactly that shape. */
#ifndef PL_KERNELS_OPERAND_H
#define PL_KERNELS_OPERAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Element i of an INT16, INT32 or INT64 tensor (other types read as INT32). */
static inline int64_t pl_operand_at(const pl_tensor *t, size_t i)
{
    const uint8_t *p = t->data;
    if (t->type == PL_INT64)
        return (int64_t)pl_le64(p + 8 * i);
    if (t->type == PL_INT16)
        return (int16_t)pl_le16(p + 2 * i);
    return (int32_t)pl_le32(p + 4 * i);
}

/* True for the INT32 and INT64 operand types. */
static inline bool pl_operand_is_index(pl_type t)
{
    return t == PL_INT32 || t == PL_INT64;
}

/* True when an operand's values are known at prepare: a constant with its data. */
static inline bool pl_operand_known(const pl_tensor *t)
{
    return t->is_constant && t->data != NULL;
}

/* The last call of prepare of a kernel whose outputs may be small integer tensors: lets the
** runtime evaluate them at prepare (ctx->fold). pl_operand_fold_dims is SHAPE's: its values
** depend on its input's dims alone. */
static inline pl_status pl_operand_fold(pl_context *ctx, pl_node *node)
{
    return ctx->fold(ctx, node, false);
}

static inline pl_status pl_operand_fold_dims(pl_context *ctx, pl_node *node)
{
    return ctx->fold(ctx, node, true);
}

/* Reads a 1-D INT32/INT64 shape vector (at most PL_MAX_DIMS entries, each in 0..INT32_MAX)
** into ndims/dims. The tensor's data must be present. */
pl_status pl_operand_shape(pl_context *ctx, const char *name, const pl_tensor *t,
                           int32_t *ndims, int32_t *dims);

/* At invoke: PL_ERR_ARG naming both shapes unless out (an eval view) has exactly the shape
** the operand values give. */
pl_status pl_operand_check_out(pl_context *ctx, const char *name, const pl_tensor *out,
                               int32_t ndims, const int32_t *dims);

/* Product of dims as size_t (1 for rank 0). */
size_t pl_operand_count(int32_t ndims, const int32_t *dims);

#endif
