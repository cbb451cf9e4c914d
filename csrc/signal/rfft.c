/* rfft.c - SignalRfft and SignalIrfft: real FFTs of each frame (the last dimension) in
** int16, int32 or float, as option 'T' names (TFLM's kiss_fft build; see fft.h). The
** forward transform zero-pads frames shorter than fft_length; the float inverse divides by
** fft_length as TFLM's IrfftFloatApply does. Twiddles live in a persistent buffer. */
#include "signal/common.h"
#include "signal/fft.h"
#include "signal/list.h"
#include "picolite/pl_node_io.h"

typedef struct op_data {
    pl_fft plan;
    int32_t type;
    int32_t fft_length;
    PL_SLOT(void *, mem); /* pl_fft_mem_count() samples */
} op_data;

static size_t sample_size(int32_t type)
{
    return type == PL_INT16 ? 2u : 4u;
}

static pl_status init_fft(pl_context *ctx, pl_node *node, void **user_data, bool inverse)
{
    op_data *d = *user_data;
    pl_error err;
    PL_TRY(pl_custom_opt_int(ctx, node, "T", 0, 255, &d->type));
    PL_TRY(pl_custom_opt_int(ctx, node, "fft_length", 4, 1 << 24, &d->fft_length));
    if (d->type != PL_INT16 && d->type != PL_INT32 && d->type != PL_FLOAT32)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "type %s is not supported (int16, int32, "
                         "float32)", pl_type_name(d->type));
    pl_status s = pl_fft_plan(d->fft_length, &d->plan, &err);
    if (s != PL_OK)
        return ctx->fail(ctx, s, "%s", err.msg);
    PL_TRY(ctx->alloc_persistent(ctx, pl_fft_mem_count(&d->plan) * sample_size(d->type),
                                 &d->mem));
    if (d->type == PL_INT16)
        pl_fft_init_s16(&d->plan, inverse, d->mem);
    else if (d->type == PL_INT32)
        pl_fft_init_s32(&d->plan, inverse, d->mem);
    else
        pl_fft_init_f32(&d->plan, inverse, d->mem);
    return PL_OK;
}

/* Input and output of type T and equal rank; the output's last dimension is out_last. */
static pl_status prepare_fft(pl_context *ctx, pl_node *node, int32_t in_last, int32_t out_last)
{
    const op_data *d = node->user_data;
    pl_tensor *in, *out;
    PL_TRY(pl_node_check(ctx, node, PL_IO(1, 1)));
    PL_TRY(pl_signal_tensor(ctx, node, false, 0, (pl_type)d->type, -1, &in));
    PL_TRY(pl_signal_tensor(ctx, node, true, 0, (pl_type)d->type, in->ndims, &out));
    int32_t last = in->ndims > 0 ? in->dims[in->ndims - 1] : 0;
    if (last < 1 || last > in_last)
        return ctx->fail(ctx, PL_ERR_MODEL, "frames of %d values for fft_length %d (1..%d)",
                         last, d->fft_length, in_last);
    int32_t dims[PL_MAX_DIMS];
    for (int32_t i = 0; i < in->ndims; i++)
        dims[i] = in->dims[i];
    dims[in->ndims - 1] = out_last;
    return ctx->set_shape(ctx, pl_node_output(node, 0), in->ndims, dims);
}

static pl_status init_rfft(pl_context *ctx, pl_node *node, void **user_data)
{
    return init_fft(ctx, node, user_data, false);
}

static pl_status prepare_rfft(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    return prepare_fft(ctx, node, d->fft_length, 2 * (d->plan.ncfft + 1));
}

static pl_status invoke_rfft(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    size_t len = (size_t)in.dims[in.ndims - 1], bins = 2u * (size_t)(d->plan.ncfft + 1);
    size_t frames = pl_tensor_count(&in) / len, sz = sample_size(d->type);
    for (size_t f = 0; f < frames; f++) {
        const void *x = (const uint8_t *)in.data + f * len * sz;
        void *y = (uint8_t *)out.data + f * bins * sz;
        if (d->type == PL_INT16)
            pl_fft_rfft_s16(&d->plan, d->mem, x, len, y);
        else if (d->type == PL_INT32)
            pl_fft_rfft_s32(&d->plan, d->mem, x, len, y);
        else
            pl_fft_rfft_f32(&d->plan, d->mem, x, len, ctx->fused_madd, y);
    }
    return PL_OK;
}

static pl_status init_irfft(pl_context *ctx, pl_node *node, void **user_data)
{
    return init_fft(ctx, node, user_data, true);
}

static pl_status prepare_irfft(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    int32_t bins = 2 * (d->plan.ncfft + 1);
    PL_TRY(prepare_fft(ctx, node, bins, d->fft_length));
    pl_tensor *in;
    PL_TRY(pl_node_tensor(ctx, node, false, 0, &in));
    if (in->dims[in->ndims - 1] != bins)
        return ctx->fail(ctx, PL_ERR_MODEL, "frames of %d values, expected %d bins for "
                         "fft_length %d", in->dims[in->ndims - 1], bins, d->fft_length);
    return PL_OK;
}

static pl_status invoke_irfft(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in, out;
    PL_TRY(pl_node_evals(ctx, node, 1, 1, &in, &out));
    size_t bins = 2u * (size_t)(d->plan.ncfft + 1), n = (size_t)d->fft_length;
    size_t frames = pl_tensor_count(&in) / bins, sz = sample_size(d->type);
    for (size_t f = 0; f < frames; f++) {
        const void *x = (const uint8_t *)in.data + f * bins * sz;
        void *y = (uint8_t *)out.data + f * n * sz;
        if (d->type == PL_INT16) {
            pl_fft_irfft_s16(&d->plan, d->mem, x, y);
        } else if (d->type == PL_INT32) {
            pl_fft_irfft_s32(&d->plan, d->mem, x, y);
        } else {
            float *yf = y;
            pl_fft_irfft_f32(&d->plan, d->mem, x, ctx->fused_madd, yf);
            for (size_t i = 0; i < n; i++)
                yf[i] /= (float)d->fft_length;
        }
    }
    return PL_OK;
}

const pl_registration *pl_signal_rfft_registration(void)
{
    static const pl_registration reg = {.name = "SignalRfft", .builtin_code = PL_BUILTIN_CUSTOM,
                                        .init = init_rfft, .prepare = prepare_rfft,
                                        .invoke = invoke_rfft,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}

const pl_registration *pl_signal_irfft_registration(void)
{
    static const pl_registration reg = {.name = "SignalIrfft",
                                        .builtin_code = PL_BUILTIN_CUSTOM, .init = init_irfft,
                                        .prepare = prepare_irfft, .invoke = invoke_irfft,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
