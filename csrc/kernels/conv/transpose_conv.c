/* transpose_conv.c - TRANSPOSE_CONV as TFLite's reference kernels compute it: every input
** element scatters its products into the outputs it touches, then bias, rescale, clamp. */
#include "transpose_conv.h"

#include <math.h>
#include <string.h>

#include "kernels/conv/conv_params.h"
#include "kernels/conv/hybrid.h"
#include "kernels/conv/uint8.h"
#include "kernels/common/fixedpoint.h"
#include "kernels/common/padding.h"
#include "picolite/pl_node_io.h"

/* TransposeConvOptions field ids (schema.fbs). */
enum { OPT_PADDING = 0, OPT_STRIDE_W, OPT_STRIDE_H, OPT_ACTIVATION };

/* Inputs: output_shape, weights, input, optional bias. */
enum { IN_SHAPE = 0, IN_WEIGHTS, IN_INPUT, IN_BIAS };

static const pl_convq_names op_names = {"TRANSPOSE_CONV", "weights", "per-channel",
                                        "weight", "channel"};

typedef pl_transpose_conv_op op_data;

/* The scatter loops in TFLite's order; ACC(o, i, f) accumulates input i times filter f
** into output o. */
#define SCATTER(p, in_dims, f_dims, out_dims, ACC)                                          \
    do {                                                                                    \
        const int32_t nb = in_dims[0], ih = in_dims[1], iw = in_dims[2], id = in_dims[3];   \
        const int32_t fh = f_dims[1], fw = f_dims[2], oh = out_dims[1], ow = out_dims[2];   \
        const int32_t od = out_dims[3];                                                     \
        for (int32_t b = 0; b < nb; b++)                                                    \
            for (int32_t y = 0; y < ih; y++)                                                \
                for (int32_t x = 0; x < iw; x++)                                            \
                    for (int32_t ic = 0; ic < id; ic++) {                                   \
                        const int32_t ox0 = x * p->stride_w - p->pad_w;                     \
                        const int32_t oy0 = y * p->stride_h - p->pad_h;                     \
                        const size_t i = (((size_t)b * ih + y) * iw + x) * id + ic;         \
                        for (int32_t fy = 0; fy < fh; fy++)                                 \
                            for (int32_t fx = 0; fx < fw; fx++)                             \
                                for (int32_t oc = 0; oc < od; oc++) {                       \
                                    const int32_t ox = ox0 + fx, oy = oy0 + fy;             \
                                    if (ox < 0 || ox >= ow || oy < 0 || oy >= oh)           \
                                        continue;                                           \
                                    const size_t o = (((size_t)b * oh + oy) * ow + ox) * od + oc; \
                                    const size_t f = (((size_t)oc * fh + fy) * fw + fx) * id + ic; \
                                    ACC(o, i, f);                                           \
                                }                                                           \
                    }                                                                       \
    } while (0)

size_t pl_transpose_conv_scratch_size(pl_type type, size_t output_elements)
{
    return output_elements * (type == PL_INT16 ? sizeof(int64_t) : sizeof(int32_t));
}

static size_t count4(const int32_t *dims)
{
    return (size_t)dims[0] * (size_t)dims[1] * (size_t)dims[2] * (size_t)dims[3];
}

void pl_transpose_conv_f32(const pl_transpose_conv_params *p, const int32_t *in_dims,
                           const float *in, const int32_t *f_dims, const float *filter,
                           const float *bias, const int32_t *out_dims, bool fused, float *out)
{
    size_t n = count4(out_dims);
    for (size_t k = 0; k < n; k++)
        out[k] = 0.0f;
#define ACC_F32(o, i, f) out[o] += in[i] * filter[f]
#define ACC_FMA(o, i, f) out[o] = fmaf(in[i], filter[f], out[o])
    if (fused) /* apart, so the unfused scatter stays as fast */
        SCATTER(p, in_dims, f_dims, out_dims, ACC_FMA);
    else
        SCATTER(p, in_dims, f_dims, out_dims, ACC_F32);
    int32_t od = out_dims[3];
    for (size_t k = 0; k < n; k++) {
        float v = bias != NULL ? out[k] + bias[k % (size_t)od] : out[k];
        out[k] = pl_fx_clamp_f32(v, p->f_act_min, p->f_act_max);
    }
}

