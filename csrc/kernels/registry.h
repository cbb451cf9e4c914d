/* registry.h - every builtin kernel's registration function (pl_<op>_registration).
**
** Each family folder lists its kernels in list.h as X(NAME, BuiltinOperator code, prefix);
** registry.c maps builtin codes to pl_<prefix>_registration(). A new family adds its list here. */
#ifndef PL_KERNELS_REGISTRY_H
#define PL_KERNELS_REGISTRY_H

#include "picolite/pl_kernel.h"

#include "kernels/activation/list.h"
#include "kernels/compare/list.h"
#include "kernels/control/list.h"
#include "kernels/conv/list.h"
#include "kernels/elementwise/list.h"
#include "kernels/gather/list.h"
#include "kernels/image/list.h"
#include "kernels/pool/list.h"
#include "kernels/quant/list.h"
#include "kernels/recurrent/list.h"
#include "kernels/reduce/list.h"
#include "kernels/shape/list.h"

#define PL_KERNEL_LIST(X) \
    PL_ACTIVATION_KERNELS(X) \
    PL_COMPARE_KERNELS(X) \
    PL_CONTROL_KERNELS(X) \
    PL_CONV_KERNELS(X) \
    PL_ELEMENTWISE_KERNELS(X) \
    PL_GATHER_KERNELS(X) \
    PL_IMAGE_KERNELS(X) \
    PL_POOL_KERNELS(X) \
    PL_QUANT_KERNELS(X) \
    PL_RECURRENT_KERNELS(X) \
    PL_REDUCE_KERNELS(X) \
    PL_SHAPE_KERNELS(X)

#define PL_DECLARE_REGISTRATION(name, code, prefix) \
    const pl_registration *pl_##prefix##_registration(void);
PL_KERNEL_LIST(PL_DECLARE_REGISTRATION)
#undef PL_DECLARE_REGISTRATION

#endif
