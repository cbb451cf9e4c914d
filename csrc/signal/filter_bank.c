/* filter_bank.c - SignalFilterBank: triangular mel channels over uint32 energies with int16
** weights, accumulated in uint64 (TFLM's FilterbankAccumulateChannels). Channel i adds its
** weighted bins and carries its unweighted sum into channel i + 1; the first of the
** num_channels + 1 accumulators is dropped. The channel tables are checked against the
** tensors' lengths on every invoke, as they may be inputs. */
#include "signal/common.h"
#include "signal/list.h"
#include "picolite/pl_node_io.h"

enum { IN, WEIGHTS, UNWEIGHTS, FREQ_STARTS, WEIGHT_STARTS, WIDTHS, N_INPUTS };

typedef struct op_data {
    int32_t channels;
} op_data;

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    op_data *d = *user_data;
    return pl_custom_opt_int(ctx, node, "num_channels", 1, INT16_MAX, &d->channels);
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor *t;
    PL_TRY(pl_node_check(ctx, node, PL_IO(N_INPUTS, 1)));
    PL_TRY(pl_signal_tensor(ctx, node, false, IN, PL_UINT32, 1, &t));
    for (uint32_t i = WEIGHTS; i < N_INPUTS; i++)
        PL_TRY(pl_signal_tensor(ctx, node, false, i, PL_INT16, 1, &t));
    for (uint32_t i = FREQ_STARTS; i < N_INPUTS; i++) {
        PL_TRY(pl_node_tensor(ctx, node, false, i, &t));
        if (t->dims[0] < d->channels + 1)
            return ctx->fail(ctx, PL_ERR_MODEL, "input %u has %d entries for %d channels + 1",
                             i, t->dims[0], d->channels);
    }
    PL_TRY(pl_signal_tensor(ctx, node, true, 0, PL_UINT64, 1, &t));
    return ctx->set_shape(ctx, pl_node_output(node, 0), 1, &d->channels);
}

/* Every channel's bins inside the input and its weights inside both weight tables. */
static pl_status check_tables(pl_context *ctx, const op_data *d, const pl_tensor *t)
{
    const int16_t *fs = t[FREQ_STARTS].data, *ws = t[WEIGHT_STARTS].data;
    const int16_t *w = t[WIDTHS].data;
    int32_t bins = t[IN].dims[0];
    int32_t nw = t[WEIGHTS].dims[0] < t[UNWEIGHTS].dims[0] ? t[WEIGHTS].dims[0]
                                                            : t[UNWEIGHTS].dims[0];
    for (int32_t i = 0; i <= d->channels; i++) {
        if (fs[i] < 0 || ws[i] < 0 || w[i] < 0 || fs[i] + w[i] > bins || ws[i] + w[i] > nw)
            return ctx->fail(ctx, PL_ERR_MODEL, "channel %d: bins %d+%d of %d, weights %d+%d "
                             "of %d", i, fs[i], w[i], bins, ws[i], w[i], nw);
    }
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor t[N_INPUTS], out;
    for (uint32_t i = 0; i < N_INPUTS; i++)
        PL_TRY(pl_node_eval(ctx, node, false, i, &t[i]));
    PL_TRY(pl_node_evals(ctx, node, 0, 1, &out));
    PL_TRY(check_tables(ctx, d, t));
    const uint32_t *x = t[IN].data;
    const int16_t *wt = t[WEIGHTS].data, *uw = t[UNWEIGHTS].data;
    const int16_t *fs = t[FREQ_STARTS].data, *ws = t[WEIGHT_STARTS].data;
    const int16_t *width = t[WIDTHS].data;
    uint64_t *y = out.data, weighted = 0, unweighted = 0;
    for (int32_t i = 0; i <= d->channels; i++) {
        for (int32_t j = 0; j < width[i]; j++) {
            /* int16 weights widen to uint64 as in TFLM: negative ones wrap */
            weighted += (uint64_t)(int64_t)wt[ws[i] + j] * x[fs[i] + j];
            unweighted += (uint64_t)(int64_t)uw[ws[i] + j] * x[fs[i] + j];
        }
        if (i > 0)
            y[i - 1] = weighted;
        weighted = unweighted;
        unweighted = 0;
    }
    return PL_OK;
}

const pl_registration *pl_signal_filter_bank_registration(void)
{
    static const pl_registration reg = {.name = "SignalFilterBank",
                                        .builtin_code = PL_BUILTIN_CUSTOM, .init = init,
                                        .prepare = prepare, .invoke = invoke,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
