/* cumsum.c - CUMSUM (TFLite cumsum.cc, TFLM cumsum.cc and reference CumSum): running sums
** along one axis, exclusive and/or reversed.
**
** FLOAT32 sums in order; INT32/INT64 wrap on overflow (TFLite adds "with expected overflow");
** INT8 is TFLM's quantized path: each input is centered, shifted left by 20, rescaled to
** half its scale's range, accumulated in int32, then rescaled to the output. The axis is an
** INT32 scalar read at invoke (negative counts from the end). */
#include "cumsum.h"

#include <stdbool.h>
#include <string.h>

#include "kernels/common/fixedpoint.h"
#include "kernels/shape/operand.h"
#include "picolite/pl_node_io.h"

enum { OP_CUMSUM = 128 };

/* CumsumOptions field ids (schema.fbs). */
enum { OPT_EXCLUSIVE = 0, OPT_REVERSE = 1 };

enum { LEFT_SHIFT = 20 }; /* TFLM's kCumSumIntegerShift */

typedef struct opdata {
    bool exclusive, reverse;
    int32_t in_offset, out_offset;
    int32_t in_mult, in_shift, out_mult, out_shift;
} opdata;

static pl_status prepare_int8(pl_context *ctx, const pl_tensor *in, const pl_tensor *out,
                              opdata *d)
{
    if (in->q.count != 1 || out->q.count != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "CUMSUM: INT8 input and output need per-tensor "
                         "quantization (got %u, %u scales)", in->q.count, out->q.count);
    d->in_offset = -(int32_t)in->q.zero_point[0];
    d->out_offset = (int32_t)out->q.zero_point[0];
    double twice_max = 2.0 * (double)in->q.scale[0];
    pl_fx_quantize_multiplier((double)in->q.scale[0] / twice_max, &d->in_mult, &d->in_shift);
    pl_fx_quantize_multiplier(twice_max / ((double)(1 << LEFT_SHIFT) * (double)out->q.scale[0]),
                              &d->out_mult, &d->out_shift);
    if (d->in_shift > 0 || d->out_shift > 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "CUMSUM: output scale %g is too small for "
                         "input scale %g", (double)out->q.scale[0], (double)in->q.scale[0]);
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    opdata *d = node->user_data;
    int32_t oi = pl_node_output(node, 0);
    pl_tensor *in, *axis, *out;
    PL_TRY(pl_node_tensors(ctx, node, PL_IO(2, 1), &in, &axis, &out));
    bool ok = in->type == PL_FLOAT32 || in->type == PL_INT32 || in->type == PL_INT64 ||
              in->type == PL_INT8;
    if (!ok || out->type != in->type)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "CUMSUM: input %s with output %s is not "
                         "supported", pl_type_name(in->type), pl_type_name(out->type));
    if (axis->type != PL_INT32 || pl_tensor_count(axis) != 1 || in->ndims < 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "CUMSUM: axis must be one INT32 value and the "
                         "input at least 1-D");
    d->exclusive = pl_table_bool(&node->options, OPT_EXCLUSIVE, false);
    d->reverse = pl_table_bool(&node->options, OPT_REVERSE, false);
    if (in->type == PL_INT8)
        PL_TRY(prepare_int8(ctx, in, out, d));
    PL_TRY(ctx->set_shape(ctx, oi, in->ndims, in->dims));
    return pl_operand_fold(ctx, node);
}

/* TFLite's MultiplyByQuantizedMultiplierSmallerThanOneExp (shift <= 0). */
static int32_t scale_down(int32_t x, int32_t mult, int32_t shift)
{
    return pl_fx_rdbpot(pl_fx_srdhm(x, mult), -shift);
}

static int32_t quant_term(const opdata *d, int8_t x)
{
    return scale_down((d->in_offset + x) * (1 << LEFT_SHIFT), d->in_mult, d->in_shift);
}

static void quant_out(const opdata *d, int32_t acc, int8_t *o)
{
    int32_t v = scale_down(acc, d->out_mult, d->out_shift) + d->out_offset;
    *o = (int8_t)(v < INT8_MIN ? INT8_MIN : v > INT8_MAX ? INT8_MAX : v);
}

/* One line of `n` elements `step` apart starting at `base`, in sum order. */
static void line(const opdata *d, pl_type type, const void *in, void *out, size_t base,
                 size_t step, size_t n)
{
    float facc = 0.0f;
    uint64_t iacc = 0; /* wrapping int32/int64 sums */
    int32_t qacc = scale_down(0, d->in_mult, d->in_shift);
    for (size_t j = 0; j < n; j++) {
        size_t k = base + step * (d->reverse ? n - 1 - j : j);
        if (type == PL_FLOAT32) {
            float x = ((const float *)in)[k], before = facc;
            facc += x;
            ((float *)out)[k] = d->exclusive ? before : facc;
        } else if (type == PL_INT8) {
            int32_t before = qacc;
            qacc += quant_term(d, ((const int8_t *)in)[k]);
            quant_out(d, d->exclusive ? before : qacc, (int8_t *)out + k);
        } else if (type == PL_INT32) {
            uint32_t before = (uint32_t)iacc;
            iacc = (uint32_t)((uint32_t)iacc + (uint32_t)((const int32_t *)in)[k]);
            ((int32_t *)out)[k] = (int32_t)(d->exclusive ? before : (uint32_t)iacc);
        } else {
            int64_t before = (int64_t)iacc;
            iacc += (uint64_t)pl_load_i64(in, k);
            int64_t v = d->exclusive ? before : (int64_t)iacc;
            memcpy((uint8_t *)out + 8 * k, &v, sizeof v);
        }
    }
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const opdata *d = node->user_data;
    pl_tensor in, axis, out;
    PL_TRY(pl_node_evals(ctx, node, 2, 1, &in, &axis, &out));
    int32_t a = *(const int32_t *)axis.data;
    a = a < 0 ? a + in.ndims : a;
    if (a < 0 || a >= in.ndims)
        return ctx->fail(ctx, PL_ERR_ARG, "CUMSUM: axis %d for rank %d",
                         (int)*(const int32_t *)axis.data, (int)in.ndims);
    size_t outer = 1, inner = 1, n = (size_t)in.dims[a];
    for (int32_t i = 0; i < in.ndims; i++) {
        if (i < a)
            outer *= (size_t)in.dims[i];
        else if (i > a)
            inner *= (size_t)in.dims[i];
    }
    for (size_t o = 0; o < outer; o++)
        for (size_t i = 0; i < inner; i++)
            line(d, in.type, in.data, out.data, o * n * inner + i, inner, n);
    return PL_OK;
}

const pl_registration *pl_cumsum_registration(void)
{
    static const pl_registration r = {.name = "CUMSUM", .builtin_code = OP_CUMSUM,
                                      .prepare = prepare, .invoke = invoke,
                                      .user_data_size = sizeof(opdata)};
    return &r;
}
