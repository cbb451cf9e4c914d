/* list.h - custom operators outside the Signal library, by the name TFLM registers each
** under, X("name", prefix) for pl_<prefix>_registration(). Sorted by name. */
#ifndef PL_KERNELS_CUSTOM_FAMILY_LIST_H
#define PL_KERNELS_CUSTOM_FAMILY_LIST_H

#include "picolite/pl_kernel.h"

#define PL_CUSTOM_KERNELS(X) \
    X("CIRCULAR_BUFFER", circular_buffer) \
    X("TFLM_DECODE", decode) \
    X("TFLite_Detection_PostProcess", detection_postprocess)

#define PL_DECLARE_CUSTOM(name, prefix) const pl_registration *pl_##prefix##_registration(void);
PL_CUSTOM_KERNELS(PL_DECLARE_CUSTOM)
#undef PL_DECLARE_CUSTOM

#endif
