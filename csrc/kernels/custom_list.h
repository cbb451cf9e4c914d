/* custom_list.h - every CUSTOM operator picolite runs, by the name TFLM registers it under:
** X("name", prefix) for pl_<prefix>_registration(). Empty until a family adds its list. */
#ifndef PL_KERNELS_CUSTOM_LIST_H
#define PL_KERNELS_CUSTOM_LIST_H

#define PL_CUSTOM_KERNEL_LIST(X)

#endif
