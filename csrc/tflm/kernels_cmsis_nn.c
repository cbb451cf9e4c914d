/* kernels_cmsis_nn.c - TFLM's cmsis_nn kernels: their arena footprint where it differs from
** the reference kernels' (TFLM 90b983c, CMSIS-NN 4ab83cc, built with arm-none-eabi-gcc and
** KERNELS_OPTIMIZED_FOR_SPEED, as TFLM's Makefile builds OPTIMIZED_KERNEL_DIR=cmsis_nn).
**
** Each kernel keeps op data of its own (the reference op data plus CMSIS-NN's buffer indices),
** and asks CMSIS-NN how much scratch its algorithm needs. That answer depends on the shape
** (which algorithm runs: 1x1, 1xN, 3x3 depthwise, reverse transpose conv) and on the core's
** features: a DSP core takes int16 im2col buffers, a Helium (MVE) core 16-byte lane buffers
** and keeps kernel sums of constant weights as persistent data, a core with neither often
** takes nothing. Some sizes depend on the compiler (Arm Compiler 6 asks for more); these are
** gcc's. MUL, PAD, TRANSPOSE, MAXIMUM and MINIMUM reuse the reference kernels' init and
** prepare, so their reference entries stand. */
#include "tflm/kernels.h"

#include "tflm/ops.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Options fields (schema order). */
#define CONV_PADDING 0
#define CONV_STRIDE_W 1
#define CONV_STRIDE_H 2
#define CONV_DILATION_W 4
#define CONV_DILATION_H 5
#define DEPTHWISE_DILATION_W 5
#define DEPTHWISE_DILATION_H 6
#define TRANSPOSE_CONV_STRIDE_W 1
#define TRANSPOSE_CONV_STRIDE_H 2
#define PADDING_SAME 0

/* Channels above which a transpose convolution runs as a reversed convolution. */
#define REVERSE_CONV_MIN_CHANNELS 16

static bool dsp(const pl_tflm_node *n)
{
    return n->p->kernels == PL_TFLM_CMSIS_NN_DSP;
}

static bool mve(const pl_tflm_node *n)
{
    return n->p->kernels == PL_TFLM_CMSIS_NN_MVE;
}

static int32_t dim(const pl_tflm_tensor *t, int32_t k)
{
    return k >= 0 && k < t->ndims ? t->dims[k] : 0;
}

static int32_t last_dim(const pl_tflm_tensor *t)
{
    return dim(t, t->ndims - 1);
}

static bool constant(const pl_tflm_tensor *t)
{
    return t->index < 0 || t->data != NULL;
}

/* The four tensors a reference CalculateOpData* takes again (input, filter, bias, output). */
static void reference_op_data(pl_tflm_node *n)
{
    int32_t t[4] = {pl_tflm_temp_input(n, 0), pl_tflm_temp_input(n, 1),
                    pl_tflm_temp_input(n, 2), pl_tflm_temp_output(n, 0)};
    for (int i = 0; i < 4; i++)
        pl_tflm_free_tensor(n, t[i]);
}

/* ComputePaddingHeightWidth along one axis: the output size from the padding type, then the
** leading padding. */
static int32_t padding(int32_t same, int32_t stride, int32_t dilation, int32_t in,
                       int32_t filter)
{
    if (stride <= 0)
        return 0;
    int32_t effective = (filter - 1) * (dilation > 0 ? dilation : 1) + 1;
    int32_t out = same ? (in + stride - 1) / stride : (in + stride - effective) / stride;
    int32_t pad = ((out - 1) * stride + effective - in) / 2;
    return pad > 0 ? pad : 0;
}

/* --- CMSIS-NN's scratch sizes (its *_get_buffer_size rules) --- */

/* The shapes a convolution's rules read. */
typedef struct conv_shape {
    int32_t in_n, in_h, in_w, in_c;
    int32_t filter_h, filter_w, filter_c; /* filter_c: input channels per group */
    int32_t out_w;
    int32_t stride_w, stride_h, dilation_w, dilation_h, pad_w, pad_h;
} conv_shape;

/* Helium's im2col: four buffers of whole 16-lane (int8) or 8-lane (int16) registers. */
static int32_t mve_im2col(int32_t columns, int32_t lanes, int32_t bytes)
{
    return 4 * ((columns + lanes - 1) / lanes) * lanes * bytes;
}

