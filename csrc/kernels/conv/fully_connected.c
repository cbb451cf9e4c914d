/* fully_connected.c - FULLY_CONNECTED as the reference kernels compute it. The quantized
** rescale is the target's: TFLM's fixed-point multiplier (every TFLM target and picolite's
** own) or LiteRT's double one (PL_ARITH_LITERT); see fully_connected.h. */
#include "fully_connected.h"

#include <string.h>

#include "kernels/conv/conv_params.h"
#include "kernels/conv/int4.h"
#include "kernels/common/dot.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/common/madd.h"
#include "kernels/common/rescale.h"
#include "kernels/conv/hybrid.h"
#include "kernels/conv/uint8.h"

/* static_cast<int32_t>(round((double)acc * scale)), saturated instead of undefined. */
static int32_t requantize(double acc, double scale)
{
    double v = pl_fx_round(acc * scale);
    return v >= 2147483647.0 ? INT32_MAX : v <= -2147483648.0 ? INT32_MIN : (int32_t)v;
}

/* FullyConnectedOptions field ids (schema.fbs). */
enum { OPT_ACTIVATION = 0, OPT_WEIGHTS_FORMAT, OPT_KEEP_NUM_DIMS, OPT_ASYMMETRIC_INPUTS,
       OPT_QUANTIZED_BIAS_TYPE };

static const pl_convq_names op_names = {"FULLY_CONNECTED", "weights", "per-unit",
                                        "per-channel weight", "unit"};

typedef pl_fully_connected_op op_data;

void pl_fully_connected_f32(const pl_fully_connected_params *p, const float *in,
                            const float *filter, const float *bias, float *out)
{
    const size_t depth = (size_t)p->depth;
    for (int32_t b = 0; b < p->batches; b++) {
        const float *x = in + (size_t)b * depth;
        float *o = out + (size_t)b * (size_t)p->units;
        for (int32_t u = 0; u < p->units; u += 4) {
            float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            int32_t count = p->units - u < 4 ? p->units - u : 4;
            if (count == 4 && p->fused) {
                pl_dot4_fma_f32(x, filter + (size_t)u * depth, depth, p->depth, t);
            } else if (count == 4) {
                pl_dot4_f32(x, filter + (size_t)u * depth, depth, p->depth, t);
            } else {
                for (int32_t k = 0; k < count; k++) {
                    const float *w = filter + (size_t)(u + k) * depth;
                    for (int32_t d = 0; d < p->depth; d++)
                        t[k] = pl_madd_f32(t[k], x[d], w[d], p->fused);
                }
            }
            for (int32_t k = 0; k < count; k++) {
                float bias_value = bias != NULL ? bias[u + k] : 0.0f;
                o[u + k] = pl_fx_clamp_f32(t[k] + bias_value, p->f_act_min, p->f_act_max);
            }
        }
    }
}

