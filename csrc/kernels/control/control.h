/* control.h - control flow between subgraphs as TFLM's kernels: CALL_ONCE runs its init
** subgraph on the first invoke only (again never, reset() included, as TFLM's has_run);
** IF copies its inputs after the condition into the chosen branch, runs it and copies its
** outputs back; WHILE copies its inputs to its outputs, then while the cond subgraph says
** true runs the body on them (at most ctx->loop_budget times per invoke, every loop
** together). */
#ifndef PL_KERNELS_CONTROL_H
#define PL_KERNELS_CONTROL_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_call_once_registration(void);
const pl_registration *pl_if_registration(void);
const pl_registration *pl_while_registration(void);

#endif
