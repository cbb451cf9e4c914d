/* broadcast_to.h - BROADCAST_TO and BROADCAST_ARGS: registrations. */
#ifndef PL_KERNELS_BROADCAST_TO_H
#define PL_KERNELS_BROADCAST_TO_H

#include "picolite/pl_kernel.h"

const pl_registration *pl_broadcast_to_registration(void);
const pl_registration *pl_broadcast_args_registration(void);

#endif
