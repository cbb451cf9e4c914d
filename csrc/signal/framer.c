/* framer.c - SignalFramer: splits each int16 row of the last dimension into frame_step
** hops and emits frames of frame_size samples from a FIFO per row (TFLM's circular-buffer
** framer); 'prefill' starts each FIFO with frame_size - frame_step zeros. The bool scalar
** output is false when a frame lacked samples (that frame's output is left untouched, as
** in TFLM). FIFOs persist; reset() restores the prefill. */
#include <string.h>

#include "signal/common.h"
#include "signal/list.h"
#include "picolite/pl_node_io.h"

typedef struct op_data {
    int32_t size, step, rows, frames, capacity;
    bool prefill;
    PL_SLOT(int32_t *, count); /* samples held per row */
    PL_SLOT(int16_t *, fifo);  /* rows * capacity */
    PL_SLOT(size_t, count_cap);
    PL_SLOT(size_t, fifo_cap);
} op_data;

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    op_data *d = *user_data;
    PL_TRY(pl_custom_opt_int(ctx, node, "frame_size", 1, 1 << 24, &d->size));
    PL_TRY(pl_custom_opt_int(ctx, node, "frame_step", 1, 1 << 24, &d->step));
    PL_TRY(pl_custom_opt_bool(ctx, node, "prefill", &d->prefill));
    if (d->prefill && d->size < d->step)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "prefill with frame_size %d < frame_step %d "
                         "(TFLM would write a negative count of zeros)", d->size, d->step);
    d->capacity = (d->size + d->step - 1) / d->step * d->step;
    return PL_OK;
}

static pl_status reset(pl_context *ctx, pl_node *node)
{
    (void)ctx;
    const op_data *d = node->user_data;
    for (int32_t r = 0; d->count != NULL && r < d->rows; r++)
        d->count[r] = d->prefill ? d->size - d->step : 0;
    if (d->fifo != NULL)
        memset(d->fifo, 0, (size_t)d->rows * (size_t)d->capacity * sizeof(int16_t));
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    pl_tensor *in, *out, *valid;
    PL_TRY(pl_node_check(ctx, node, PL_IO(1, 2)));
    PL_TRY(pl_signal_tensor(ctx, node, false, 0, PL_INT16, -1, &in));
    PL_TRY(pl_signal_tensor(ctx, node, true, 0, PL_INT16, in->ndims + 1, &out));
    PL_TRY(pl_signal_tensor(ctx, node, true, 1, PL_BOOL, 0, &valid));
    int32_t last = in->ndims > 0 ? in->dims[in->ndims - 1] : 0;
    if (in->ndims < 1 || in->ndims >= PL_MAX_DIMS || last < d->step || last % d->step != 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "rows of %d samples are not whole hops of %d", last,
                         d->step);
    d->frames = last / d->step;
    d->rows = (int32_t)(pl_tensor_count(in) / (size_t)last);
    PL_TRY(pl_signal_state(ctx, (uint64_t)d->rows * 4u, (void **)&d->count, &d->count_cap));
    PL_TRY(pl_signal_state(ctx, (uint64_t)d->rows * (uint64_t)d->capacity * 2u,
                           (void **)&d->fifo, &d->fifo_cap));
    PL_TRY(reset(ctx, node));
    int32_t dims[PL_MAX_DIMS];
    for (int32_t i = 0; i < in->ndims - 1; i++)
        dims[i] = in->dims[i];
    dims[in->ndims - 1] = d->frames;
    dims[in->ndims] = d->size;
    PL_TRY(ctx->set_shape(ctx, pl_node_output(node, 0), in->ndims + 1, dims));
    return ctx->set_shape(ctx, pl_node_output(node, 1), 0, NULL);
}

/* One hop into a row's FIFO; a frame out when enough samples are held. */
static bool hop(const op_data *d, int16_t *fifo, int32_t *count, const int16_t *in,
                int16_t *out)
{
    memcpy(fifo + *count, in, (size_t)d->step * sizeof *fifo);
    *count += d->step;
    if (*count < d->size)
        return false;
    memcpy(out, fifo, (size_t)d->size * sizeof *fifo);
    *count -= d->step;
    memmove(fifo, fifo + d->step, (size_t)*count * sizeof *fifo);
    return true;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in, out, valid;
    PL_TRY(pl_node_evals(ctx, node, 1, 2, &in, &out, &valid));
    bool ok = true;
    for (int32_t r = 0; r < d->rows; r++) {
        int16_t *fifo = d->fifo + (size_t)r * (size_t)d->capacity;
        for (int32_t f = 0; f < d->frames; f++) {
            size_t k = (size_t)r * (size_t)d->frames + (size_t)f;
            ok &= hop(d, fifo, &d->count[r], (const int16_t *)in.data + k * (size_t)d->step,
                      (int16_t *)out.data + k * (size_t)d->size);
        }
    }
    *(bool *)valid.data = ok;
    return PL_OK;
}

const pl_registration *pl_signal_framer_registration(void)
{
    static const pl_registration reg = {.name = "SignalFramer",
                                        .builtin_code = PL_BUILTIN_CUSTOM, .init = init,
                                        .prepare = prepare, .invoke = invoke, .reset = reset,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
