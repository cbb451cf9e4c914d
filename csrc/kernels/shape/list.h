/* list.h - the shape family's kernels: name, BuiltinOperator code, registration prefix.
** registry.h joins every family's list; keep each sorted by name. */
#ifndef PL_KERNELS_SHAPE_LIST_H
#define PL_KERNELS_SHAPE_LIST_H

#define PL_SHAPE_KERNELS(X) \
    X(BATCH_TO_SPACE_ND, 37, batch_to_space_nd) \
    X(BROADCAST_ARGS, 145, broadcast_args) \
    X(BROADCAST_TO, 130, broadcast_to) \
    X(CONCATENATION, 2, concatenation) \
    X(DEPTH_TO_SPACE, 5, depth_to_space) \
    X(DYNAMIC_UPDATE_SLICE, 151, dynamic_update_slice) \
    X(EXPAND_DIMS, 70, expand_dims) \
    X(FILL, 94, fill) \
    X(MIRROR_PAD, 100, mirror_pad) \
    X(PACK, 83, pack) \
    X(PAD, 34, pad) \
    X(PADV2, 60, padv2) \
    X(RESHAPE, 22, reshape) \
    X(REVERSE_V2, 105, reverse_v2) \
    X(SHAPE, 77, shape) \
    X(SLICE, 65, slice) \
    X(SPACE_TO_BATCH_ND, 38, space_to_batch_nd) \
    X(SPACE_TO_DEPTH, 26, space_to_depth) \
    X(SPLIT, 49, split) \
    X(SPLIT_V, 102, split_v) \
    X(SQUEEZE, 43, squeeze) \
    X(STRIDED_SLICE, 45, strided_slice) \
    X(TILE, 69, tile) \
    X(TRANSPOSE, 39, transpose) \
    X(UNPACK, 88, unpack) \

#endif
