/* registry.h - every builtin kernel's registration function (pl_<op>_registration). */
#ifndef PL_KERNELS_REGISTRY_H
#define PL_KERNELS_REGISTRY_H

#include "picolite/pl_kernel.h"

/* One line per operator; registry.c maps builtin codes to these. Keep sorted by name. */
#define PL_KERNEL_LIST(X) \
    /* X(ADD, 0, add) -- name, BuiltinOperator code, file prefix */ \
    X(ADD, 0, add) \
    X(CONV_2D, 3, conv) \
    X(DEPTHWISE_CONV_2D, 4, depthwise_conv) \
    X(MUL, 18, mul) \
    X(SUB, 41, sub) \

#define PL_DECLARE_REGISTRATION(name, code, prefix) \
    const pl_registration *pl_##prefix##_registration(void);
PL_KERNEL_LIST(PL_DECLARE_REGISTRATION)
#undef PL_DECLARE_REGISTRATION

#endif
