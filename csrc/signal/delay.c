/* delay.c - SignalDelay: delays each int16 frame of the last dimension by delay_length
** samples, starting from zeros (TFLM's circular-buffer delay line, kept here as the last
** delay_length samples per row). reset() zeroes the line. */
#include <string.h>

#include "signal/common.h"
#include "signal/list.h"
#include "picolite/pl_node_io.h"

typedef struct op_data {
    int32_t delay, frame, rows;
    PL_SLOT(int16_t *, line); /* rows * delay samples, persistent */
    PL_SLOT(size_t, cap);
} op_data;

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    op_data *d = *user_data;
    return pl_custom_opt_int(ctx, node, "delay_length", 0, 1 << 24, &d->delay);
}

static pl_status reset(pl_context *ctx, pl_node *node)
{
    (void)ctx;
    const op_data *d = node->user_data;
    if (d->line != NULL)
        memset(d->line, 0, (size_t)d->rows * (size_t)d->delay * sizeof(int16_t));
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    pl_tensor *in, *out;
    PL_TRY(pl_node_check(ctx, node, PL_IO(1, 1)));
    PL_TRY(pl_signal_tensor(ctx, node, false, 0, PL_INT16, -1, &in));
    PL_TRY(pl_signal_tensor(ctx, node, true, 0, PL_INT16, -1, &out));
    if (in->ndims < 1 || in->dims[in->ndims - 1] < 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "input needs a non-empty last dimension");
    d->frame = in->dims[in->ndims - 1];
    d->rows = (int32_t)(pl_tensor_count(in) / (size_t)d->frame);
    if (d->delay > 0)
        PL_TRY(pl_signal_state(ctx, (uint64_t)d->rows * (uint64_t)d->delay * 2u,
                               (void **)&d->line, &d->cap));
    PL_TRY(reset(ctx, node));
    return pl_signal_same_shape(ctx, node, 0, in);
}

/* out = (line ++ in)[0 : frame], line = (line ++ in)[frame : frame + delay]. */
static void delay_row(int16_t *line, int32_t delay, const int16_t *in, int16_t *out,
                      int32_t frame)
{
    for (int32_t i = 0; i < frame; i++)
        out[i] = i < delay ? line[i] : in[i - delay];
    if (delay == 0)
        return;
    if (delay > frame) {
        memmove(line, line + frame, (size_t)(delay - frame) * sizeof(int16_t));
        memcpy(line + delay - frame, in, (size_t)frame * sizeof(int16_t));
    } else {
        memcpy(line, in + frame - delay, (size_t)delay * sizeof(int16_t));
    }
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    const int16_t *x = in.data;
    int16_t *y = out.data;
    for (int32_t r = 0; r < d->rows; r++) {
        size_t at = (size_t)r * (size_t)d->frame;
        /* a delay of 0 keeps no line (NULL: no offset from it) */
        int16_t *line = d->delay > 0 ? d->line + (size_t)r * (size_t)d->delay : NULL;
        delay_row(line, d->delay, x + at, y + at, d->frame);
    }
    return PL_OK;
}

const pl_registration *pl_signal_delay_registration(void)
{
    static const pl_registration reg = {.name = "SignalDelay",
                                        .builtin_code = PL_BUILTIN_CUSTOM, .init = init,
                                        .prepare = prepare, .invoke = invoke, .reset = reset,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
