/* kernels_nn.c - TFLM's reference kernels for the network layers: their arena footprint.
**
** Convolutions (CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV), FULLY_CONNECTED, BATCH_MATMUL,
** the pools, SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION. Each prepare lists TFLM's temp tensors
** in its order (a convolution's CalculateOpData takes its own set on top of the prepare's),
** its persistent buffers and its scratch requests. */
#include "tflm/kernels.h"

#include "tflm/ops.h"

#define INT16_LUT_BYTES (2u * 513u) /* LUTSize<int16_t>() entries of int16 */

/* --- FULLY_CONNECTED (OpDataFullyConnected) --- */

static void fc_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(48, 72));
}

/* CalculateOpDataFullyConnected: per-channel multipliers and shifts for a quantized input
** whose filter has more than one scale. */
static void per_channel(pl_tflm_node *n, uint32_t channels)
{
    pl_tflm_persistent(n, 4 * channels);
    pl_tflm_persistent(n, 4 * channels);
}

static void fc_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor in, filter;
    int32_t t[4] = {pl_tflm_temp_input(n, 0), pl_tflm_temp_input(n, 1),
                    pl_tflm_temp_input(n, 2), pl_tflm_temp_output(n, 0)};
    pl_tflm_tensor_of(n, t[0], &in);
    pl_tflm_tensor_of(n, t[1], &filter);
    if (filter.type == PL_INT4)
        pl_tflm_scratch(n, (uint32_t)filter.elements);
    if (in.type != PL_FLOAT32 && filter.channels > 1)
        per_channel(n, filter.channels);
    for (int i = 0; i < 4; i++)
        pl_tflm_free_tensor(n, t[i]);
}

/* --- CONV_2D, DEPTHWISE_CONV_2D (OpDataConv) --- */

static void conv_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(56, 80));
}

/* CalculateOpDataConv / CalculateOpDataDepthwiseConv: the four tensors again. */
static void conv_op_data(pl_tflm_node *n)
{
    int32_t t[4] = {pl_tflm_temp_input(n, 0), pl_tflm_temp_input(n, 1),
                    pl_tflm_temp_input(n, 2), pl_tflm_temp_output(n, 0)};
    for (int i = 0; i < 4; i++)
        pl_tflm_free_tensor(n, t[i]);
}

/* Output, input and filter; multipliers and shifts for the filter's output channels (its
** dimension 0 for CONV_2D, 3 for DEPTHWISE_CONV_2D), whatever the type; an int4 filter's
** unpacked copy as scratch. */
static void conv_like_prepare(pl_tflm_node *n, int channel_dim, bool op_data_last)
{
    pl_tflm_tensor filter;
    int32_t out = pl_tflm_temp_output(n, 0), in = pl_tflm_temp_input(n, 0);
    int32_t f = pl_tflm_temp_input(n, 1);
    pl_tflm_tensor_of(n, f, &filter);
    uint32_t channels = filter.ndims > channel_dim ? (uint32_t)filter.dims[channel_dim] : 0;
    pl_tflm_persistent(n, 4 * channels);
    pl_tflm_persistent(n, 4 * channels);
    if (!op_data_last)
        conv_op_data(n);
    if (filter.type == PL_INT4)
        pl_tflm_scratch(n, (uint32_t)filter.elements);
    if (op_data_last)
        conv_op_data(n);
    pl_tflm_free_tensor(n, f);
    pl_tflm_free_tensor(n, in);
    pl_tflm_free_tensor(n, out);
}

static void conv_prepare(pl_tflm_node *n)
{
    conv_like_prepare(n, 0, false);
}

static void depthwise_prepare(pl_tflm_node *n)
{
    conv_like_prepare(n, 3, true);
}

/* --- TRANSPOSE_CONV: inputs are (output shape, filter, input, bias) --- */

static void transpose_conv_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(72, 88));
}

/* CalculateOpData for a quantized input: input, filter, bias, output; an int16 bias is
** widened to int64 in scratch. */
void pl_tflm_transpose_conv_op_data(pl_tflm_node *n, pl_type type)
{
    pl_tflm_tensor bias;
    if (type == PL_FLOAT32)
        return;
    int32_t t[4] = {pl_tflm_temp_input(n, 2), pl_tflm_temp_input(n, 1),
                    pl_tflm_temp_input(n, 3), pl_tflm_temp_output(n, 0)};
    pl_tflm_tensor_of(n, t[2], &bias);
    if (type == PL_INT16 && bias.index >= 0 && bias.type == PL_INT16)
        pl_tflm_scratch(n, (uint32_t)bias.elements * 8u);
    for (int i = 0; i < 4; i++)
        pl_tflm_free_tensor(n, t[i]);
}

void pl_tflm_transpose_conv_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor in, filter, out;
    int32_t o = pl_tflm_temp_output(n, 0), i = pl_tflm_temp_input(n, 2);
    int32_t f = pl_tflm_temp_input(n, 1);
    pl_tflm_tensor_of(n, i, &in);
    pl_tflm_tensor_of(n, f, &filter);
    pl_tflm_tensor_of(n, o, &out);
    uint32_t channels = filter.ndims > 0 ? (uint32_t)filter.dims[0] : 0;
    pl_tflm_persistent(n, 4 * channels);
    pl_tflm_persistent(n, 4 * channels);
    if (in.type == PL_INT8 && pl_tflm_cmsis_nn(n))
        pl_tflm_cmsis_nn_transpose_conv_scratch(n, &in, &filter, &out);
    else if (in.type == PL_INT8)
        pl_tflm_scratch(n, (uint32_t)out.elements * 4u);
    if (in.type == PL_INT16)
        pl_tflm_scratch(n, (uint32_t)out.elements * 8u);
    pl_tflm_transpose_conv_op_data(n, in.type);
    pl_tflm_free_tensor(n, o);
    pl_tflm_free_tensor(n, i);
    pl_tflm_free_tensor(n, f);
}