/* TFLite's sum((w + fo) * (x + io)) as written: both offset operands fit int16, so the
** compiler emits pairwise int16 multiply-adds; integer sums are exact, so the order is free
** (and int32 wraps the same in any order). Four units share each input pass. */
static inline void dot4_s8(const int8_t *restrict x, const int8_t *restrict w, size_t stride,
                           int32_t n, int16_t io, int16_t fo, int32_t *restrict acc)
{
    const int8_t *w0 = w, *w1 = w + stride, *w2 = w + 2 * stride, *w3 = w + 3 * stride;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int32_t i = 0; i < n; i++) {
        int16_t v = (int16_t)(x[i] + io);
        a0 += v * (int16_t)(w0[i] + fo);
        a1 += v * (int16_t)(w1[i] + fo);
        a2 += v * (int16_t)(w2[i] + fo);
        a3 += v * (int16_t)(w3[i] + fo);
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

static inline int32_t dot_s8(const int8_t *restrict x, const int8_t *restrict w, int32_t n,
                             int16_t io, int16_t fo)
{
    int32_t s = 0;
    for (int32_t i = 0; i < n; i++)
        s += (int16_t)(x[i] + io) * (int16_t)(w[i] + fo);
    return s;
}

/* The int32 sum rescaled: TFLM's MultiplyByQuantizedMultiplier, or LiteRT's double
** rounding saturated to int32. */
static inline int32_t rescale32(const pl_fully_connected_params *p, int32_t acc, int32_t unit)
{
    int32_t c = p->per_channel ? unit : 0;
    if (p->fixed_rescale)
        return pl_rescale_qm(acc, p->rescale[2 * c], p->rescale[2 * c + 1]);
    return requantize((double)acc, p->scale[c]);
}

int8_t pl_fully_connected_s8_output(const pl_fully_connected_params *p, int32_t acc,
                                    const int32_t *bias, int32_t unit)
{
    if (bias != NULL)
        acc = (int32_t)((uint32_t)acc + (uint32_t)bias[unit]);
    /* the rescaled value plus the offset in 64 bits: neither wraps */
    int64_t r = (int64_t)rescale32(p, acc, unit) + p->output_offset;
    return (int8_t)(r < p->act_min ? p->act_min : r > p->act_max ? p->act_max : r);
}

void pl_fully_connected_s8(const pl_fully_connected_params *p, const int8_t *in,
                           const int8_t *filter, const int32_t *bias, int8_t *out)
{
    const size_t depth = (size_t)p->depth;
    const int16_t io = (int16_t)p->input_offset, fo = (int16_t)p->filter_offset;
    for (int32_t b = 0; b < p->batches; b++) {
        const int8_t *x = in + (size_t)b * depth;
        int8_t *o = out + (size_t)b * (size_t)p->units;
        for (int32_t u = 0; u < p->units; u += 4) {
            int32_t acc[4];
            int32_t count = p->units - u < 4 ? p->units - u : 4;
            if (count == 4) {
                dot4_s8(x, filter + (size_t)u * depth, depth, p->depth, io, fo, acc);
            } else {
                for (int32_t k = 0; k < count; k++)
                    acc[k] = dot_s8(x, filter + (size_t)(u + k) * depth, p->depth, io, fo);
            }
            for (int32_t k = 0; k < count; k++)
                o[u + k] = pl_fully_connected_s8_output(p, acc[k], bias, u + k);
        }
    }
}

static inline int64_t sum_s16(const int16_t *restrict x, int32_t n)
{
    int64_t s = 0;
    for (int32_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

int16_t pl_fully_connected_s16_output(const pl_fully_connected_params *p, int64_t acc,
                                      const void *bias, bool acc64, int32_t unit)
{
    int32_t v;
    if (acc64) {
        int32_t c = p->per_channel ? unit : 0;
        if (bias != NULL)
            acc += pl_load_i64(bias, (size_t)unit);
        v = p->fixed_rescale ? pl_fx_mul_by_qm64(acc, p->rescale[2 * c], p->rescale[2 * c + 1])
                             : requantize((double)acc, p->scale[c]);
    } else {
        uint32_t acc32 = (uint32_t)acc; /* int32 arithmetic that wraps like the reference's */
        if (bias != NULL)
            acc32 += (uint32_t)((const int32_t *)bias)[unit];
        v = rescale32(p, (int32_t)acc32, unit);
    }
    return (int16_t)pl_fx_clamp(v, p->act_min, p->act_max);
}

/* int16 zero points are 0, so no offsets but the weights': sum((w + fo) * x) =
** sum(w*x) + fo*sum(x), exact in int64, modular in int32. */
void pl_fully_connected_s16(const pl_fully_connected_params *p, const int16_t *in,
                            const int8_t *filter, const void *bias, bool acc64,
                            int16_t *out)
{
    for (int32_t b = 0; b < p->batches; b++) {
        const int16_t *x = in + (size_t)b * (size_t)p->depth;
        int64_t x_sum = p->filter_offset != 0 ? sum_s16(x, p->depth) : 0;
        for (int32_t u = 0; u < p->units; u++) {
            const int8_t *w = filter + (size_t)u * (size_t)p->depth;
            int64_t acc = pl_dot_s16(x, w, p->depth) + (int64_t)p->filter_offset * x_sum;
            out[(size_t)b * (size_t)p->units + (size_t)u] =
                pl_fully_connected_s16_output(p, acc, bias, acc64, u);
        }
    }
}

size_t pl_fully_connected_hybrid_scratch_size(int32_t batches, int32_t depth, int32_t units)
{
    size_t quant = ((size_t)batches * (size_t)depth + 3u) & ~(size_t)3u;
    return quant + 4u * (2u * (size_t)batches + (size_t)units);
}

static bool all_zero(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (x[i] != 0.0f)
            return false;
    }
    return true;
}

/* One batch row: out[u] += (dot(w_u, q) - rowsum_u * zp) * scale_u, in LiteRT's order. */
static void hybrid_row(const pl_fully_connected_params *p, const int8_t *q, const int8_t *filter,
                       const int32_t *row_sums, float sf, int32_t zp, float *out)
{
    float batch_scale = p->per_channel ? sf : sf * p->filter_scale[0];
    for (int32_t u = 0; u < p->units; u++) {
        const int8_t *w = filter + (size_t)u * (size_t)p->depth;
        uint32_t dot = 0; /* int32 arithmetic that wraps (a depth past 65,000 can) */
        for (int32_t d = 0; d < p->depth; d++)
            dot += (uint32_t)(w[d] * q[d]);
        float scale = p->per_channel ? batch_scale * p->filter_scale[u] : batch_scale;
        dot -= (uint32_t)row_sums[u] * (uint32_t)zp;
        out[u] += (float)(int32_t)dot * scale;
    }
}

void pl_fully_connected_hybrid(const pl_fully_connected_params *p, const float *in,
                               const int8_t *filter, const float *bias, float *out,
                               void *scratch)
{
    size_t total = (size_t)p->batches * (size_t)p->units;
    for (size_t k = 0; k < total; k++)
        out[k] = bias != NULL ? bias[k % (size_t)p->units] : 0.0f;
    if (!all_zero(in, (size_t)p->batches * (size_t)p->depth)) {
        int8_t *q = scratch;
        float *sf = (float *)((uint8_t *)scratch + (((size_t)p->batches * (size_t)p->depth +
                                                     3u) & ~(size_t)3u));
        int32_t *zp = (int32_t *)(sf + p->batches), *row_sums = zp + p->batches;
        for (int32_t u = 0; u < p->units; u++) {
            uint32_t sum = 0; /* wraps as int32 */
            for (int32_t d = 0; d < p->depth; d++)
                sum += (uint32_t)filter[(size_t)u * (size_t)p->depth + (size_t)d];
            row_sums[u] = (int32_t)sum;
        }
        for (int32_t b = 0; b < p->batches; b++) {
            size_t at = (size_t)b * (size_t)p->depth;
            zp[b] = 0;
            if (p->asymmetric)
                pl_hybrid_quantize_asymmetric(in + at, p->depth, q + at, &sf[b], &zp[b]);
            else
                pl_hybrid_quantize_symmetric(in + at, p->depth, q + at, &sf[b]);
            hybrid_row(p, q + at, filter, row_sums, sf[b], zp[b],
                       out + (size_t)b * (size_t)p->units);
        }
    }
    for (size_t k = 0; k < total; k++)
        out[k] = pl_fx_clamp_f32(out[k], p->f_act_min, p->f_act_max);
}

static pl_status check_types(pl_context *ctx, const pl_tensor *in, const pl_tensor *f,
                             const pl_tensor *bias, const pl_tensor *out)
{
    bool hybrid = in->type == PL_FLOAT32 && f->type == PL_INT8;
    pl_type want_f = in->type == PL_FLOAT32 && !hybrid ? PL_FLOAT32 : PL_INT8;
    bool int4 = in->type == PL_INT8 && f->type == PL_INT4;
    bool ok = (in->type == PL_FLOAT32 || in->type == PL_INT8 || in->type == PL_INT16) &&
              (f->type == want_f || int4) && out->type == in->type;
    ok = (ok && pl_convq_bias_type_ok(in->type, bias, true)) ||
         pl_u8conv_types_ok(in, f, bias, out);
    if (!ok)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "FULLY_CONNECTED: input %s, weights %s, "
                         "bias %s, output %s is not supported", pl_type_name(in->type),
                         pl_type_name(f->type), bias ? pl_type_name(bias->type) : "none",
                         pl_type_name(out->type));
    return PL_OK;
}

/* The output is [batches, units], or the input shape with its last dim = units
** (keep_num_dims), as TFLite's Prepare resizes it. */
static pl_status check_shapes(pl_context *ctx, const pl_tensor *in, const pl_tensor *f,
                              const pl_tensor *bias, pl_tensor *out, bool keep,
                              pl_fully_connected_params *p)
{
    if (f->ndims != 2 || f->dims[1] <= 0 || pl_tensor_count(in) % (size_t)f->dims[1] != 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "FULLY_CONNECTED: weights must be 2D [units, "
                         "depth] with depth dividing the input's %zu elements (weights "
                         "rank %d, depth %d)", pl_tensor_count(in), (int)f->ndims,
                         f->ndims == 2 ? (int)f->dims[1] : 0);
    p->units = f->dims[0];
    p->depth = f->dims[1];
    p->batches = (int32_t)(pl_tensor_count(in) / (size_t)p->depth);
    if (keep && (in->ndims < 1 || in->dims[in->ndims - 1] != p->depth))
        return ctx->fail(ctx, PL_ERR_MODEL, "FULLY_CONNECTED: keep_num_dims needs the "
                         "input's last dim (%d) to equal the weights' depth %d",
                         in->ndims > 0 ? (int)in->dims[in->ndims - 1] : 0, (int)p->depth);
    int32_t dims[PL_MAX_DIMS] = {p->batches, p->units};
    if (keep) {
        memcpy(dims, in->dims, sizeof(int32_t) * (size_t)in->ndims);
        dims[in->ndims - 1] = p->units;
    }
    PL_TRY(pl_set_output_shape(ctx, out, keep ? in->ndims : 2, dims));
    return pl_convq_bias_count(ctx, &op_names, bias, p->units);
}

/* The effective scales in * filter / out, per unit or one: as TFLM's Q31 multipliers and
** shifts (every target but LiteRT) or as LiteRT's doubles. Both take 8 bytes an entry, so
** the arena is the same on every target. */
static pl_status prepare_scales(pl_context *ctx, const pl_tensor *in, const pl_tensor *f,
                                const pl_tensor *out, pl_fully_connected_params *p)
{
    uint32_t n = p->per_channel ? (uint32_t)p->units : 1u;
    void *slots = NULL;
    PL_TRY(ctx->alloc_persistent(ctx, sizeof(double) * n, &slots));
    p->fixed_rescale = ctx->arith != PL_ARITH_LITERT;
    if (p->fixed_rescale) {
        /* per-tensor, TFLM 90b983c's GetQuantizedConvolutionMultipler takes the scale
        ** product in float; per unit (and the wheel's TFLM always) in double */
        bool narrow = !p->per_channel && !pl_arith_wide(ctx->arith);
        float product = in->q.scale[0] * f->q.scale[0];
        int32_t *pairs = slots;
        for (uint32_t c = 0; c < n; c++) {
            double ratio = pl_fx_pick(!narrow, (double)in->q.scale[0] *
                                                   (double)f->q.scale[c] /
                                                   (double)out->q.scale[0],
                                      (double)product / (double)out->q.scale[0]);
            pl_fx_quantize_multiplier(ratio, &pairs[2 * c], &pairs[2 * c + 1]);
        }
        p->rescale = pairs;
        return PL_OK;
    }
    double *scale = slots;
    for (uint32_t c = 0; c < n; c++)
        scale[c] = (double)in->q.scale[0] * (double)f->q.scale[c] / (double)out->q.scale[0];
    p->scale = scale;
    return PL_OK;
}

static pl_status prepare_quant(pl_context *ctx, const pl_tensor *in, const pl_tensor *f,
                               const pl_tensor *out, int32_t activation,
                               pl_fully_connected_params *p)
{
    pl_convq q;
    PL_TRY(pl_convq_prepare(ctx, &op_names, in, f, out, activation, p->units, 0, true, &q));
    p->per_channel = f->q.count > 1;
    /* TFLM's CMSIS-NN FULLY_CONNECTED takes per-channel weights with int8 input only */
    if (p->per_channel && in->type == PL_INT16 && pl_arith_cmsis_nn(ctx->arith))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "FULLY_CONNECTED: TFLM's CMSIS-NN kernel "
                         "takes per-channel weights with int8 input only");
    p->input_offset = q.input_offset;
    p->filter_offset = p->per_channel ? 0 : -(int32_t)f->q.zero_point[0];
    p->output_offset = q.output_offset;
    p->act_min = q.act_min;
    p->act_max = q.act_max;
    return prepare_scales(ctx, in, f, out, p);
}

