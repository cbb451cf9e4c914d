/* picolite.h - the umbrella header of the picolite C runtime. */
#ifndef PICOLITE_H
#define PICOLITE_H

#include "pl_status.h"
#include "pl_types.h"
#include "pl_view.h"
#include "pl_plan.h"
#include "pl_kernel.h"
#include "pl_interp.h"

#define PL_VERSION_MAJOR 0
#define PL_VERSION_MINOR 1
#define PL_VERSION_PATCH 0
#define PL_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/* The builtin kernels as a resolver. */
const pl_resolver *pl_builtin_resolver(void);

#ifdef __cplusplus
}
#endif

#endif
