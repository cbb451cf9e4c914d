/* spectral_subtraction.c - SignalFilterBankSpectralSubtraction: subtracts a per-channel noise
** estimate (smoothed over frames, alternate coefficients on odd channels) from uint32
** channel values, never below min_signal_remaining of the input (TFLM's
** FilterbankSpectralSubtraction). The estimate persists across invokes and is also output;
** prepare and reset zero it. */
#include <string.h>

#include "signal/common.h"
#include "signal/list.h"
#include "picolite/pl_node_io.h"

typedef struct op_data {
    int32_t channels;
    uint32_t smoothing, one_minus, alt_smoothing, alt_one_minus, min_remaining;
    int32_t smoothing_bits, subtraction_bits;
    bool clamping;
    PL_SLOT(uint32_t *, noise); /* channels values, persistent */
} op_data;

static pl_status opt_u32(pl_context *ctx, pl_node *node, const char *key, uint32_t *out)
{
    int32_t v;
    PL_TRY(pl_custom_opt_int(ctx, node, key, INT32_MIN, INT32_MAX, &v));
    *out = (uint32_t)v; /* TFLM stores the int32 option into a uint32 field */
    return PL_OK;
}

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    op_data *d = *user_data;
    PL_TRY(pl_custom_opt_int(ctx, node, "num_channels", 1, 1 << 20, &d->channels));
    PL_TRY(opt_u32(ctx, node, "smoothing", &d->smoothing));
    PL_TRY(opt_u32(ctx, node, "one_minus_smoothing", &d->one_minus));
    PL_TRY(opt_u32(ctx, node, "alternate_smoothing", &d->alt_smoothing));
    PL_TRY(opt_u32(ctx, node, "alternate_one_minus_smoothing", &d->alt_one_minus));
    PL_TRY(opt_u32(ctx, node, "min_signal_remaining", &d->min_remaining));
    PL_TRY(pl_custom_opt_int(ctx, node, "smoothing_bits", 0, 31, &d->smoothing_bits));
    PL_TRY(pl_custom_opt_int(ctx, node, "spectral_subtraction_bits", 0, 63,
                             &d->subtraction_bits));
    PL_TRY(pl_custom_opt_bool(ctx, node, "clamping", &d->clamping));
    return ctx->alloc_persistent(ctx, (size_t)d->channels * sizeof(uint32_t),
                                 (void **)&d->noise);
}

static pl_status reset(pl_context *ctx, pl_node *node)
{
    (void)ctx;
    const op_data *d = node->user_data;
    memset(d->noise, 0, (size_t)d->channels * sizeof(uint32_t));
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor *in, *out, *noise;
    PL_TRY(pl_node_check(ctx, node, PL_IO(1, 2)));
    PL_TRY(pl_signal_tensor(ctx, node, false, 0, PL_UINT32, 1, &in));
    PL_TRY(pl_signal_tensor(ctx, node, true, 0, PL_UINT32, 1, &out));
    PL_TRY(pl_signal_tensor(ctx, node, true, 1, PL_UINT32, 1, &noise));
    if (in->dims[0] != d->channels)
        return ctx->fail(ctx, PL_ERR_MODEL, "input has %d channels, num_channels is %d",
                         in->dims[0], d->channels);
    PL_TRY(pl_signal_same_shape(ctx, node, 0, in));
    PL_TRY(pl_signal_same_shape(ctx, node, 1, in));
    return reset(ctx, node);
}

static uint32_t subtract(const op_data *d, int32_t i, uint32_t x)
{
    bool odd = (i & 1) != 0;
    uint32_t s = odd ? d->alt_smoothing : d->smoothing;
    uint32_t one_minus = odd ? d->alt_one_minus : d->one_minus;
    uint32_t up = x << d->smoothing_bits;
    d->noise[i] = (uint32_t)(((uint64_t)up * s + (uint64_t)d->noise[i] * one_minus) >>
                             d->subtraction_bits);
    uint32_t estimate = d->noise[i];
    if (estimate > up) {
        estimate = up;
        if (d->clamping)
            d->noise[i] = estimate;
    }
    uint32_t floor = (uint32_t)(((uint64_t)x * d->min_remaining) >> d->subtraction_bits);
    uint32_t subtracted = (up - estimate) >> d->smoothing_bits;
    return subtracted > floor ? subtracted : floor;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in, out, noise;
    PL_TRY(pl_node_evals(ctx, node, 1, 2, &in, &out, &noise));
    const uint32_t *x = in.data;
    uint32_t *y = out.data;
    for (int32_t i = 0; i < d->channels; i++)
        y[i] = subtract(d, i, x[i]);
    memcpy(noise.data, d->noise, (size_t)d->channels * sizeof(uint32_t));
    return PL_OK;
}

const pl_registration *pl_signal_spectral_subtraction_registration(void)
{
    static const pl_registration reg = {.name = "SignalFilterBankSpectralSubtraction",
                                        .builtin_code = PL_BUILTIN_CUSTOM, .init = init,
                                        .prepare = prepare, .invoke = invoke, .reset = reset,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
