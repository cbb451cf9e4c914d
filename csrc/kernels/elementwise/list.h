/* list.h - the elementwise family's kernels: name, BuiltinOperator code, registration prefix.
** registry.h joins every family's list; keep each sorted by name. */
#ifndef PL_KERNELS_ELEMENTWISE_LIST_H
#define PL_KERNELS_ELEMENTWISE_LIST_H

#define PL_ELEMENTWISE_KERNELS(X) \
    X(ABS, 101, abs) \
    X(ADD, 0, add) \
    X(ADD, 0, add) \
    X(DIV, 42, div) \
    X(MAXIMUM, 55, maximum) \
    X(MINIMUM, 57, minimum) \
    X(MUL, 18, mul) \
    X(SUB, 41, sub) \

#endif