static int32_t convolve_s8_size(const pl_tflm_node *n, const conv_shape *s)
{
    int32_t columns = s->in_c * s->filter_w * s->filter_h;
    if (mve(n))
        return mve_im2col(columns, 16, 1);
    return 2 * ((columns + 3) & ~3) * 2; /* two int16 columns, rounded to 4 */
}

/* Helium's 1xN convolution: an im2col row of the padded edges, unless the padding does not
** split the row into whole left, middle and right parts. */
static int32_t convolve_1_x_n_mve_size(const pl_tflm_node *n, const conv_shape *s)
{
    int32_t total_pad = (s->out_w - 1) * s->stride_w + s->filter_w - s->in_w;
    int32_t asym = total_pad % 2;
    int32_t right = s->pad_w + asym != 0 ? MAX(1, (s->pad_w + asym + s->stride_w - 1) /
                                                      s->stride_w) : 0;
    int32_t left = s->pad_w != 0 ? MAX(1, (s->pad_w + s->stride_w - 1) / s->stride_w) : 0;
    int32_t middle = MAX(s->out_w - (right + left), 0);
    if (right + middle + left != s->out_w)
        return convolve_s8_size(n, s);
    int32_t pad_left = s->pad_w * s->in_c;
    int32_t pad_right = asym ? right * s->in_c : pad_left;
    int32_t elems_left = s->filter_w * s->in_c;
    return MAX(elems_left + pad_left, elems_left - s->in_c + pad_right);
}

/* arm_convolve_wrapper_s8_get_buffer_size. A 1x1 convolution needs none with gcc; 1xN takes
** the general im2col except on Helium. */
static int32_t convolve_wrapper_s8_size(const pl_tflm_node *n, const conv_shape *s)
{
    bool one_by_one = s->pad_w == 0 && s->pad_h == 0 && s->filter_w == 1 && s->filter_h == 1 &&
                      s->dilation_w == 1 && s->dilation_h == 1 && s->in_c == s->filter_c;
    if (one_by_one)
        return 0;
    bool one_by_n = s->in_h == 1 && s->dilation_w == 1 && s->filter_h == 1 &&
                    (s->stride_w * s->in_c) % 4 == 0 && s->in_c == s->filter_c;
    if (one_by_n && mve(n))
        return convolve_1_x_n_mve_size(n, s);
    return convolve_s8_size(n, s);
}

static int32_t convolve_wrapper_s16_size(const pl_tflm_node *n, const conv_shape *s)
{
    int32_t columns = s->in_c * s->filter_w * s->filter_h;
    return mve(n) ? mve_im2col(columns, 8, 2) : 2 * columns * 2;
}

/* arm_depthwise_conv_wrapper_s8_get_buffer_size (and _s4's): the optimized depthwise kernel's
** buffer when it runs (one batch, multiplier 1, no dilation); a 3x3 kernel with padding of
** at most one has its own, bufferless, kernel off Helium. */
static int32_t depthwise_size(const pl_tflm_node *n, const conv_shape *s, int32_t out_c,
                              bool int4)
{
    if (mve(n) && !int4 && s->in_c == 1 && out_c > 1) {
        /* Helium runs a one-channel input as a convolution: its buffer plus the filter
        ** transposed. TFLM leaves the stride unset here; a 1x1 kernel needs no buffer at
        ** any stride, and other shapes are taken as the general im2col. */
        conv_shape as_conv = *s;
        as_conv.filter_c = 1;
        int32_t filter = out_c * s->filter_w * s->filter_h;
        bool one_by_one = s->pad_w == 0 && s->pad_h == 0 && s->filter_w == 1 &&
                          s->filter_h == 1 && s->dilation_w == 1 && s->dilation_h == 1;
        return (one_by_one ? 0 : convolve_s8_size(n, &as_conv)) + filter;
    }
    bool optimized = s->in_c == out_c && s->in_n == 1 && s->dilation_w == 1 &&
                     s->dilation_h == 1;
    if (!optimized)
        return 0;
    if (mve(n))
        return 4 * 124 * s->filter_w * s->filter_h; /* CH_IN_BLOCK_MVE channels at a time */
    if (!int4 && s->filter_w == 3 && s->filter_h == 3 && s->pad_h <= 1 && s->pad_w <= 1)
        return 0;
    if (!int4 && !dsp(n))
        return 0;
    return s->in_c * s->filter_w * s->filter_h * 2;
}

