/* overlap_add.c - SignalOverlapAdd: frames [..., n_frames, frame_size] added into a running
** buffer; each frame emits its first frame_step samples and shifts the buffer (TFLM's
** OverlapAdd: int16 saturates, float adds). The buffer persists; reset() zeroes it. */
#include <string.h>

#include "signal/common.h"
#include "signal/list.h"
#include "picolite/pl_node_io.h"

typedef struct op_data {
    int32_t type, step, size, frames, rows;
    PL_SLOT(void *, buffer); /* rows * size samples, persistent */
    PL_SLOT(size_t, cap);
} op_data;

static size_t sample_size(const op_data *d)
{
    return d->type == PL_INT16 ? 2u : 4u;
}

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    op_data *d = *user_data;
    PL_TRY(pl_custom_opt_int(ctx, node, "T", 0, 255, &d->type));
    if (d->type != PL_INT16 && d->type != PL_FLOAT32)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "type %s is not supported (int16, float32)",
                         pl_type_name(d->type));
    return pl_custom_opt_int(ctx, node, "frame_step", 1, 1 << 24, &d->step);
}

static pl_status reset(pl_context *ctx, pl_node *node)
{
    (void)ctx;
    const op_data *d = node->user_data;
    if (d->buffer != NULL)
        memset(d->buffer, 0, (size_t)d->rows * (size_t)d->size * sample_size(d));
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    pl_tensor *in, *out;
    PL_TRY(pl_node_check(ctx, node, PL_IO(1, 1)));
    PL_TRY(pl_signal_tensor(ctx, node, false, 0, (pl_type)d->type, -1, &in));
    PL_TRY(pl_signal_tensor(ctx, node, true, 0, (pl_type)d->type, in->ndims - 1, &out));
    if (in->ndims < 2 || in->dims[in->ndims - 1] < d->step || in->dims[in->ndims - 2] < 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "input needs [..., frames, frame_size >= %d]",
                         d->step);
    d->size = in->dims[in->ndims - 1];
    d->frames = in->dims[in->ndims - 2];
    d->rows = (int32_t)(pl_tensor_count(in) / ((size_t)d->size * (size_t)d->frames));
    PL_TRY(pl_signal_state(ctx, (uint64_t)d->rows * (uint64_t)d->size * sample_size(d),
                           &d->buffer, &d->cap));
    int32_t dims[PL_MAX_DIMS];
    for (int32_t i = 0; i < in->ndims - 2; i++)
        dims[i] = in->dims[i];
    dims[in->ndims - 2] = d->frames * d->step;
    PL_TRY(reset(ctx, node));
    return ctx->set_shape(ctx, pl_node_output(node, 0), in->ndims - 1, dims);
}

static void frame_s16(const op_data *d, const int16_t *in, int16_t *buf, int16_t *out)
{
    for (int32_t i = 0; i < d->size; i++) {
        int32_t s = in[i] + buf[i];
        buf[i] = (int16_t)(s < INT16_MIN ? INT16_MIN : s > INT16_MAX ? INT16_MAX : s);
    }
    memcpy(out, buf, (size_t)d->step * sizeof *buf);
    memmove(buf, buf + d->step, (size_t)(d->size - d->step) * sizeof *buf);
    memset(buf + d->size - d->step, 0, (size_t)d->step * sizeof *buf);
}

static void frame_f32(const op_data *d, const float *in, float *buf, float *out)
{
    for (int32_t i = 0; i < d->size; i++)
        buf[i] += in[i];
    memcpy(out, buf, (size_t)d->step * sizeof *buf);
    memmove(buf, buf + d->step, (size_t)(d->size - d->step) * sizeof *buf);
    memset(buf + d->size - d->step, 0, (size_t)d->step * sizeof *buf);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    for (int32_t r = 0; r < d->rows; r++) {
        for (int32_t f = 0; f < d->frames; f++) {
            size_t k = (size_t)r * (size_t)d->frames + (size_t)f;
            size_t bi = (size_t)r * (size_t)d->size;
            if (d->type == PL_INT16)
                frame_s16(d, (const int16_t *)in.data + k * (size_t)d->size,
                          (int16_t *)d->buffer + bi, (int16_t *)out.data + k * (size_t)d->step);
            else
                frame_f32(d, (const float *)in.data + k * (size_t)d->size,
                          (float *)d->buffer + bi, (float *)out.data + k * (size_t)d->step);
        }
    }
    return PL_OK;
}

const pl_registration *pl_signal_overlap_add_registration(void)
{
    static const pl_registration reg = {.name = "SignalOverlapAdd",
                                        .builtin_code = PL_BUILTIN_CUSTOM, .init = init,
                                        .prepare = prepare, .invoke = invoke, .reset = reset,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
