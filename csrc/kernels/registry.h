/* registry.h - every builtin kernel's registration function (pl_<op>_registration). */
#ifndef PL_KERNELS_REGISTRY_H
#define PL_KERNELS_REGISTRY_H

#include "picolite/pl_kernel.h"

/* One line per operator; registry.c maps builtin codes to these. Keep sorted by name. */
#define PL_KERNEL_LIST(X) \
    /* X(ADD, 0, add) -- name, BuiltinOperator code, file prefix */ \
    X(ABS, 101, abs) \
    X(ADD, 0, add) \
    X(AVERAGE_POOL_2D, 1, pooling_avg) \
    X(BATCH_MATMUL, 126, batch_matmul) \
    X(CAST, 53, cast) \
    X(CONCATENATION, 2, concatenation) \
    X(CONV_2D, 3, conv) \
    X(DEPTHWISE_CONV_2D, 4, depthwise_conv) \
    X(DEQUANTIZE, 6, dequantize) \
    X(DIV, 42, div) \
    X(EXPAND_DIMS, 70, expand_dims) \
    X(FULLY_CONNECTED, 9, fully_connected) \
    X(HARD_SWISH, 117, hard_swish) \
    X(LEAKY_RELU, 98, leaky_relu) \
    X(LOGISTIC, 14, logistic) \
    X(MAXIMUM, 55, maximum) \
    X(MAX_POOL_2D, 17, pooling_max) \
    X(MEAN, 40, reduce_mean) \
    X(MINIMUM, 57, minimum) \
    X(MUL, 18, mul) \
    X(PACK, 83, pack) \
    X(PAD, 34, pad) \
    X(PADV2, 60, padv2) \
    X(PRELU, 54, prelu) \
    X(QUANTIZE, 114, quantize) \
    X(RELU, 19, relu) \
    X(RELU6, 21, relu6) \
    X(RELU_N1_TO_1, 20, relu_n1_to_1) \
    X(RESHAPE, 22, reshape) \
    X(SOFTMAX, 25, softmax) \
    X(SPLIT, 49, split) \
    X(SPLIT_V, 102, split_v) \
    X(SQUEEZE, 43, squeeze) \
    X(STRIDED_SLICE, 45, strided_slice) \
    X(SUB, 41, sub) \
    X(SUM, 74, reduce_sum) \
    X(SVDF, 27, svdf) \
    X(TANH, 28, tanh) \
    X(TRANSPOSE, 39, transpose) \
    X(TRANSPOSE_CONV, 67, transpose_conv) \
    X(UNIDIRECTIONAL_SEQUENCE_LSTM, 44, unidirectional_sequence_lstm) \
    X(UNPACK, 88, unpack) \

#define PL_DECLARE_REGISTRATION(name, code, prefix) \
    const pl_registration *pl_##prefix##_registration(void);
PL_KERNEL_LIST(PL_DECLARE_REGISTRATION)
#undef PL_DECLARE_REGISTRATION

#endif
