/* gemm16.c - the 16x8 matrix product tables by instruction set. */
#include "fast/gemm16.h"

const pl_gemm_s16 *pl_gemm_s16_for(pl_isa isa)
{
#if defined(PL_FAST_X86)
    if (isa == PL_ISA_AVX512)
        return &pl_gemm_s16_avx512;
    if (isa == PL_ISA_AVX2)
        return &pl_gemm_s16_avx2;
    if (isa == PL_ISA_SSE41)
        return &pl_gemm_s16_sse41;
#elif defined(PL_FAST_ARM64)
    if (isa == PL_ISA_NEON || isa == PL_ISA_NEON_DOT)
        return &pl_gemm_s16_neon;
#endif
    (void)isa;
    return NULL;
}