/* --- CONV_2D, DEPTHWISE_CONV_2D --- */

static void conv_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, 60); /* OpDataConv and a buffer index */
}

static void conv_shape_of(const pl_tflm_node *n, const pl_tflm_tensor *in,
                          const pl_tflm_tensor *filter, const pl_tflm_tensor *out,
                          int dilation_w_field, int dilation_h_field, conv_shape *s)
{
    const pl_table *o = &n->op.options;
    s->in_n = dim(in, 0);
    s->in_h = dim(in, 1);
    s->in_w = dim(in, 2);
    s->in_c = dim(in, 3);
    s->filter_h = dim(filter, 1);
    s->filter_w = dim(filter, 2);
    s->filter_c = dim(filter, 3);
    s->out_w = dim(out, 2);
    s->stride_w = pl_table_i32(o, CONV_STRIDE_W, 0);
    s->stride_h = pl_table_i32(o, CONV_STRIDE_H, 0);
    s->dilation_w = pl_table_i32(o, dilation_w_field, 1);
    s->dilation_h = pl_table_i32(o, dilation_h_field, 1);
    int32_t same = pl_table_i32(o, CONV_PADDING, 0) == PADDING_SAME;
    s->pad_w = padding(same, s->stride_w, s->dilation_w, s->in_w, s->filter_w);
    s->pad_h = padding(same, s->stride_h, s->dilation_h, s->in_h, s->filter_h);
}

/* Input, filter and output (CONV_2D looks its bias up among the outputs, where there is
** none); per-channel multipliers and shifts for a quantized input (over the filter's
** dimension 0, or 3 for DEPTHWISE_CONV_2D); the reference op data; CMSIS-NN's buffer (for
** int8 and int16 convolutions, int8 depthwise ones). */
static void conv_like_prepare(pl_tflm_node *n, bool depthwise)
{
    pl_tflm_tensor in, filter, out;
    int32_t i = pl_tflm_temp_input(n, 0), f = pl_tflm_temp_input(n, 1);
    int32_t o = pl_tflm_temp_output(n, 0);
    pl_tflm_tensor_of(n, i, &in);
    pl_tflm_tensor_of(n, f, &filter);
    pl_tflm_tensor_of(n, o, &out);
    bool quantized = in.type == PL_INT8 || in.type == PL_INT16;
    if (quantized) {
        uint32_t channels = (uint32_t)dim(&filter, depthwise ? 3 : 0);
        pl_tflm_persistent(n, 4u * channels);
        pl_tflm_persistent(n, 4u * channels);
    }
    reference_op_data(n);
    int32_t bytes = 0;
    conv_shape s;
    if (depthwise && in.type == PL_INT8) {
        conv_shape_of(n, &in, &filter, &out, DEPTHWISE_DILATION_W, DEPTHWISE_DILATION_H, &s);
        bytes = depthwise_size(n, &s, dim(&out, 3), filter.type == PL_INT4);
    } else if (!depthwise && quantized) {
        conv_shape_of(n, &in, &filter, &out, CONV_DILATION_W, CONV_DILATION_H, &s);
        bytes = in.type == PL_INT8 ? convolve_wrapper_s8_size(n, &s)
                                   : convolve_wrapper_s16_size(n, &s);
    }
    if (bytes > 0)
        pl_tflm_scratch(n, (uint32_t)bytes);
    pl_tflm_free_tensor(n, o);
    pl_tflm_free_tensor(n, i);
    pl_tflm_free_tensor(n, f);
}

static void conv_prepare(pl_tflm_node *n)
{
    conv_like_prepare(n, false);
}

static void depthwise_prepare(pl_tflm_node *n)
{
    conv_like_prepare(n, true);
}

/* --- FULLY_CONNECTED --- */

static void fc_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, 72); /* OpDataFullyConnected, buffer indices, kernel sums, sizes */
}

