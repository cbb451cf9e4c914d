/* filter_bank_log.c - SignalFilterBankLog: round(ln(x << input_correction_bits) *
** output_scale) in TFLM's fixed point, saturated to int16; 0 for scaled values <= 1. */
#include "signal/common.h"
#include "signal/intmath.h"
#include "signal/list.h"
#include "picolite/pl_node_io.h"

typedef struct op_data {
    int32_t correction_bits, output_scale;
} op_data;

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    op_data *d = *user_data;
    PL_TRY(pl_custom_opt_int(ctx, node, "input_correction_bits", 0, 31, &d->correction_bits));
    return pl_custom_opt_int(ctx, node, "output_scale", INT32_MIN, INT32_MAX, &d->output_scale);
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *out;
    PL_TRY(pl_node_check(ctx, node, PL_IO(1, 1)));
    PL_TRY(pl_signal_tensor(ctx, node, false, 0, PL_UINT32, 1, &in));
    PL_TRY(pl_signal_tensor(ctx, node, true, 0, PL_INT16, 1, &out));
    return pl_signal_same_shape(ctx, node, 0, in);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    const uint32_t *x = in.data;
    int16_t *y = out.data;
    for (size_t i = 0; i < pl_tensor_count(&in); i++) {
        uint32_t scaled = x[i] << d->correction_bits;
        uint32_t v = scaled > 1 ? pl_intmath_log32(scaled, (uint32_t)d->output_scale) : 0;
        y[i] = (int16_t)(v < INT16_MAX ? v : INT16_MAX);
    }
    return PL_OK;
}

const pl_registration *pl_signal_filter_bank_log_registration(void)
{
    static const pl_registration reg = {.name = "SignalFilterBankLog",
                                        .builtin_code = PL_BUILTIN_CUSTOM, .init = init,
                                        .prepare = prepare, .invoke = invoke,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
