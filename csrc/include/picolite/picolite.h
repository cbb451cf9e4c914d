/* picolite.h - the umbrella header of the picolite C runtime. */
#ifndef PICOLITE_H
#define PICOLITE_H

#include "pl_status.h"
#include "pl_types.h"
#include "pl_view.h"
#include "pl_plan.h"
#include "pl_kernel.h"
#include "pl_interp.h"
#include "pl_target.h"
#include "pl_tflm.h"

#define PL_VERSION_MAJOR 0
#define PL_VERSION_MINOR 1
#define PL_VERSION_PATCH 0
#define PL_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/* The builtin kernels as a resolver. */
const pl_resolver *pl_builtin_resolver(void);

/* The operators the builtin resolver runs: pl_builtin_op_count() entries, builtins by their
** BuiltinOperator name ("CONV_2D", *builtin_code its code) in registry order, then CUSTOM
** ones by their TFLM name (*builtin_code 32). Names are static strings; an index past the
** end gives NULL and -1. */
uint32_t pl_builtin_op_count(void);
const char *pl_builtin_op(uint32_t index, int32_t *builtin_code);

#ifdef __cplusplus
}
#endif

#endif
