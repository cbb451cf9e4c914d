/* stacker.c - SignalStacker: stacks stacker_left_context + 1 + stacker_right_context int16
** frames of num_channels into one output, every stacker_step frames (TFLM's stacker). The
** first frame is repeated as its own left context. The bool scalar output tells whether a
** stack was emitted (the output is left untouched otherwise, as in TFLM). The FIFO
** persists; reset() empties it. */
#include <string.h>

#include "signal/common.h"
#include "signal/list.h"
#include "picolite/pl_node_io.h"

typedef struct op_data {
    int32_t channels, left, right, step;
    int32_t size;  /* channels * (left + right + 1): the stack and the FIFO's capacity */
    int32_t count; /* samples held */
    bool has_first;
    PL_SLOT(int16_t *, fifo);
} op_data;

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    op_data *d = *user_data;
    PL_TRY(pl_custom_opt_int(ctx, node, "num_channels", 1, 1 << 16, &d->channels));
    PL_TRY(pl_custom_opt_int(ctx, node, "stacker_left_context", 0, 1 << 10, &d->left));
    PL_TRY(pl_custom_opt_int(ctx, node, "stacker_right_context", 0, 1 << 10, &d->right));
    PL_TRY(pl_custom_opt_int(ctx, node, "stacker_step", 1, 1 << 10, &d->step));
    if (d->step > d->left + d->right + 1)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "stacker_step %d exceeds the %d stacked "
                         "frames (TFLM would discard samples it does not hold)", d->step,
                         d->left + d->right + 1);
    d->size = d->channels * (d->left + d->right + 1);
    return ctx->alloc_persistent(ctx, (size_t)d->size * sizeof(int16_t), (void **)&d->fifo);
}

static pl_status reset(pl_context *ctx, pl_node *node)
{
    (void)ctx;
    op_data *d = node->user_data;
    d->count = 0;
    d->has_first = false;
    memset(d->fifo, 0, (size_t)d->size * sizeof(int16_t));
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor *in, *out, *valid;
    PL_TRY(pl_node_check(ctx, node, PL_IO(1, 2)));
    PL_TRY(pl_signal_tensor(ctx, node, false, 0, PL_INT16, 1, &in));
    PL_TRY(pl_signal_tensor(ctx, node, true, 0, PL_INT16, 1, &out));
    PL_TRY(pl_signal_tensor(ctx, node, true, 1, PL_BOOL, 0, &valid));
    if (in->dims[0] != d->channels)
        return ctx->fail(ctx, PL_ERR_MODEL, "input has %d values for num_channels %d",
                         in->dims[0], d->channels);
    PL_TRY(ctx->set_shape(ctx, pl_node_output(node, 0), 1, &d->size));
    PL_TRY(ctx->set_shape(ctx, pl_node_output(node, 1), 0, NULL));
    return reset(ctx, node);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    pl_tensor in, out, valid;
    PL_TRY(pl_node_evals(ctx, node, 1, 2, &in, &out, &valid));
    size_t c = (size_t)d->channels;
    memcpy(d->fifo + d->count, in.data, c * sizeof(int16_t));
    d->count += d->channels;
    for (int32_t k = 0; !d->has_first && k < d->left; k++) {
        memcpy(d->fifo + d->count, d->fifo + d->count - d->channels, c * sizeof(int16_t));
        d->count += d->channels;
    }
    d->has_first = true;
    bool ready = d->count >= d->size;
    if (ready) {
        int32_t drop = d->channels * d->step;
        memcpy(out.data, d->fifo, (size_t)d->size * sizeof(int16_t));
        d->count -= drop;
        memmove(d->fifo, d->fifo + drop, (size_t)d->count * sizeof(int16_t));
    }
    *(bool *)valid.data = ready;
    return PL_OK;
}

const pl_registration *pl_signal_stacker_registration(void)
{
    static const pl_registration reg = {.name = "SignalStacker",
                                        .builtin_code = PL_BUILTIN_CUSTOM, .init = init,
                                        .prepare = prepare, .invoke = invoke, .reset = reset,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
