/* list.h - the activation family's kernels: name, BuiltinOperator code, registration prefix.
** registry.h joins every family's list; keep each sorted by name. */
#ifndef PL_KERNELS_ACTIVATION_LIST_H
#define PL_KERNELS_ACTIVATION_LIST_H

#define PL_ACTIVATION_KERNELS(X) \
    X(ELU, 111, elu) \
    X(GELU, 150, gelu) \
    X(HARD_SWISH, 117, hard_swish) \
    X(L2_NORMALIZATION, 11, l2_normalization) \
    X(LEAKY_RELU, 98, leaky_relu) \
    X(LOG_SOFTMAX, 50, log_softmax) \
    X(LOGISTIC, 14, logistic) \
    X(PRELU, 54, prelu) \
    X(RELU, 19, relu) \
    X(RELU6, 21, relu6) \
    X(RELU_N1_TO_1, 20, relu_n1_to_1) \
    X(SOFTMAX, 25, softmax) \
    X(TANH, 28, tanh) \

#endif
