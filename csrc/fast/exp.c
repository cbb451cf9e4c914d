/* exp.c - the vector exp kernels' table for an instruction set (see exp.h). */
#include "fast/exp.h"

const pl_exp_kernels *pl_exp_for(pl_isa isa)
{
#if defined(PL_FAST_X86)
    if (isa == PL_ISA_AVX512)
        return &pl_exp_avx512;
    if (isa == PL_ISA_AVX2)
        return &pl_exp_avx2;
    if (isa == PL_ISA_SSE41)
        return &pl_exp_sse41;
#elif defined(PL_FAST_ARM64)
    if (isa == PL_ISA_NEON || isa == PL_ISA_NEON_DOT)
        return &pl_exp_neon;
#endif
    (void)isa;
    return NULL;
}
