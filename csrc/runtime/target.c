/* target.c - target names and the arithmetic each target's kernels do. */
#include "picolite/pl_target.h"

#include <string.h>

static const struct {
    const char *name;
    pl_arith arith;
} targets[PL_TARGET_COUNT] = {
    [PL_TARGET_PICOLITE] = {"picolite", PL_ARITH_TFLM},
    [PL_TARGET_TFLM] = {"tflm", PL_ARITH_TFLM},
    [PL_TARGET_TFLM_X86_64] = {"tflm-x86-64", PL_ARITH_TFLM_WIDE}, /* the wheel's release */
    [PL_TARGET_LITERT] = {"litert", PL_ARITH_LITERT},
    [PL_TARGET_TFLM_CMSIS_NN] = {"tflm-cmsis-nn", PL_ARITH_CMSIS_NN_DSP},
    [PL_TARGET_TFLM_CMSIS_NN_MVE] = {"tflm-cmsis-nn-mve", PL_ARITH_CMSIS_NN_MVE},
    [PL_TARGET_TFLM_CMSIS_NN_NODSP] = {"tflm-cmsis-nn-nodsp", PL_ARITH_CMSIS_NN_NODSP},
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

pl_arith pl_target_arith(pl_target target)
{
    return (unsigned)target < PL_TARGET_COUNT ? targets[target].arith : PL_ARITH_TFLM;
}
