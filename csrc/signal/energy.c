/* energy.c - SignalEnergy: |z|^2 of int16 complex bins start_index..end_index-1 as uint32
** (TFLM's SpectrumToEnergy). Like TFLM, the other output elements are left untouched. */
#include "signal/common.h"
#include "signal/list.h"
#include "picolite/pl_node_io.h"

typedef struct op_data {
    int32_t start, end;
} op_data;

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    op_data *d = *user_data;
    PL_TRY(pl_custom_opt_int(ctx, node, "start_index", 0, INT32_MAX, &d->start));
    return pl_custom_opt_int(ctx, node, "end_index", 0, INT32_MAX, &d->end);
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor *in, *out;
    PL_TRY(pl_node_check(ctx, node, PL_IO(1, 1)));
    PL_TRY(pl_signal_tensor(ctx, node, false, 0, PL_INT16, 1, &in));
    PL_TRY(pl_signal_tensor(ctx, node, true, 0, PL_UINT32, 1, &out));
    int32_t bins = in->dims[0] / 2;
    if (d->end > bins || d->start > d->end)
        return ctx->fail(ctx, PL_ERR_MODEL, "bins %d..%d of %d complex values", d->start,
                         d->end, bins);
    return ctx->set_shape(ctx, pl_node_output(node, 0), 1, &bins);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    const int16_t *z = in.data;
    uint32_t *y = out.data;
    for (int32_t i = d->start; i < d->end; i++) {
        int32_t re = z[2 * i], im = z[2 * i + 1];
        y[i] = (uint32_t)(re * re) + (uint32_t)(im * im);
    }
    return PL_OK;
}

const pl_registration *pl_signal_energy_registration(void)
{
    static const pl_registration reg = {.name = "SignalEnergy",
                                        .builtin_code = PL_BUILTIN_CUSTOM, .init = init,
                                        .prepare = prepare, .invoke = invoke,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
