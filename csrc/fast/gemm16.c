/* gemm16.c - the 16x8 matrix product tables by instruction set. */
#include "fast/gemm16.h"
#include "fast/isa_pick.h"

const pl_gemm_s16 *pl_gemm_s16_for(pl_isa isa)
{
    PL_FAST_PICK(isa, &pl_gemm_s16_avx512, &pl_gemm_s16_avx2, &pl_gemm_s16_sse41,
                 &pl_gemm_s16_neon, &pl_gemm_s16_neon);
    return NULL;
}
