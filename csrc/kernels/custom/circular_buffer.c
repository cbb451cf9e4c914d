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
#include "model/flexbuffer.h"

typedef struct op_data {
    int32_t cycles_max;
    int32_t cycles_until_run; /* invokes left until the rest of the graph runs */
} op_data;

/* cycles_max from the options; 0 when there are none or the key is absent. */
static pl_status cycles_max(pl_context *ctx, const pl_node *node, int64_t *out)
{
    pl_error err;
    pl_flex root, v;
    bool found = false;
    *out = 0;
    if (node->custom_options.n == 0)
        return PL_OK;
    if (pl_flex_root(node->custom_options, &root, &err) != PL_OK ||
        pl_flex_map_find(&root, "cycles_max", &v, &found, &err) != PL_OK ||
        (found && pl_flex_int(&v, out, &err) != PL_OK))
        return ctx->fail(ctx, PL_ERR_MODEL, "custom options: %s", err.msg);
    return PL_OK;
}

/* TFLM's Prepare for cycles_max <= 0, where the output's shape decides. */
static pl_status default_cycles(pl_context *ctx, const pl_tensor *out, int64_t *cycles)
{
    int32_t slots = out->dims[1];
    if (*cycles > INT32_MAX)
        return ctx->fail(ctx, PL_ERR_MODEL, "cycles_max %lld is past int32",
                         (long long)*cycles);
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
    int64_t cycles;
    if (node->inputs.n != 1 || node->outputs.n != 1 || pl_node_input(node, 0) < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "needs one input and one output");
    PL_TRY(ctx->get_tensor(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_tensor(ctx, pl_node_output(node, 0), &out));
    if (in->type != PL_INT8 || out->type != PL_INT8)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "input %s, output %s: only int8 runs",
                         pl_type_name(in->type), pl_type_name(out->type));
    if (in->ndims != 4 || out->ndims != 4 || in->dims[0] != out->dims[0] || in->dims[1] != 1 ||
        in->dims[2] != out->dims[2] || in->dims[3] != out->dims[3] || out->dims[1] < 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "input must be [n, 1, h, d] and output "
                         "[n, slots, h, d] (ranks %d and %d)", in->ndims, out->ndims);
    PL_TRY(cycles_max(ctx, node, &cycles));
    PL_TRY(default_cycles(ctx, out, &cycles));
    op_data *d = node->user_data;
    d->cycles_max = (int32_t)cycles;
    d->cycles_until_run = d->cycles_max;
    return ctx->set_shape(ctx, pl_node_output(node, 0), out->ndims, out->dims);
}

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    (void)node;
    return ctx->alloc_persistent(ctx, sizeof(op_data), user_data);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
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
    static const pl_registration reg = {"CIRCULAR_BUFFER", PL_BUILTIN_CUSTOM, init, NULL, prepare, invoke,
                                        reset};
    return &reg;
}
