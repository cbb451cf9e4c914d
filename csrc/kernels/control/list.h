/* list.h - the control family's kernels: control flow between subgraphs and resource
** variables: name, BuiltinOperator code, registration prefix. Keep it sorted by name. */
#ifndef PL_KERNELS_CONTROL_LIST_H
#define PL_KERNELS_CONTROL_LIST_H

#define PL_CONTROL_KERNELS(X) \
    X(ASSIGN_VARIABLE, 144, assign_variable) \
    X(CALL_ONCE, 129, call_once) \
    X(IF, 118, if) \
    X(READ_VARIABLE, 143, read_variable) \
    X(VAR_HANDLE, 142, var_handle) \
    X(WHILE, 119, while) \

#endif
