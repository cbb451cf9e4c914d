/* custom_list.h - every CUSTOM operator picolite runs, by the name TFLM registers it under:
** X("name", prefix) for pl_<prefix>_registration(). The Signal library's list comes from
** signal/list.h; other custom kernels live in kernels/custom/. */
#ifndef PL_KERNELS_CUSTOM_LIST_H
#define PL_KERNELS_CUSTOM_LIST_H

#include "kernels/custom/list.h"
#include "signal/list.h"

#define PL_CUSTOM_KERNEL_LIST(X) \
    PL_CUSTOM_KERNELS(X) \
    PL_SIGNAL_KERNELS(X)

#endif
