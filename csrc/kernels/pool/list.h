/* list.h - the pool family's kernels: name, BuiltinOperator code, registration prefix.
** registry.h joins every family's list; keep each sorted by name. */
#ifndef PL_KERNELS_POOL_LIST_H
#define PL_KERNELS_POOL_LIST_H

#define PL_POOL_KERNELS(X) \
    X(AVERAGE_POOL_2D, 1, pooling_avg) \
    X(L2_POOL_2D, 12, l2_pool) \
    X(MAX_POOL_2D, 17, pooling_max) \

#endif
