/* list.h - the compare family's kernels: name, BuiltinOperator code, registration prefix.
** registry.h joins every family's list; keep each sorted by name. */
#ifndef PL_KERNELS_COMPARE_LIST_H
#define PL_KERNELS_COMPARE_LIST_H

#define PL_COMPARE_KERNELS(X) \
    X(EQUAL, 71, equal) \
    X(GREATER, 61, greater) \
    X(GREATER_EQUAL, 62, greater_equal) \
    X(LESS, 58, less) \
    X(LESS_EQUAL, 63, less_equal) \
    X(LOGICAL_AND, 86, logical_and) \
    X(LOGICAL_NOT, 87, logical_not) \
    X(LOGICAL_OR, 84, logical_or) \
    X(NOT_EQUAL, 72, not_equal) \
    X(SELECT, 64, select) \
    X(SELECT_V2, 123, select_v2) \

#endif
