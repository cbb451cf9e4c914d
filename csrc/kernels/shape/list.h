/* list.h - the shape family's kernels: name, BuiltinOperator code, registration prefix.
** registry.h joins every family's list; keep each sorted by name. */
#ifndef PL_KERNELS_SHAPE_LIST_H
#define PL_KERNELS_SHAPE_LIST_H

#define PL_SHAPE_KERNELS(X) \
    X(CONCATENATION, 2, concatenation) \
    X(EXPAND_DIMS, 70, expand_dims) \
    X(PACK, 83, pack) \
    X(PAD, 34, pad) \
    X(PADV2, 60, padv2) \
    X(RESHAPE, 22, reshape) \
    X(SPLIT, 49, split) \
    X(SPLIT_V, 102, split_v) \
    X(SQUEEZE, 43, squeeze) \
    X(STRIDED_SLICE, 45, strided_slice) \
    X(TRANSPOSE, 39, transpose) \
    X(UNPACK, 88, unpack) \

#endif
