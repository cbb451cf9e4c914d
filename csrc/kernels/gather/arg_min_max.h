/* arg_min_max.h - ARG_MAX and ARG_MIN: registrations. */
#ifndef PL_KERNELS_ARG_MIN_MAX_H
#define PL_KERNELS_ARG_MIN_MAX_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_arg_max_registration(void);
const pl_registration *pl_arg_min_registration(void);

#endif
