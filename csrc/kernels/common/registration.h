/* registration.h - pl_<prefix>_registration() for the operators of one file that share its
** init, prepare and invoke and tell themselves apart by node->builtin_code. */
#ifndef PL_KERNELS_COMMON_REGISTRATION_H
#define PL_KERNELS_COMMON_REGISTRATION_H

#include "picolite/pl_kernel.h"

#define PL_SHARED_REGISTRATION(prefix, NAME, code, init, prepare, invoke)                   \
    const pl_registration *pl_##prefix##_registration(void)                                 \
    {                                                                                       \
        static const pl_registration r = {NAME, code, init, NULL, prepare, invoke, NULL};    \
        return &r;                                                                          \
    }

#endif