/* uint8: per-tensor weights with any zero point, rescaled as for int8. */
static pl_status prepare_u8(pl_context *ctx, const pl_tensor *in, const pl_tensor *f,
                            const pl_tensor *out, int32_t activation,
                            pl_fully_connected_params *p)
{
    pl_convq q;
    PL_TRY(pl_u8conv_quant(ctx, "FULLY_CONNECTED", in, f, out, activation, &q,
                           &p->filter_offset));
    p->per_channel = false;
    p->input_offset = q.input_offset;
    p->output_offset = q.output_offset;
    p->act_min = q.act_min;
    p->act_max = q.act_max;
    return prepare_scales(ctx, in, f, out, p);
}

static pl_status read_options(pl_context *ctx, const pl_node *node, int32_t *activation,
                              bool *keep)
{
    const pl_table *o = &node->options;
    *activation = pl_table_i8(o, OPT_ACTIVATION, 0);
    *keep = pl_table_bool(o, OPT_KEEP_NUM_DIMS, false);
    int32_t format = pl_table_i8(o, OPT_WEIGHTS_FORMAT, 0);
    if (format != 0)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "FULLY_CONNECTED: weights format %d "
                         "(SHUFFLED4x16INT8) is not supported, only DEFAULT", format);
    return pl_convq_check_activation(ctx, &op_names, *activation);
}

