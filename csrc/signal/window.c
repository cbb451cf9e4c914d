/* window.c - SignalWindow: int16 frames times an int16 window, shifted right by 'shift' and
** saturated to int16 (TFLM's ApplyWindow), the window repeated over the input's frames. */
#include "signal/common.h"
#include "signal/list.h"
#include "picolite/pl_node_io.h"

typedef struct op_data {
    int32_t shift;
} op_data;

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    op_data *d = *user_data;
    return pl_custom_opt_int(ctx, node, "shift", 0, 31, &d->shift);
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *w, *out;
    PL_TRY(pl_node_check(ctx, node, PL_IO(2, 1)));
    PL_TRY(pl_signal_tensor(ctx, node, false, 0, PL_INT16, -1, &in));
    PL_TRY(pl_signal_tensor(ctx, node, false, 1, PL_INT16, 1, &w));
    PL_TRY(pl_signal_tensor(ctx, node, true, 0, PL_INT16, in->ndims, &out));
    if (in->ndims < 1 || w->dims[0] < 1 || pl_tensor_count(in) % (size_t)w->dims[0] != 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "input of %zu values is not frames of the %d-long "
                         "window", pl_tensor_count(in), w->dims[0]);
    return pl_signal_same_shape(ctx, node, 0, in);
}

static int16_t sat16(int32_t x)
{
    return (int16_t)(x < INT16_MIN ? INT16_MIN : x > INT16_MAX ? INT16_MAX : x);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in, w, out;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &in, &w, &out));
    const int16_t *x = in.data, *win = w.data;
    int16_t *y = out.data;
    size_t n = pl_tensor_count(&in), m = (size_t)w.dims[0];
    for (size_t i = 0; i < n; i++)
        y[i] = sat16(((int32_t)x[i] * win[i % m]) >> d->shift);
    return PL_OK;
}

const pl_registration *pl_signal_window_registration(void)
{
    static const pl_registration reg = {.name = "SignalWindow",
                                        .builtin_code = PL_BUILTIN_CUSTOM, .init = init,
                                        .prepare = prepare, .invoke = invoke,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
