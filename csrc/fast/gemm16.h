/* gemm16.h - the 16x8 matrix product the fast paths share, one table per instruction set:
** sums[m][n] = sum_k a[m][k] * w[n][k] with int16 a, int8 w and exact int64 sums. Each
** product is at most 2^22 in size, so the kernels sum in int32 over blocks of at most
** PL_S16_BLOCK k (2^30 at most) and widen to int64 between blocks: integer sums are exact
** in any order, so these are the reference's sums bit for bit. Rows of a hold kp entries
** (k rounded up to 4; w is zero past k, so a's entries there only need to be defined). */
#ifndef PL_FAST_GEMM16_H
#define PL_FAST_GEMM16_H

#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_fast.h"

enum { PL_S16_BLOCK = 256 };

typedef struct pl_gemm_s16 {
    size_t (*packed_bytes)(int32_t n, int32_t kp);
    void (*pack)(const int8_t *w, int32_t n, int32_t k, int32_t kp, void *packed);
    /* sums rows of stride ldo. */
    void (*run)(int32_t m, int32_t n, int32_t kp, const int16_t *a, size_t lda,
                const void *packed, int64_t *sums, size_t ldo);
} pl_gemm_s16;

/* NULL when isa has no such kernels in this build. */
const pl_gemm_s16 *pl_gemm_s16_for(pl_isa isa);

extern const pl_gemm_s16 pl_gemm_s16_avx512;
extern const pl_gemm_s16 pl_gemm_s16_avx2;

#endif
