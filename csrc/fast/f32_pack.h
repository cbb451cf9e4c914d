/* f32_pack.h - the float32 matrix product's weight panels, one layout for every instruction
** set: panels of NR channels (the includer's enum), per k the NR channels' w[k], 0 past n. */
#ifndef PL_FAST_F32_PACK_H
#define PL_FAST_F32_PACK_H

#include "fast/gemm.h"

static size_t packed_bytes(int32_t n, int32_t k)
{
    return (size_t)pl_fast_round_up(n, NR) * (size_t)k * sizeof(float);
}

static void pack(const float *w, int32_t n, int32_t k, void *packed)
{
    float *p = packed;
    for (int32_t n0 = 0; n0 < n; n0 += NR)
        for (int32_t i = 0; i < k; i++)
            for (int32_t j = 0; j < NR; j++, p++)
                *p = n0 + j < n ? w[(size_t)(n0 + j) * (size_t)k + (size_t)i] : 0.0f;
}

#endif