void pl_transpose_conv_s8(const pl_transpose_conv_params *p, const int32_t *in_dims,
                          const int8_t *in, const int32_t *f_dims, const int8_t *filter,
                          const int32_t *bias, const int32_t *out_dims, int8_t *out,
                          int32_t *scratch)
{
    size_t n = count4(out_dims);
    memset(scratch, 0, n * sizeof *scratch);
#define ACC_S8(o, i, f) scratch[o] += (in[i] + p->input_offset) * filter[f]
    SCATTER(p, in_dims, f_dims, out_dims, ACC_S8);
    size_t od = (size_t)out_dims[3];
    for (size_t k = 0; k < n; k++) {
        size_t c = k % od;
        int32_t acc = (int32_t)((uint32_t)scratch[k] + (uint32_t)(bias != NULL ? bias[c] : 0));
        acc = pl_fx_mul_by_qm(acc, p->multiplier[c], p->shift[c]) + p->output_offset;
        out[k] = (int8_t)pl_fx_clamp(acc, p->act_min, p->act_max);
    }
}

void pl_transpose_conv_u8(const pl_transpose_conv_params *p, int32_t filter_offset,
                          const int32_t *in_dims, const uint8_t *in, const int32_t *f_dims,
                          const uint8_t *filter, const int32_t *bias, const int32_t *out_dims,
                          uint8_t *out, int32_t *scratch)
{
    size_t n = count4(out_dims);
    memset(scratch, 0, n * sizeof *scratch);
#define ACC_U8(o, i, f) \
    scratch[o] = (int32_t)((uint32_t)scratch[o] + \
                           (uint32_t)((in[i] + p->input_offset) * (filter[f] + filter_offset)))
    SCATTER(p, in_dims, f_dims, out_dims, ACC_U8);
    size_t od = (size_t)out_dims[3];
    for (size_t k = 0; k < n; k++) {
        size_t c = k % od;
        int32_t acc = (int32_t)((uint32_t)scratch[k] + (uint32_t)(bias != NULL ? bias[c] : 0));
        int64_t v = (int64_t)pl_fx_mul_by_qm(acc, p->multiplier[0], p->shift[0]) +
                    p->output_offset;
        out[k] = (uint8_t)(v < p->act_min ? p->act_min : v > p->act_max ? p->act_max : v);
    }
}

void pl_transpose_conv_s16(const pl_transpose_conv_params *p, const int32_t *in_dims,
                           const int16_t *in, const int32_t *f_dims, const int8_t *filter,
                           const void *bias, bool bias64, const int32_t *out_dims,
                           int16_t *out, int64_t *scratch)
{
    size_t n = count4(out_dims);
    memset(scratch, 0, n * sizeof *scratch);
#define ACC_S16(o, i, f) scratch[o] += (int64_t)in[i] * filter[f]
    SCATTER(p, in_dims, f_dims, out_dims, ACC_S16);
    size_t od = (size_t)out_dims[3];
    for (size_t k = 0; k < n; k++) {
        size_t c = k % od;
        int64_t acc = scratch[k];
        if (bias != NULL)
            acc += bias64 ? pl_load_i64(bias, (size_t)c) : ((const int32_t *)bias)[c];
        int32_t v = pl_fx_mul_by_qm64(acc, p->multiplier[c], p->shift[c]) + p->output_offset;
        out[k] = (int16_t)pl_fx_clamp(v, p->act_min, p->act_max);
    }
}