static pl_status prepare_hybrid(pl_context *ctx, const pl_node *node, const pl_tensor *f,
                                op_data *d)
{
    pl_fully_connected_params *p = &d->p;
    PL_TRY(pl_hybrid_filter_scales(ctx, &op_names, f, p->units, 0, &p->filter_scale));
    p->per_channel = f->q.count > 1;
    p->asymmetric = pl_table_bool(&node->options, OPT_ASYMMETRIC_INPUTS, false);
    d->hybrid = true;
    return ctx->request_scratch(ctx, pl_fully_connected_hybrid_scratch_size(p->batches,
                                                                             p->depth,
                                                                             p->units),
                                &d->scratch);
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    pl_convq_io io;
    PL_TRY(pl_convq_io_get(ctx, node, &op_names, &io));
    const pl_tensor *in = io.in, *f = io.f, *bias = io.bias, *out = io.out;
    int32_t activation = 0;
    bool keep = false;
    PL_TRY(read_options(ctx, node, &activation, &keep));
    PL_TRY(check_types(ctx, in, f, bias, out));
    PL_TRY(check_shapes(ctx, in, f, bias, io.out, keep, &d->p));
    d->type = in->type;
    /* Without a bias, LiteRT picks the 16x8 accumulator from quantized_bias_type; TFLM's
    ** CMSIS-NN kernel always sums in 64 bits and reads the bias as int64 */
    d->acc64 = bias != NULL ? bias->type == PL_INT64
                            : pl_table_i8(&node->options, OPT_QUANTIZED_BIAS_TYPE, 0) != PL_INT32;
    if (in->type == PL_INT16 && pl_arith_cmsis_nn(ctx->arith)) {
        if (bias != NULL && bias->type != PL_INT64)
            return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "FULLY_CONNECTED: TFLM's CMSIS-NN kernel "
                             "reads a 16x8 bias as int64 (this one is %s)",
                             pl_type_name(bias->type));
        d->acc64 = true;
    }
    pl_fx_activation_range_f32(activation, &d->p.f_act_min, &d->p.f_act_max);
    d->p.fused = ctx->fused_madd;
    if (in->type == PL_FLOAT32 && f->type == PL_INT8)
        return prepare_hybrid(ctx, node, f, d);
    if (in->type == PL_UINT8)
        return prepare_u8(ctx, in, f, out, activation, &d->p);
    if (in->type != PL_FLOAT32)
        PL_TRY(prepare_quant(ctx, in, f, out, activation, &d->p));
    if (f->type == PL_INT4)
        return pl_int4_filter_prepare(ctx, op_names.op, f, &d->scratch);
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_convq_views v;
    PL_TRY(pl_convq_views_get(ctx, node, &v));
    void *scratch = d->hybrid ? ctx->get_scratch(ctx, d->scratch) : NULL;
    if (d->hybrid && scratch == NULL)
        return ctx->fail(ctx, PL_ERR_STATE, "FULLY_CONNECTED: scratch buffer %d missing",
                         d->scratch);
    if (d->hybrid)
        pl_fully_connected_hybrid(&d->p, v.in.data, v.f.data, v.bias.data, v.out.data,
                                  scratch);
    else if (d->type == PL_FLOAT32)
        pl_fully_connected_f32(&d->p, v.in.data, v.f.data, v.bias.data, v.out.data);
    else if (d->type == PL_UINT8)
        pl_u8conv_fully_connected(&d->p, v.in.data, v.f.data, v.bias.data, v.out.data);
    else if (d->type == PL_INT8 && v.f.type == PL_INT4) {
        const int8_t *filter = pl_int4_filter_unpack(ctx, op_names.op, &v.f, d->scratch);
        if (filter == NULL)
            return PL_ERR_STATE;
        pl_fully_connected_s8(&d->p, v.in.data, filter, v.bias.data, v.out.data);
    } else if (d->type == PL_INT8)
        pl_fully_connected_s8(&d->p, v.in.data, v.f.data, v.bias.data, v.out.data);
    else
        pl_fully_connected_s16(&d->p, v.in.data, v.f.data, v.bias.data, d->acc64, v.out.data);
    return PL_OK;
}

const pl_registration *pl_fully_connected_registration(void)
{
    static const pl_registration reg = {.name = "FULLY_CONNECTED", .builtin_code = 9,
                                        .prepare = prepare, .invoke = invoke,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
