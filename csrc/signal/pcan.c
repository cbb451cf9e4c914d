/* pcan.c - SignalPCAN: per-channel automatic gain control (TFLM's
** ApplyPcanAutoGainControlFixed). A gain from the noise estimate through the wide dynamic
** function's piecewise-quadratic table scales each uint32 channel, then a soft shrink. */
#include "signal/common.h"
#include "signal/intmath.h"
#include "signal/list.h"
#include "picolite/pl_node_io.h"

#define SNR_BITS 12
#define OUTPUT_BITS 6
/* The table has 3 coefficients per bit length 2..32, read from 4 * msb - 6. */
#define LUT_MIN 125

typedef struct op_data {
    int32_t snr_shift;
} op_data;

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    op_data *d = *user_data;
    return pl_custom_opt_int(ctx, node, "snr_shift", 0, 63, &d->snr_shift);
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *noise, *lut, *out;
    PL_TRY(pl_node_check(ctx, node, PL_IO(3, 1)));
    PL_TRY(pl_signal_tensor(ctx, node, false, 0, PL_UINT32, 1, &in));
    PL_TRY(pl_signal_tensor(ctx, node, false, 1, PL_UINT32, 1, &noise));
    PL_TRY(pl_signal_tensor(ctx, node, false, 2, PL_INT16, 1, &lut));
    PL_TRY(pl_signal_tensor(ctx, node, true, 0, PL_UINT32, 1, &out));
    if (noise->dims[0] < in->dims[0] || lut->dims[0] < LUT_MIN)
        return ctx->fail(ctx, PL_ERR_MODEL, "%d noise estimates for %d channels, gain table "
                         "of %d (>= %d)", noise->dims[0], in->dims[0], lut->dims[0], LUT_MIN);
    return pl_signal_same_shape(ctx, node, 0, in);
}

static int16_t wide_dynamic(uint32_t x, const int16_t *lut)
{
    if (x <= 2)
        return lut[x];
    int32_t interval = (int32_t)pl_intmath_msb32(x);
    lut += 4 * interval - 6;
    uint32_t shifted = interval < 11 ? x << (11 - interval) : x >> (interval - 11);
    int32_t frac = (int32_t)(shifted & 0x3FF);
    int32_t r = (lut[2] * frac) >> 5;
    r = (int32_t)((uint32_t)r + ((uint32_t)lut[1] << 5)); /* wraps as TFLM's int32 */
    r = (int32_t)((uint32_t)r * (uint32_t)frac);
    r = (int32_t)((uint32_t)r + (1u << 14)) >> 15;
    return (int16_t)(uint16_t)(uint32_t)(r + lut[0]);
}

static uint32_t shrink(uint32_t x)
{
    if (x < (2u << SNR_BITS))
        return (x * x) >> (2 + 2 * SNR_BITS - OUTPUT_BITS);
    return (x >> (SNR_BITS - OUTPUT_BITS)) - (1u << OUTPUT_BITS);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in, noise, lut, out;
    PL_TRY(pl_node_evals(ctx, node, 3, 1, &in, &noise, &lut, &out));
    const uint32_t *x = in.data, *n = noise.data;
    uint32_t *y = out.data;
    for (size_t i = 0; i < pl_tensor_count(&in); i++) {
        uint32_t gain = (uint32_t)(int32_t)wide_dynamic(n[i], lut.data);
        y[i] = shrink((uint32_t)(((uint64_t)x[i] * gain) >> d->snr_shift));
    }
    return PL_OK;
}

const pl_registration *pl_signal_pcan_registration(void)
{
    static const pl_registration reg = {.name = "SignalPCAN", .builtin_code = PL_BUILTIN_CUSTOM,
                                        .init = init, .prepare = prepare, .invoke = invoke,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
