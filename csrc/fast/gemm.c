/* gemm.c - the per-instruction-set kernel tables (matrix products, elementwise loops). */
#include "fast/gemm.h"

#include "fast/elementwise.h"

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

pl_fast_add_s8_fn pl_fast_add_s8_for(pl_isa isa)
{
#if defined(PL_FAST_X86)
    if (isa == PL_ISA_AVX512)
        return pl_fast_add_s8_avx512;
    if (isa == PL_ISA_AVX2)
        return pl_fast_add_s8_avx2;
#endif
    (void)isa;
    return NULL;
}
