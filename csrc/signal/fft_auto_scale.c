/* fft_auto_scale.c - SignalFftAutoScale: shifts int16 samples left as far as the largest
** magnitude allows (TFLM's FftAutoScale) and outputs the shift as an int32 scalar. */
#include "signal/common.h"
#include "signal/intmath.h"
#include "signal/list.h"
#include "picolite/pl_node_io.h"

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *out, *bits;
    PL_TRY(pl_node_check(ctx, node, PL_IO(1, 2)));
    PL_TRY(pl_signal_tensor(ctx, node, false, 0, PL_INT16, 1, &in));
    PL_TRY(pl_signal_tensor(ctx, node, true, 0, PL_INT16, 1, &out));
    PL_TRY(pl_signal_tensor(ctx, node, true, 1, PL_INT32, 0, &bits));
    PL_TRY(pl_signal_same_shape(ctx, node, 0, in));
    return ctx->set_shape(ctx, pl_node_output(node, 1), 0, NULL);
}

/* TFLM's MaxAbs16: -(-32768) stored back in int16 stays -32768. */
static int16_t max_abs(const int16_t *x, size_t n)
{
    int16_t max = 0;
    for (size_t i = 0; i < n; i++) {
        if (x[i] > max)
            max = x[i];
        else if (-x[i] > max)
            max = (int16_t)(uint16_t)(uint32_t)(-x[i]);
    }
    return max;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor in, out, bits;
    PL_TRY(pl_node_evals(ctx, node, 1, 2, &in, &out, &bits));
    const int16_t *x = in.data;
    int16_t *y = out.data;
    size_t n = pl_tensor_count(&in);
    int32_t scale = 16 - (int32_t)pl_intmath_msb32((uint32_t)(int32_t)max_abs(x, n)) - 1;
    if (scale < 0)
        scale = 0;
    for (size_t i = 0; i < n; i++)
        y[i] = (int16_t)(uint16_t)(uint32_t)(x[i] * (1 << scale));
    *(int32_t *)bits.data = scale;
    return PL_OK;
}

const pl_registration *pl_signal_fft_auto_scale_registration(void)
{
    static const pl_registration reg = {.name = "SignalFftAutoScale",
                                        .builtin_code = PL_BUILTIN_CUSTOM, .prepare = prepare,
                                        .invoke = invoke};
    return &reg;
}
