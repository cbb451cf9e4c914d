/* variable.h - resource variables as TFLM's kernels: VAR_HANDLE binds its RESOURCE output
** to the variable its options name; ASSIGN_VARIABLE gives the variable a buffer in prepare
** (the value's size, filled with its zero point) and copies the value in at invoke;
** READ_VARIABLE copies the variable out. */
#ifndef PL_KERNELS_VARIABLE_H
#define PL_KERNELS_VARIABLE_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_var_handle_registration(void);
const pl_registration *pl_read_variable_registration(void);
const pl_registration *pl_assign_variable_registration(void);

#endif