void pl_transpose_conv_hybrid(const pl_transpose_conv_params *p, const float *filter_scale,
                              bool per_channel, const int32_t *in_dims, const float *in,
                              const int32_t *f_dims, const int8_t *filter, const float *bias,
                              const int32_t *out_dims, float *out, int8_t *scratch)
{
    size_t n = count4(out_dims);
    for (size_t k = 0; k < n; k++)
        out[k] = 0.0f;
    const int32_t one_in[4] = {1, in_dims[1], in_dims[2], in_dims[3]};
    const int32_t one_out[4] = {1, out_dims[1], out_dims[2], out_dims[3]};
    const size_t in_size = count4(one_in), out_size = count4(one_out);
    const size_t depth = (size_t)out_dims[3];
    for (int32_t batch = 0; batch < in_dims[0]; batch++) {
        float sf = 1.0f;
        int32_t zp = 0;
        pl_hybrid_quantize_asymmetric(in + (size_t)batch * in_size, (int32_t)in_size, scratch,
                                      &sf, &zp);
        float *ob = out + (size_t)batch * out_size;
#define ACC_HYBRID(o, i, f)                                                               \
    ob[o] += (float)((scratch[i] - zp) * filter[f]) *                                     \
             filter_scale[per_channel ? (o) % depth : 0] * sf
        SCATTER(p, one_in, f_dims, one_out, ACC_HYBRID);
#undef ACC_HYBRID
    }
    for (size_t k = 0; k < n; k++) {
        float v = bias != NULL ? out[k] + bias[k % depth] : out[k];
        out[k] = pl_fx_clamp_f32(v, p->f_act_min, p->f_act_max);
    }
}

static pl_status read_options(pl_context *ctx, const pl_node *node,
                              pl_transpose_conv_params *p, int32_t *padding,
                              int32_t *activation)
{
    const pl_table *o = &node->options;
    *padding = pl_table_i8(o, OPT_PADDING, 0);
    p->stride_w = pl_table_i32(o, OPT_STRIDE_W, 0);
    p->stride_h = pl_table_i32(o, OPT_STRIDE_H, 0);
    *activation = pl_table_i8(o, OPT_ACTIVATION, 0);
    if (p->stride_w <= 0 || p->stride_h <= 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "TRANSPOSE_CONV: strides %d,%d must be positive",
                         p->stride_h, p->stride_w);
    PL_TRY(pl_convq_check_window(ctx, &op_names, *padding, p->stride_h, p->stride_w, 1, 1));
    return pl_convq_check_activation(ctx, &op_names, *activation);
}

static pl_status check_types(pl_context *ctx, const pl_tensor *shape, const pl_tensor *f,
                             const pl_tensor *in, const pl_tensor *bias, const pl_tensor *out)
{
    /* float input with int8 weights is hybrid */
    pl_type want_f = in->type == PL_FLOAT32 && f->type == PL_FLOAT32 ? PL_FLOAT32 : PL_INT8;
    bool ok = (in->type == PL_FLOAT32 || in->type == PL_INT8 || in->type == PL_INT16) &&
              f->type == want_f && out->type == in->type && shape->type == PL_INT32;
    ok = (ok && pl_convq_bias_type_ok(in->type, bias, true)) ||
         (pl_u8conv_types_ok(in, f, bias, out) && shape->type == PL_INT32);
    if (!ok)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "TRANSPOSE_CONV: input %s, weights %s, "
                         "bias %s, output %s, output_shape %s is not supported",
                         pl_type_name(in->type), pl_type_name(f->type),
                         bias ? pl_type_name(bias->type) : "none", pl_type_name(out->type),
                         pl_type_name(shape->type));
    return PL_OK;
}

