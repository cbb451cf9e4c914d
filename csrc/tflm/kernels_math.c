/* kernels_math.c - TFLM's reference kernels for elementwise math and activations.
**
** Most take their inputs and output as temp tensors in prepare and keep their rescaling in
** op data made at init; a few have no prepare at all (MAXIMUM, MINIMUM, NEG, FLOOR,
** LOGICAL_AND/OR). ADD_N's op data is made in prepare, for int8 only. */
#include "tflm/kernels.h"

#include "tflm/ops.h"

static void unary(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 1, 1);
}

static void binary(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 2, 1);
}

/* Comparisons read their inputs' quantization only. */
static void two_inputs(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 2, 0);
}

static void three_in(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 3, 1);
}

static void input_only(pl_tflm_node *n)
{
    pl_tflm_temps_io(n, 1, 0);
}

/* TANH: the input, then CalculateArithmeticOpData's input and output on top. */
static void tanh_prepare(pl_tflm_node *n)
{
    int32_t i = pl_tflm_temp_input(n, 0);
    unary(n);
    pl_tflm_free_tensor(n, i);
}

/* ADD_N: the first input and the output, each other input in turn; a pointer per input
** as scratch (and op data, for int8). */
static void add_n_prepare(pl_tflm_node *n)
{
    pl_tflm_tensor out;
    int32_t first = pl_tflm_temp_input(n, 0), o = pl_tflm_temp_output(n, 0);
    for (uint32_t k = 1; k < n->op.inputs.n; k++)
        pl_tflm_free_tensor(n, pl_tflm_temp_input(n, k));
    pl_tflm_tensor_of(n, o, &out);
    if (out.type == PL_INT8)
        pl_tflm_persistent(n, W(40, 28));
    if (out.type == PL_INT8 || out.type == PL_FLOAT32)
        pl_tflm_scratch(n, n->p->abi->word * n->op.inputs.n);
    pl_tflm_free_tensor(n, first);
    pl_tflm_free_tensor(n, o);
}

#define OP_DATA_INIT(name, m4, wheel)         \
    static void name(pl_tflm_node *n)         \
    {                                         \
        pl_tflm_persistent(n, W(m4, wheel));  \
    }

OP_DATA_INIT(add_init, 60, 60)
OP_DATA_INIT(sub_init, 52, 52)
OP_DATA_INIT(mul_init, 36, 36)
OP_DATA_INIT(div_init, 28, 28)
OP_DATA_INIT(squared_difference_init, 112, 112)
OP_DATA_INIT(comparison_init, 32, 32)
OP_DATA_INIT(abs_rsqrt_init, 28, 28)
OP_DATA_INIT(relu_init, 28, 28)
OP_DATA_INIT(relu6_init, 8, 8)
OP_DATA_INIT(leaky_relu_init, 24, 24)
OP_DATA_INIT(prelu_init, 28, 28)
OP_DATA_INIT(logistic_init, 16, 16)
OP_DATA_INIT(tanh_init, 16, 16)
OP_DATA_INIT(hard_swish_init, 20, 20)
OP_DATA_INIT(elu_init, 256, 256)
OP_DATA_INIT(quantize_init, 32, 32)
OP_DATA_INIT(dequantize_init, 32, 32)
OP_DATA_INIT(select_init, 1, 1)

#define NONE {{0, 0}, {0, 0}}

static const pl_tflm_kernel entries[] = {
    {OP_ADD, NULL, {{2, 1}, {8, 4}}, add_init, binary},
    {OP_SUB, NULL, {{2, 1}, {8, 4}}, sub_init, binary},
    {OP_MUL, NULL, {{1, 1}, {4, 4}}, mul_init, binary},
    {OP_DIV, NULL, {{1, 1}, {4, 4}}, div_init, binary},
    {OP_SQUARED_DIFFERENCE, NULL, NONE, squared_difference_init, binary},
    {OP_MAXIMUM, NULL, NONE, NULL, NULL},
    {OP_MINIMUM, NULL, NONE, NULL, NULL},
    {OP_FLOOR_DIV, NULL, NONE, NULL, binary},
    {OP_FLOOR_MOD, NULL, NONE, NULL, binary},
    {OP_EQUAL, NULL, NONE, comparison_init, two_inputs},
    {OP_NOT_EQUAL, NULL, NONE, comparison_init, two_inputs},
    {OP_GREATER, NULL, NONE, comparison_init, two_inputs},
    {OP_GREATER_EQUAL, NULL, NONE, comparison_init, two_inputs},
    {OP_LESS, NULL, NONE, comparison_init, two_inputs},
    {OP_LESS_EQUAL, NULL, NONE, comparison_init, two_inputs},
    {OP_LOGICAL_AND, NULL, NONE, NULL, NULL},
    {OP_LOGICAL_OR, NULL, NONE, NULL, NULL},
    {OP_LOGICAL_NOT, NULL, NONE, NULL, unary},
    {OP_ABS, NULL, NONE, abs_rsqrt_init, unary},
    {OP_RSQRT, NULL, NONE, abs_rsqrt_init, unary},
    {OP_SIN, NULL, NONE, NULL, unary},
    {OP_COS, NULL, NONE, NULL, unary},
    {OP_LOG, NULL, NONE, NULL, unary},
    {OP_SQRT, NULL, NONE, NULL, unary},
    {OP_SQUARE, NULL, NONE, NULL, unary},
    {OP_EXP, NULL, NONE, NULL, unary},
    {OP_NEG, NULL, NONE, NULL, NULL},
    {OP_FLOOR, NULL, NONE, NULL, NULL},
    {OP_CEIL, NULL, NONE, NULL, unary},
    {OP_ROUND, NULL, NONE, NULL, unary},
    {OP_RELU, NULL, NONE, relu_init, unary},
    {OP_RELU6, NULL, NONE, relu6_init, input_only},
    {OP_LEAKY_RELU, NULL, {{4, 4}, {4, 4}}, leaky_relu_init, unary},
    {OP_PRELU, NULL, NONE, prelu_init, binary},
    {OP_LOGISTIC, NULL, NONE, logistic_init, unary},
    {OP_TANH, NULL, NONE, tanh_init, tanh_prepare},
    {OP_HARD_SWISH, NULL, NONE, hard_swish_init, unary},
    {OP_ELU, NULL, NONE, elu_init, unary},
    {OP_QUANTIZE, NULL, NONE, quantize_init, unary},
    {OP_DEQUANTIZE, NULL, NONE, dequantize_init, unary},
    {OP_CAST, NULL, {{2, 1}, {8, 4}}, NULL, unary},
    {OP_ADD_N, NULL, NONE, NULL, add_n_prepare},
    {OP_SELECT_V2, NULL, NONE, select_init, three_in},
    {OP_ZEROS_LIKE, NULL, NONE, NULL, unary},
    {OP_FILL, NULL, NONE, NULL, binary},
};

const pl_tflm_kernel_set pl_tflm_kernels_math = {entries, sizeof entries / sizeof entries[0]};
