/* filter_bank_square_root.c - SignalFilterBankSquareRoot: rounded square roots of uint64
** channel energies, shifted right by the int32 scalar input (TFLM's FilterbankSqrt). */
#include "signal/common.h"
#include "signal/intmath.h"
#include "signal/list.h"
#include "picolite/pl_node_io.h"

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    pl_tensor *in, *bits, *out;
    PL_TRY(pl_node_check(ctx, node, PL_IO(2, 1)));
    PL_TRY(pl_signal_tensor(ctx, node, false, 0, PL_UINT64, 1, &in));
    PL_TRY(pl_signal_tensor(ctx, node, false, 1, PL_INT32, 0, &bits));
    PL_TRY(pl_signal_tensor(ctx, node, true, 0, PL_UINT32, 1, &out));
    return pl_signal_same_shape(ctx, node, 0, in);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    pl_tensor in, bits, out;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &in, &bits, &out));
    int32_t shift = *(const int32_t *)bits.data;
    if (shift < 0 || shift > 31)
        return ctx->fail(ctx, PL_ERR_ARG, "scale bits %d outside 0..31", shift);
    const uint64_t *x = in.data;
    uint32_t *y = out.data;
    for (size_t i = 0; i < pl_tensor_count(&in); i++)
        y[i] = pl_intmath_sqrt64(x[i]) >> shift;
    return PL_OK;
}

const pl_registration *pl_signal_filter_bank_square_root_registration(void)
{
    static const pl_registration reg = {.name = "SignalFilterBankSquareRoot",
                                        .builtin_code = PL_BUILTIN_CUSTOM, .prepare = prepare,
                                        .invoke = invoke};
    return &reg;
}
