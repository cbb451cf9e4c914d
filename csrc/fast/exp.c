/* exp.c - the vector exp kernels' table for an instruction set (see exp.h). */
#include "fast/exp.h"
#include "fast/isa_pick.h"

const pl_exp_kernels *pl_exp_for(pl_isa isa)
{
    PL_FAST_PICK(isa, &pl_exp_avx512, &pl_exp_avx2, &pl_exp_sse41, &pl_exp_neon, &pl_exp_neon);
    return NULL;
}
