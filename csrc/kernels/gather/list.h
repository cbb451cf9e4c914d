/* list.h - the gather family's kernels (index-driven reads and scans along an axis): name,
** BuiltinOperator code, registration prefix. registry.h joins every family's list; keep
** each sorted by name. */
#ifndef PL_KERNELS_GATHER_LIST_H
#define PL_KERNELS_GATHER_LIST_H

#define PL_GATHER_KERNELS(X) \
    X(ARG_MAX, 56, arg_max) \
    X(ARG_MIN, 79, arg_min) \
    X(CUMSUM, 128, cumsum) \
    X(EMBEDDING_LOOKUP, 7, embedding_lookup) \
    X(GATHER, 36, gather) \
    X(GATHER_ND, 107, gather_nd) \

#endif