/* The output takes output_shape's values when they are known at prepare (a constant, or a
** value computed at prepare: see pl_kernel.h), as TFLite's Prepare resizes it. A run-time
** output_shape (a model input in seanet) is never read, as TFLM never reads it: the
** output keeps the model's dims, whatever values are fed. */
static pl_status set_output(pl_context *ctx, const pl_tensor *shape, pl_tensor *out)
{
    if (pl_tensor_count(shape) != 4 || shape->ndims != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "TRANSPOSE_CONV: output_shape has %zu values, "
                         "not 4", pl_tensor_count(shape));
    if (!shape->is_constant || shape->data == NULL)
        return pl_set_output_shape(ctx, out, out->ndims, out->dims);
    int32_t dims[4];
    for (int32_t k = 0; k < 4; k++) {
        dims[k] = pl_vec_i32((pl_vec){shape->data, 4}, (uint32_t)k);
        if (dims[k] < 0)
            return ctx->fail(ctx, PL_ERR_MODEL, "TRANSPOSE_CONV: output_shape[%d] = %d",
                             (int)k, (int)dims[k]);
    }
    return pl_set_output_shape(ctx, out, 4, dims);
}

/* Padding is computed on the output size, as TFLite does. */
static pl_status check_shapes(pl_context *ctx, const pl_tensor *shape, const pl_tensor *f,
                              const pl_tensor *in, const pl_tensor *bias, pl_tensor *out,
                              int32_t padding, pl_transpose_conv_params *p)
{
    PL_TRY(set_output(ctx, shape, out));
    if (in->ndims != 4 || f->ndims != 4 || out->ndims != 4)
        return ctx->fail(ctx, PL_ERR_MODEL, "TRANSPOSE_CONV: input, weights and output must "
                         "be 4D (got %d, %d, %d)", in->ndims, f->ndims, out->ndims);
    const pl_nhwc in_shape = pl_nhwc_of(in);
    const pl_nhwc f_shape = pl_nhwc_of(f);
    const pl_nhwc out_shape = pl_nhwc_of(out);
    if (f_shape.c != in_shape.c || out_shape.n != in_shape.n || out_shape.c != f_shape.n)
        return ctx->fail(ctx, PL_ERR_MODEL, "TRANSPOSE_CONV: input [%d,H,W,%d], weights "
                         "[%d,H,W,%d] and output [%d,H,W,%d] do not match", in_shape.n,
                         in_shape.c, f_shape.n, f_shape.c, out_shape.n, out_shape.c);
    PL_TRY(pl_convq_bias_count(ctx, &op_names, bias, out_shape.c));
    int32_t rh = pl_pad_out_size(padding, out_shape.h, f_shape.h, p->stride_h, 1);
    int32_t rw = pl_pad_out_size(padding, out_shape.w, f_shape.w, p->stride_w, 1);
    /* TFLite's Prepare: the convolution of the output must give back the input's size */
    if (rh != in_shape.h || rw != in_shape.w)
        return ctx->fail(ctx, PL_ERR_MODEL, "TRANSPOSE_CONV: an output of %dx%d comes from an "
                         "input of %dx%d, not %dx%d", out_shape.h, out_shape.w, rh, rw,
                         in_shape.h, in_shape.w);
    p->pad_h = pl_pad_before(p->stride_h, 1, out_shape.h, f_shape.h, rh, NULL);
    p->pad_w = pl_pad_before(p->stride_w, 1, out_shape.w, f_shape.w, rw, NULL);
    return PL_OK;
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    PL_TRY(pl_node_check(ctx, node, PL_IO_OPT(3, 4, 1)));
    pl_tensor *shape, *f, *in, *out, *bias, bias_view;
    PL_TRY(pl_node_tensor(ctx, node, false, IN_SHAPE, &shape));
    PL_TRY(pl_node_tensor(ctx, node, false, IN_WEIGHTS, &f));
    PL_TRY(pl_node_tensor(ctx, node, false, IN_INPUT, &in));
    PL_TRY(pl_convq_bias(ctx, node, IN_BIAS, &bias_view, &bias));
    PL_TRY(pl_node_tensor(ctx, node, true, 0, &out));
    int32_t padding = 0, activation = 0;
    PL_TRY(read_options(ctx, node, &d->p, &padding, &activation));
    PL_TRY(check_types(ctx, shape, f, in, bias, out));
    /* TFLM's CMSIS-NN wrapper reads a 16x8 op's bias type without checking that there is a
    ** bias: undefined, and the Cortex-M4 firmware fails AllocateTensors */
    if (pl_arith_cmsis_nn(ctx->arith) && in->type == PL_INT16 && bias == NULL)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "TRANSPOSE_CONV: TFLM's CMSIS-NN kernel "
                         "needs a bias for int16 input (it reads an absent one's type)");
    PL_TRY(check_shapes(ctx, shape, f, in, bias, out, padding, &d->p));
    const pl_nhwc in_shape = pl_nhwc_of(in);
    const pl_nhwc f_shape = pl_nhwc_of(f);
    d->type = in->type;
    d->bias64 = bias != NULL && bias->type == PL_INT64;
    d->fused = ctx->fused_madd;
    d->hybrid = in->type == PL_FLOAT32 && f->type == PL_INT8;
    pl_fx_activation_range_f32(activation, &d->p.f_act_min, &d->p.f_act_max);
    if (d->hybrid) { /* LiteRT spreads a single weight scale over every channel */
        PL_TRY(pl_hybrid_filter_scales(ctx, &op_names, f, f_shape.n, 0, &d->p.filter_scale));
        d->hybrid_per_channel = f->q.count > 1;
        return ctx->request_scratch(ctx, pl_tensor_count(in) / (size_t)in_shape.n,
                                    &d->scratch);
    }
    if (in->type == PL_FLOAT32)
        return PL_OK;
    pl_convq q;
    if (in->type == PL_UINT8)
        PL_TRY(pl_u8conv_prepare(ctx, "TRANSPOSE_CONV", in, f, out, activation, &q,
                                 &d->filter_offset));
    else
        PL_TRY(pl_convq_per_channel(ctx, &op_names, in, f, out, activation, f_shape.n, 0,
                                    &q));
    PL_CONVQ_STORE(&d->p, q);
    return ctx->request_scratch(ctx, pl_transpose_conv_scratch_size(in->type,
                                                                    pl_tensor_count(out)),
                                &d->scratch);
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor in, f, bias, out;
    PL_TRY(pl_node_eval(ctx, node, false, IN_INPUT, &in));
    PL_TRY(pl_node_eval(ctx, node, false, IN_WEIGHTS, &f));
    PL_TRY(pl_node_eval(ctx, node, false, IN_BIAS, &bias));
    PL_TRY(pl_node_evals(ctx, node, 0, 1, &out));
    if (d->type == PL_FLOAT32 && !d->hybrid) {
        pl_transpose_conv_f32(&d->p, in.dims, in.data, f.dims, f.data, bias.data, out.dims,
                              d->fused, out.data);
        return PL_OK;
    }
    void *scratch = ctx->get_scratch(ctx, d->scratch);
    if (scratch == NULL)
        return ctx->fail(ctx, PL_ERR_STATE, "TRANSPOSE_CONV: scratch buffer %d missing",
                         d->scratch);
    if (d->hybrid)
        pl_transpose_conv_hybrid(&d->p, d->p.filter_scale, d->hybrid_per_channel, in.dims,
                                 in.data, f.dims, f.data, bias.data, out.dims, out.data,
                                 scratch);
    else if (d->type == PL_UINT8)
        pl_transpose_conv_u8(&d->p, d->filter_offset, in.dims, in.data, f.dims, f.data,
                             bias.data, out.dims, out.data, scratch);
    else if (d->type == PL_INT8)
        pl_transpose_conv_s8(&d->p, in.dims, in.data, f.dims, f.data, bias.data, out.dims,
                             out.data, scratch);
    else
        pl_transpose_conv_s16(&d->p, in.dims, in.data, f.dims, f.data, bias.data, d->bias64,
                              out.dims, out.data, scratch);
    return PL_OK;
}

const pl_registration *pl_transpose_conv_registration(void)
{
    static const pl_registration reg = {.name = "TRANSPOSE_CONV", .builtin_code = 67,
                                        .prepare = prepare, .invoke = invoke,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
