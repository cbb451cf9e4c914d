/* gemm16.h - the 16x8 matrix product the fast paths share, one table per instruction set:
** sums[m][n] = sum_k a[m][k] * w[n][k] with int16 a, int8 w and exact int64 sums. Each
** product is at most 2^22 in size, so the kernels sum in int32 over blocks of at most
** PL_S16_BLOCK k (2^30 at most) and widen to int64 between blocks: integer sums are exact
** in any order, so these are the reference's sums bit for bit. Rows of a hold kp entries
** (k rounded up to 4; w is zero past k, so a's entries there only need to be defined). */
#ifndef PL_FAST_GEMM16_H
#define PL_FAST_GEMM16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fast/isa_pick.h"
#include "picolite/pl_fast.h"

enum { PL_S16_BLOCK = 256 };

/* TFLite's 16x8 output stage per channel (ConvPerChannel), arrays padded to PL_FAST_LANES:
** + bias (int64, wrapping); with acc64 the 64-bit rescale, (t * reduced + round) >> shift
** (arithmetic, the int64 product wrapping) truncated to int32; else t truncated to int32 and
** the 32-bit rescale split as pl_s8_stage's (mult never INT32_MIN); then + out_offset and
** the clamp. narrow (false unless set) promises every t fits in int32 (the plan's bound on
** the sums and the bias), so t * reduced (|reduced| <= 2^15) is one signed 32x32 multiply. */
typedef struct pl_s16_stage {
    const int64_t *bias, *reduced, *round, *shift;
    const int32_t *mult, *left, *right;
    bool acc64;
    int32_t out_offset, act_min, act_max;
    bool narrow;
} pl_s16_stage;

/* Whether every t = sum + bias fits in int32 when the sums run over k products of an int16
** and an int8 (each at most 2^22 in size) and every bias lies in [-bias_max, bias_max]. */
static inline bool pl_s16_narrow(int64_t k, int64_t bias_max)
{
    return k <= (1 << 9) && bias_max <= INT32_MAX - k * (1 << 22);
}

typedef struct pl_gemm_s16 {
    size_t (*packed_bytes)(int32_t n, int32_t kp);
    void (*pack)(const int8_t *w, int32_t n, int32_t k, int32_t kp, void *packed);
    /* Rows of stride ldo: int16 out through st, or (st NULL) the int64 sums into sums. */
    void (*run)(int32_t m, int32_t n, int32_t kp, const int16_t *a, size_t lda,
                const void *packed, const pl_s16_stage *st, int16_t *out, int64_t *sums,
                size_t ldo);
} pl_gemm_s16;

/* NULL when isa has no such kernels in this build. */
const pl_gemm_s16 *pl_gemm_s16_for(pl_isa isa);

PL_FAST_TABLES(pl_gemm_s16, pl_gemm_s16); /* NEON_DOT takes NEON's: SDOT has no int16 form */

#endif