/* Input, filter, bias, output; the reference op data's per-channel arrays; then an int8
** layer that can run as a 1x1 convolution (output rank above 2, depth a multiple of 4)
** fakes per-channel quantization in scratch, while the plain int8 kernel on Helium keeps
** the kernel sums of constant weights (persistent) or asks for them as scratch. */
static void fc_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor in, filter, bias, out;
    int32_t t[4] = {pl_tflm_temp_input(n, 0), pl_tflm_temp_input(n, 1),
                    pl_tflm_temp_input(n, 2), pl_tflm_temp_output(n, 0)};
    pl_tflm_tensor_of(n, t[0], &in);
    pl_tflm_tensor_of(n, t[1], &filter);
    pl_tflm_tensor_of(n, t[2], &bias);
    pl_tflm_tensor_of(n, t[3], &out);
    bool per_channel = in.type != PL_FLOAT32 && filter.channels > 1;
    if (per_channel) {
        pl_tflm_persistent(n, 4 * filter.channels);
        pl_tflm_persistent(n, 4 * filter.channels);
    }
    if (in.type == PL_INT8 && filter.type != PL_INT4) {
        int32_t depth = last_dim(&out);
        if (out.ndims > 2 && last_dim(&filter) % 4 == 0) {
            if (!per_channel)
                pl_tflm_scratch(n, (uint32_t)depth * 8u);
        } else if (mve(n)) {
            uint32_t sums = (uint32_t)depth * 4u;
            if (sums > 0 && constant(&filter) && constant(&bias))
                pl_tflm_persistent(n, sums);
            else if (sums > 0)
                pl_tflm_scratch(n, sums);
        }
    }
    pl_tflm_free_tensor(n, t[3]);
    pl_tflm_free_tensor(n, t[0]);
    pl_tflm_free_tensor(n, t[1]);
    pl_tflm_free_tensor(n, t[2]);
}

/* --- TRANSPOSE_CONV: inputs are (output shape, filter, input, bias) --- */

static void transpose_conv_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, 76);
}

/* arm_transpose_conv_s8_get_buffer_size and its reversed convolution's output buffer: strides
** of at most 2 over more than 16 input channels run as a convolution over the upsampled
** input; otherwise a column buffer (whose width takes the larger of the filter's width and
** the *height* stride, as CMSIS-NN 4ab83cc computes it). */
void pl_tflm_cmsis_nn_transpose_conv_scratch(pl_tflm_node *n, const pl_tflm_tensor *in,
                                             const pl_tflm_tensor *filter,
                                             const pl_tflm_tensor *out)
{
    const pl_table *o = &n->op.options;
    int32_t stride_w = pl_table_i32(o, TRANSPOSE_CONV_STRIDE_W, 0);
    int32_t stride_h = pl_table_i32(o, TRANSPOSE_CONV_STRIDE_H, 0);
    int32_t in_c = dim(in, 3), filter_h = dim(filter, 1), filter_w = dim(filter, 2);
    bool reverse = stride_w <= 2 && stride_h <= 2 && in_c > REVERSE_CONV_MIN_CHANNELS;
    int32_t columns = 0, reversed_out = 0;
    if (reverse) {
        conv_shape s = {.in_c = in_c, .filter_w = filter_w, .filter_h = filter_h};
        columns = convolve_s8_size(n, &s);
        reversed_out = in_c * filter_w * filter_h * dim(filter, 0);
    } else {
        int32_t x = ((dim(in, 2) - 1) * stride_w + MAX(filter_w, stride_h)) * dim(out, 3);
        columns = x * MAX(filter_h, stride_h) * 4;
    }
    pl_tflm_scratch(n, (uint32_t)columns);
    pl_tflm_scratch(n, (uint32_t)reversed_out); /* requested even when empty */
}

/* --- BATCH_MATMUL --- */

#define BATCH_MATMUL_ADJ_X 0
#define BATCH_MATMUL_ADJ_Y 1

static void batch_matmul_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, 36); /* OpDataBatchMatmul, the output's dims, a buffer index */
}

static void transposed_copy(pl_tflm_node *n, const pl_tflm_tensor *t)
{
    uint32_t bytes = t->type == PL_FLOAT32 ? 4u : t->type == PL_INT16 ? 2u : 1u;
    pl_tflm_persistent(n, n->p->abi->eval_tensor.size);
    pl_tflm_persistent(n, 4u + 4u * (uint32_t)t->ndims);
    pl_tflm_persistent(n, (uint32_t)t->elements * bytes);
}

