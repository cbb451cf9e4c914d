/* circular_buffer.c - TFLM's CIRCULAR_BUFFER custom operator: the int8 output
** [1, num_slots, height, depth] keeps the last num_slots inputs [1, 1, height, depth]; each
** invoke shifts it one slot towards the start and appends the input (TFLM's EvalInt8).
**
** The rest of the graph runs only every cycles_max invokes (strided streaming convolutions):
** on the others the kernel returns PL_ABORTED after the shift, as TFLM's returns
** kTfLiteAbort, and the invocation ends there. cycles_max comes from the options, or is
** TFLM's default: 1 for 5, 13 or 25 slots, else 2, except for [.., 2, 96] outputs, where
** TFLM's choice depends on a count of earlier prepares across every model in the process
** (refused). reset() restarts the count. */
#include <string.h>

#include "kernels/custom/list.h"
#include "picolite/pl_node_io.h"

typedef struct op_data {
    int32_t cycles_max;
    int32_t cycles_until_run; /* invokes left until the rest of the graph runs */
} op_data;

/* cycles_max from the options; 0 when there are none or the key is absent. */
static pl_status cycles_max(pl_context *ctx, const pl_node *node, int32_t *out)
{
    bool found = false;
    *out = 0;
    if (node->custom_options.n == 0)
        return PL_OK;
    PL_TRY(pl_custom_opt_has(ctx, node, "cycles_max", &found));
    return found ? pl_custom_opt_int(ctx, node, "cycles_max", INT32_MIN, INT32_MAX, out) : PL_OK;
}

/* TFLM's Prepare for cycles_max <= 0, where the output's shape decides. */
static pl_status default_cycles(pl_context *ctx, const pl_tensor *out, int32_t *cycles)
{
    int32_t slots = out->dims[1];
    if (*cycles > 0)
        return PL_OK;
    if (slots != 5 && slots != 13 && slots != 25 && out->dims[2] == 2 && out->dims[3] == 96)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "no cycles_max for a [.., %d, 2, 96] output: "
                         "TFLM picks 1 or 2 from a count of earlier prepares across models",
                         slots);
    *cycles = slots == 5 || slots == 13 || slots == 25 ? 1 : 2;
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *out;
    int32_t cycles;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(1, 1), &in, &out));
    PL_TRY(pl_check_type(ctx, in, false, 0, PL_TYPES1(PL_INT8)));
    PL_TRY(pl_check_type(ctx, out, true, 0, PL_TYPES1(PL_INT8)));
    if (in->ndims != 4 || out->ndims != 4 || in->dims[0] != out->dims[0] || in->dims[1] != 1 ||
        in->dims[2] != out->dims[2] || in->dims[3] != out->dims[3] || out->dims[1] < 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "input must be [n, 1, h, d] and output "
                         "[n, slots, h, d] (ranks %d and %d)", in->ndims, out->ndims);
    PL_TRY(cycles_max(ctx, node, &cycles));
    PL_TRY(default_cycles(ctx, out, &cycles));
    op_data *d = node->user_data;
    d->cycles_max = cycles;
    d->cycles_until_run = d->cycles_max;
    return ctx->set_shape(ctx, out->index, out->ndims, out->dims);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    /* TFLM takes the batch as 1: slots and depth from the output's dims 1..3 */
    size_t slots = (size_t)out.dims[1], depth = (size_t)out.dims[2] * (size_t)out.dims[3];
    int8_t *y = out.data;
    memmove(y, y + depth, (slots - 1) * depth);
    memcpy(y + (slots - 1) * depth, in.data, depth);
    if (--d->cycles_until_run != 0)
        return PL_ABORTED; /* not this invoke: the nodes after this one wait */
    d->cycles_until_run = d->cycles_max;
    return PL_OK;
}

static pl_status reset(pl_context *ctx, pl_node *node)
{
    (void)ctx;
    op_data *d = node->user_data;
    d->cycles_until_run = d->cycles_max;
    return PL_OK;
}

const pl_registration *pl_circular_buffer_registration(void)
{
    static const pl_registration reg = {.name = "CIRCULAR_BUFFER",
                                        .builtin_code = PL_BUILTIN_CUSTOM, .prepare = prepare,
                                        .invoke = invoke, .reset = reset,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
