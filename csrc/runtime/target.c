/* target.c - target names and the arithmetic each target's kernels do. */
#include "picolite/pl_target.h"

#include <stdbool.h>
#include <string.h>

static const struct {
    const char *name;
    pl_arith arith;
    bool modelled; /* proven against its firmware: refused otherwise */
} targets[PL_TARGET_COUNT] = { /* the fused multiply-adds: pl_target_fused_madd() */
    [PL_TARGET_PICOLITE] = {"picolite", PL_ARITH_TFLM, true},
    [PL_TARGET_TFLM] = {"tflm", PL_ARITH_TFLM, true},
    [PL_TARGET_TFLM_X86_64] = {"tflm-x86-64", PL_ARITH_TFLM_WIDE, true}, /* the wheel's */
    [PL_TARGET_LITERT] = {"litert", PL_ARITH_LITERT, true},
    [PL_TARGET_TFLM_CMSIS_NN] = {"tflm-cmsis-nn", PL_ARITH_CMSIS_NN_DSP, true},
    [PL_TARGET_TFLM_CMSIS_NN_MVE] = {"tflm-cmsis-nn-mve", PL_ARITH_CMSIS_NN_MVE, true},
    [PL_TARGET_TFLM_CMSIS_NN_NODSP] = {"tflm-cmsis-nn-nodsp", PL_ARITH_CMSIS_NN_NODSP, true},
};

const char *pl_target_name(pl_target target)
{
    return (unsigned)target < PL_TARGET_COUNT ? targets[target].name : NULL;
}

int pl_target_from_name(const char *name)
{
    for (int t = 0; name != NULL && t < PL_TARGET_COUNT; t++) {
        if (strcmp(name, targets[t].name) == 0)
            return t;
    }
    return -1;
}

int pl_target_modelled(pl_target target)
{
    return (unsigned)target < PL_TARGET_COUNT && targets[target].modelled;
}

pl_arith pl_target_arith(pl_target target)
{
    return (unsigned)target < PL_TARGET_COUNT ? targets[target].arith : PL_ARITH_TFLM;
}
