/* lut8.c - 8-bit activations whose output byte depends on the input byte alone (quantized
** HARD_SWISH, LEAKY_RELU, RELU, RELU6, RELU_N1_TO_1): prepare runs the portable arithmetic
** once on all 256 inputs into the host block, invoke looks each byte up. The table holds
** the portable kernel's own results, so the bits are the reference's; the arena is not
** touched (TFLM computes these per element). */
#include "fast/fast.h"
#include "kernels/activation/activations.h"
#include "kernels/registry.h"

enum { TABLE = 256 };

/* The portable kernel of node's operator on the 256 inputs of type t (index = input
** byte), false for operators and types without a table. */
static bool fill(const pl_node *node, pl_type t, uint8_t *table)
{
    const pl_activation_op *d = node->user_data;
    const pl_registration *base = pl_fast_reg_of(node)->base;
    uint8_t bytes[TABLE];
    for (int i = 0; i < TABLE; i++)
        bytes[i] = (uint8_t)i;
    const int8_t *s8 = (const int8_t *)bytes;
    int8_t *t8 = (int8_t *)table;
    bool u8 = t == PL_UINT8;
    if (t != PL_INT8 && !u8)
        return false;
    if (base == pl_hard_swish_registration()) {
        if (u8)
            pl_hard_swish_u8(&d->hs, bytes, table, TABLE);
        else
            pl_hard_swish_s8(&d->hs, s8, t8, TABLE);
    } else if (base == pl_leaky_relu_registration()) {
        if (u8)
            pl_leaky_relu_u8(&d->leaky, bytes, table, TABLE);
        else
            pl_leaky_relu_s8(&d->leaky, s8, t8, TABLE);
    } else if (base == pl_relu_registration() || base == pl_relu6_registration() ||
               base == pl_relu_n1_to_1_registration()) {
        if (u8)
            pl_relu_u8(&d->relu, bytes, table, TABLE);
        else
            pl_relu_s8(&d->relu, s8, t8, TABLE);
    } else {
        return false;
    }
    return true;
}

static bool plan(pl_context *ctx, const pl_node *node)
{
    pl_tensor in, out;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK || in.type != out.type)
        return false;
    uint8_t table[TABLE];
    if (!fill(node, in.type, table))
        return false;
    uint8_t *block = pl_fast_block_new(node, TABLE);
    if (block == NULL)
        return false;
    for (int i = 0; i < TABLE; i++)
        block[i] = table[i];
    return true;
}

pl_status pl_fast_lut8_prepare(pl_context *ctx, pl_node *node)
{
    PL_TRY(pl_fast_reg_of(node)->base->prepare(ctx, node));
    if (!plan(ctx, node))
        pl_fast_block_drop(node);
    return PL_OK;
}

pl_status pl_fast_lut8_invoke(pl_context *ctx, pl_node *node)
{
    const uint8_t *table = pl_fast_block(node);
    if (table == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    pl_tensor in, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    const uint8_t *x = in.data;
    uint8_t *y = out.data;
    size_t n = pl_tensor_count(&in);
    for (size_t i = 0; i < n; i++)
        y[i] = table[x[i]];
    return PL_OK;
}
