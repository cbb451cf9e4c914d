/* list.h - the conv family's kernels: name, BuiltinOperator code, registration prefix.
** registry.h joins every family's list; keep each sorted by name. */
#ifndef PL_KERNELS_CONV_LIST_H
#define PL_KERNELS_CONV_LIST_H

#define PL_CONV_KERNELS(X) \
    X(BATCH_MATMUL, 126, batch_matmul) \
    X(CONV_2D, 3, conv) \
    X(DEPTHWISE_CONV_2D, 4, depthwise_conv) \
    X(FULLY_CONNECTED, 9, fully_connected) \
    X(TRANSPOSE_CONV, 67, transpose_conv) \

#endif
