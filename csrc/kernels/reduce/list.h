/* list.h - the reduce family's kernels: name, BuiltinOperator code, registration prefix.
** registry.h joins every family's list; keep each sorted by name. */
#ifndef PL_KERNELS_REDUCE_LIST_H
#define PL_KERNELS_REDUCE_LIST_H

#define PL_REDUCE_KERNELS(X) \
    X(MEAN, 40, reduce_mean) \
    X(REDUCE_ALL, 140, reduce_all) \
    X(REDUCE_ANY, 91, reduce_any) \
    X(REDUCE_MAX, 82, reduce_max) \
    X(REDUCE_MIN, 89, reduce_min) \
    X(REDUCE_PROD, 81, reduce_prod) \
    X(SUM, 74, reduce_sum) \

#endif