/* The transposed copies and the output's dims as the reference makes them, then the
** quantization record; Helium's int8 kernel asks for the output columns' sums. */
static void batch_matmul_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor lhs, rhs, out;
    int32_t l = pl_tflm_temp_input(n, 0), r = pl_tflm_temp_input(n, 1);
    int32_t o = pl_tflm_temp_output(n, 0);
    pl_tflm_tensor_of(n, l, &lhs);
    pl_tflm_tensor_of(n, r, &rhs);
    pl_tflm_tensor_of(n, o, &out);
    if (pl_table_bool(&n->op.options, BATCH_MATMUL_ADJ_X, false))
        transposed_copy(n, &lhs);
    if (!pl_table_bool(&n->op.options, BATCH_MATMUL_ADJ_Y, false))
        transposed_copy(n, &rhs);
    pl_tflm_dims_copy(n, o);
    if (lhs.type != PL_FLOAT32 && rhs.type != PL_FLOAT32) {
        pl_tflm_persistent(n, 28);
        if (lhs.type == PL_INT8 && mve(n) && last_dim(&out) > 0)
            pl_tflm_scratch(n, (uint32_t)last_dim(&out) * 4u);
    }
    pl_tflm_free_tensor(n, o);
    pl_tflm_free_tensor(n, l);
    pl_tflm_free_tensor(n, r);
}

/* --- pools --- */

static void pool_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, 36); /* OpDataPooling and a buffer index */
}

static void max_pool_prepare(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 1, 1);
}

/* The reference prepare, then input and output again: a DSP core's quantized average pool
** sums a row of channels in int32 scratch. */
static void average_pool_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor in, out;
    pl_tflm_temps_io(n, 1, 1);
    int32_t i = pl_tflm_temp_input(n, 0), o = pl_tflm_temp_output(n, 0);
    pl_tflm_tensor_of(n, i, &in);
    pl_tflm_tensor_of(n, o, &out);
    if ((in.type == PL_INT8 || in.type == PL_INT16) && dsp(n) && dim(&out, 3) > 0)
        pl_tflm_scratch(n, (uint32_t)dim(&out, 3) * 4u);
    pl_tflm_free_tensor(n, o);
    pl_tflm_free_tensor(n, i);
}

/* --- SOFTMAX --- */

static void softmax_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, 64); /* SoftmaxParams, rows and row size */
}

static void softmax_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor in;
    int32_t i = pl_tflm_temp_input(n, 0), o = pl_tflm_temp_output(n, 0);
    pl_tflm_tensor_of(n, i, &in);
    if (in.type == PL_INT16) { /* the exp and 1/(1+x) tables */
        pl_tflm_persistent(n, 2u * 513u);
        pl_tflm_persistent(n, 2u * 513u);
    }
    pl_tflm_free_tensor(n, i);
    pl_tflm_free_tensor(n, o);
}

/* --- SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM: the reference prepares (kernels_state.c) know
** CMSIS-NN's extra persistent data; only the op data differ --- */

static void svdf_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, 40);
}

static void lstm_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, 912); /* OpDataLSTM and cmsis_nn_lstm_params */
}

static const pl_tflm_kernel entries[] = {
    {OP_FULLY_CONNECTED, NULL, PL_TFLM_PARAMS_FULLY_CONNECTED, fc_init, fc_prepare},
    {OP_CONV_2D, NULL, PL_TFLM_PARAMS_CONV, conv_init, conv_prepare},
    {OP_DEPTHWISE_CONV_2D, NULL, PL_TFLM_PARAMS_CONV, conv_init, depthwise_prepare},
    {OP_TRANSPOSE_CONV, NULL, PL_TFLM_PARAMS_TRANSPOSE_CONV, transpose_conv_init,
     pl_tflm_transpose_conv_prepare},
    {OP_BATCH_MATMUL, NULL, PL_TFLM_PARAMS_BATCH_MATMUL, batch_matmul_init, batch_matmul_prepare},
    {OP_AVERAGE_POOL_2D, NULL, PL_TFLM_PARAMS_POOL, pool_init, average_pool_prepare},
    {OP_MAX_POOL_2D, NULL, PL_TFLM_PARAMS_POOL, pool_init, max_pool_prepare},
    {OP_SOFTMAX, NULL, PL_TFLM_PARAMS_SOFTMAX, softmax_init, softmax_prepare},
    {OP_SVDF, NULL, PL_TFLM_PARAMS_SVDF, svdf_init, pl_tflm_svdf_prepare},
    {OP_UNIDIRECTIONAL_SEQUENCE_LSTM, NULL, PL_TFLM_PARAMS_LSTM, lstm_init, pl_tflm_lstm_prepare},
};

const pl_tflm_kernel_set pl_tflm_kernels_cmsis_nn = {entries, sizeof entries / sizeof entries[0]};
