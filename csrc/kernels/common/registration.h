/* registration.h - pl_<prefix>_registration() for the operators of one file that share its
** op data (user_data_size bytes), prepare and invoke and tell themselves apart by
** node->builtin_code. */
#ifndef PL_KERNELS_COMMON_REGISTRATION_H
#define PL_KERNELS_COMMON_REGISTRATION_H

#include "picolite/pl_kernel.h"

#define PL_SHARED_REGISTRATION(prefix, NAME, code, user_data_size, prepare, invoke)         \
    const pl_registration *pl_##prefix##_registration(void)                                 \
    {                                                                                       \
        static const pl_registration r = {NAME,   code, NULL, NULL, prepare, invoke, NULL,    \
                                          user_data_size};                                  \
        return &r;                                                                          \
    }

#endif
