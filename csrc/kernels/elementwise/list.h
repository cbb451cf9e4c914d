/* list.h - the elementwise family's kernels: name, BuiltinOperator code, registration prefix.
** registry.h joins every family's list; keep each sorted by name. */
#ifndef PL_KERNELS_ELEMENTWISE_LIST_H
#define PL_KERNELS_ELEMENTWISE_LIST_H

#define PL_ELEMENTWISE_KERNELS(X) \
    X(ABS, 101, abs) \
    X(ADD, 0, add) \
    X(ADD_N, 106, add_n) \
    X(CEIL, 104, ceil) \
    X(COS, 108, cos) \
    X(DIV, 42, div) \
    X(EXP, 47, exp) \
    X(FLOOR, 8, floor) \
    X(FLOOR_DIV, 90, floor_div) \
    X(FLOOR_MOD, 95, floor_mod) \
    X(LOG, 73, log) \
    X(MAXIMUM, 55, maximum) \
    X(MINIMUM, 57, minimum) \
    X(MUL, 18, mul) \
    X(NEG, 59, neg) \
    X(ROUND, 116, round) \
    X(RSQRT, 76, rsqrt) \
    X(SIN, 66, sin) \
    X(SQRT, 75, sqrt) \
    X(SQUARE, 92, square) \
    X(SQUARED_DIFFERENCE, 99, squared_difference) \
    X(SUB, 41, sub) \
    X(ZEROS_LIKE, 93, zeros_like) \

#endif
