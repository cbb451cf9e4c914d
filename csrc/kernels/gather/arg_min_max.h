/* arg_min_max.h - ARG_MAX and ARG_MIN: registrations. */
#ifndef PL_KERNELS_ARG_MIN_MAX_H
#define PL_KERNELS_ARG_MIN_MAX_H

#include "kernels/gather/arg_min_max_fast.h" /* the op data, the registrations */
#include "picolite/pl_kernel.h"

#endif
