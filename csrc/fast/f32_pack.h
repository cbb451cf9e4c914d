/* f32_pack.h - the float32 matrix product's weight panels, one layout for every instruction
** set: panels of NR channels (the includer's enum), per k the NR channels' w[k], 0 past n. */
#ifndef PL_FAST_F32_PACK_H
#define PL_FAST_F32_PACK_H

#include <string.h>

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

/* The same panels from a matrix stored by depth, w[i ldw + channel]: per k, a panel's NR
** channels lie side by side (a BATCH_MATMUL's right-hand activation, not transposed). */
static void pack_by_depth(const float *w, int32_t n, int32_t k, size_t ldw, void *packed)
{
    float *p = packed;
    for (int32_t n0 = 0; n0 < n; n0 += NR) {
        const int32_t m = n - n0 < NR ? n - n0 : NR;
        for (int32_t i = 0; i < k; i++, p += NR) {
            memcpy(p, w + (size_t)i * ldw + (size_t)n0, (size_t)m * sizeof(float));
            for (int32_t j = m; j < NR; j++)
                p[j] = 0.0f;
        }
    }
}

#endif