/* --- BATCH_MATMUL --- */

#define BATCH_MATMUL_ADJ_X 0
#define BATCH_MATMUL_ADJ_Y 1

static void batch_matmul_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(16, 32));
}

static uint32_t type_bytes(pl_type type)
{
    return type == PL_FLOAT32 ? 4u : type == PL_INT16 ? 2u : 1u;
}

/* AllocInitTransposeTensorFromTfLiteTensor: an eval tensor, its dims, its data. */
static void transposed_copy(pl_tflm_node *n, const pl_tflm_tensor *t)
{
    pl_tflm_persistent(n, n->p->abi->eval_tensor.size);
    pl_tflm_persistent(n, 4u + 4u * (uint32_t)t->ndims);
    pl_tflm_persistent(n, (uint32_t)t->elements * type_bytes(t->type));
}

static void batch_matmul_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor lhs, rhs;
    int32_t l = pl_tflm_temp_input(n, 0), r = pl_tflm_temp_input(n, 1);
    int32_t o = pl_tflm_temp_output(n, 0);
    pl_tflm_tensor_of(n, l, &lhs);
    pl_tflm_tensor_of(n, r, &rhs);
    if (lhs.type == PL_INT8 || lhs.type == PL_INT16)
        pl_tflm_persistent(n, 28);
    if (pl_table_bool(&n->op.options, BATCH_MATMUL_ADJ_X, false))
        transposed_copy(n, &lhs);
    if (!pl_table_bool(&n->op.options, BATCH_MATMUL_ADJ_Y, false))
        transposed_copy(n, &rhs);
    pl_tflm_dims_copy(n, o); /* ReshapeOutputTensor */
    pl_tflm_free_tensor(n, l);
    pl_tflm_free_tensor(n, r);
    pl_tflm_free_tensor(n, o);
}

/* --- pools --- */

static void pool_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(32, 32));
}

static void input_output(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 1, 1);
}

/* L2_POOL_2D: output, input, the output's dims copied. */
static void l2_pool_prepare(pl_tflm_node *n)
{
    int32_t o = pl_tflm_temp_output(n, 0), i = pl_tflm_temp_input(n, 0);
    pl_tflm_dims_copy(n, o);
    pl_tflm_free_tensor(n, o);
    pl_tflm_free_tensor(n, i);
}

/* --- SOFTMAX (SoftmaxParams), LOG_SOFTMAX, L2_NORMALIZATION --- */

static void softmax_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(56, 80));
}

/* InitializeLutForInt16: the exp and 1/(1+x) tables of an int16 input. */
static void softmax_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor in;
    int32_t i = pl_tflm_temp_input(n, 0), o = pl_tflm_temp_output(n, 0);
    pl_tflm_tensor_of(n, i, &in);
    if (in.type == PL_INT16) {
        pl_tflm_persistent(n, INT16_LUT_BYTES);
        pl_tflm_persistent(n, INT16_LUT_BYTES);
    }
    pl_tflm_free_tensor(n, i);
    pl_tflm_free_tensor(n, o);
}

/* LOG_SOFTMAX: op data for int8 only, made in prepare. */
static void log_softmax_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor in;
    int32_t i = pl_tflm_temp_input(n, 0), o = pl_tflm_temp_output(n, 0);
    pl_tflm_tensor_of(n, i, &in);
    if (in.type == PL_INT8)
        pl_tflm_persistent(n, W(28, 40));
    pl_tflm_free_tensor(n, i);
    pl_tflm_free_tensor(n, o);
}

static void l2norm_init(pl_tflm_node *n)
{
    pl_tflm_persistent(n, W(4, 4));
}

static const pl_tflm_kernel entries[] = {
    {OP_FULLY_CONNECTED, NULL, PL_TFLM_PARAMS_FULLY_CONNECTED, fc_init, fc_prepare},
    {OP_CONV_2D, NULL, PL_TFLM_PARAMS_CONV, conv_init, conv_prepare},
    {OP_DEPTHWISE_CONV_2D, NULL, PL_TFLM_PARAMS_CONV, conv_init, depthwise_prepare},
    {OP_TRANSPOSE_CONV, NULL, PL_TFLM_PARAMS_TRANSPOSE_CONV, transpose_conv_init,
     pl_tflm_transpose_conv_prepare},
    {OP_BATCH_MATMUL, NULL, PL_TFLM_PARAMS_BATCH_MATMUL, batch_matmul_init, batch_matmul_prepare},
    {OP_AVERAGE_POOL_2D, NULL, PL_TFLM_PARAMS_POOL, pool_init, input_output},
    {OP_MAX_POOL_2D, NULL, PL_TFLM_PARAMS_POOL, pool_init, input_output},
    {OP_L2_POOL_2D, NULL, PL_TFLM_PARAMS_POOL, NULL, l2_pool_prepare},
    {OP_SOFTMAX, NULL, PL_TFLM_PARAMS_SOFTMAX, softmax_init, softmax_prepare},
    {OP_LOG_SOFTMAX, NULL, {{0, 0}, {0, 0}}, NULL, log_softmax_prepare},
    {OP_L2_NORMALIZATION, NULL, {{1, 1}, {4, 4}}, l2norm_init, input_output},
};

const pl_tflm_kernel_set pl_tflm_kernels_nn = {entries, sizeof entries / sizeof entries[0]};
