/* gemm.c - the matrix product tables by instruction set. */
#include "fast/gemm.h"

const pl_gemm_s8 *pl_gemm_s8_for(pl_isa isa)
{
    switch (isa) {
#if defined(PL_FAST_X86)
    case PL_ISA_AVX512: return &pl_gemm_s8_avx512;
    case PL_ISA_AVX2: return &pl_gemm_s8_avx2;
    case PL_ISA_SSE41: return &pl_gemm_s8_sse41;
#elif defined(PL_FAST_ARM64)
    case PL_ISA_NEON_DOT: return &pl_gemm_s8_neon_dot;
    case PL_ISA_NEON: return &pl_gemm_s8_neon;
#endif
    default: return NULL;
    }
}

const pl_gemm_f32 *pl_gemm_f32_for(pl_isa isa)
{
    switch (isa) {
#if defined(PL_FAST_X86)
    case PL_ISA_AVX512: return &pl_gemm_f32_avx512;
    case PL_ISA_AVX2: return &pl_gemm_f32_avx2;
    case PL_ISA_SSE41: return &pl_gemm_f32_sse41;
#elif defined(PL_FAST_ARM64)
    case PL_ISA_NEON_DOT:
    case PL_ISA_NEON: return &pl_gemm_f32_neon;
#endif
    default: return NULL;
    }
}
