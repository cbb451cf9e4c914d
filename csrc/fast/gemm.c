/* gemm.c - the matrix product tables by instruction set. */
#include "fast/gemm.h"

const pl_gemm_s8 *pl_gemm_s8_for(pl_isa isa)
{
#if defined(PL_FAST_X86)
    if (isa == PL_ISA_AVX512)
        return &pl_gemm_s8_avx512;
    if (isa == PL_ISA_AVX2)
        return &pl_gemm_s8_avx2;
#endif
    (void)isa;
    return NULL;
}

const pl_gemm_f32 *pl_gemm_f32_for(pl_isa isa)
{
#if defined(PL_FAST_X86)
    if (isa == PL_ISA_AVX512)
        return &pl_gemm_f32_avx512;
    if (isa == PL_ISA_AVX2)
        return &pl_gemm_f32_avx2;
#endif
    (void)isa;
    return NULL;
}
