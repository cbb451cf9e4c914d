/* s8_neondot.c - the int8 matrix product with the dot-product extension: SDOT sums four
** int8 x int8 products into each int32 lane (exact), 16 output channels in four vectors.
** The activations come as x + 128 (gemm.h); SDOT takes them back to x (flipping the top
** bit) and each panel carries 128 * the channel's weight sum to add back, so the sums are
** the ones gemm.h defines. Built with -march=armv8.2-a+dotprod; run only when the CPU has
** it. */
#include <arm_neon.h>
#include <string.h>

#include "fast/arm/s8_stage.h"
#include "fast/gemm.h"
#include "fast/gemm_pack.h"

enum { NR = 16, MR = 4 };

/* Panels of 16 channels: per group of 4 k, 16 x 4 bytes (channel j's w[k..k+3]), then the
** 16 channels' 128 * sum(w) as int32. */
static size_t panel_bytes(int32_t kp)
{
    return (size_t)kp * NR + NR * sizeof(int32_t);
}

static size_t packed_bytes(int32_t n, int32_t kp)
{
    return (size_t)pl_fast_round_up(n, NR) / NR * panel_bytes(kp);
}

static void pack(const int8_t *w, int32_t n, int32_t k, int32_t kp, void *packed)
{
    static const pl_gemm_layout layout = {NR, 4, 4, false};
    for (int32_t n0 = 0; n0 < n; n0 += NR) {
        int8_t *p = (int8_t *)packed + (size_t)(n0 / NR) * panel_bytes(kp);
        uint32_t sums[NR] = {0}; /* mod 2^32, as the sums wrap */
        for (int32_t j = 0; j < NR && n0 + j < n; j++)
            for (int32_t i = 0; i < k; i++)
                sums[j] += (uint32_t)(int32_t)w[(size_t)(n0 + j) * (size_t)k + (size_t)i] * 128u;
        memcpy(p + pl_gemm_pack_panel(&layout, w, n, k, kp, n0, p), sums, sizeof sums);
    }
}

/* rows (1..MR) rows of a from row m0 on against one panel. */
PL_FAST_INLINE void block(int32_t rows, int32_t m0, int32_t kp, const uint8_t *a, size_t lda,
                          const int8_t *panel, const pl_neon_stage *ns, int32_t n0, int32_t n,
                          int8_t *out, int32_t *raw, size_t ldo)
{
    int32x4_t acc[MR][4];
    const int32_t *sums = (const int32_t *)(const void *)(panel + (size_t)kp * NR);
    a += (size_t)m0 * lda;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < MR; r++)
        for (int32_t h = 0; h < 4; h++)
            acc[r][h] = vld1q_s32(sums + 4 * h);
    for (int32_t k = 0; k < kp; k += 4) {
        const int8_t *p = panel + (size_t)k * NR;
        int8x16_t w0 = vld1q_s8(p), w1 = vld1q_s8(p + 16), w2 = vld1q_s8(p + 32),
                  w3 = vld1q_s8(p + 48);
        PL_FAST_UNROLL
        for (int32_t r = 0; r < rows; r++) {
            uint32_t x4;
            memcpy(&x4, a + (size_t)r * lda + (size_t)k, 4);
            int8x16_t x = vreinterpretq_s8_u32(vdupq_n_u32(x4 ^ 0x80808080u));
            acc[r][0] = vdotq_s32(acc[r][0], w0, x);
            acc[r][1] = vdotq_s32(acc[r][1], w1, x);
            acc[r][2] = vdotq_s32(acc[r][2], w2, x);
            acc[r][3] = vdotq_s32(acc[r][3], w3, x);
        }
    }
    PL_FAST_UNROLL
    for (int32_t r = 0; r < rows; r++)
        pl_neon_finish(acc[r], ns, n0, n, out, raw, (size_t)(m0 + r) * ldo);
}

typedef int8_t panel_t;
typedef pl_neon_stage panel_stage;
#define stage_of pl_neon_stage_of
#define PANEL_AT(packed, n0, kp) \
    ((const int8_t *)(packed) + (size_t)((n0) / NR) * panel_bytes(kp))

#include "fast/gemm_panels_body.h"

const pl_gemm_s8 pl_gemm_s8_neon_dot = {packed_bytes, pack, run, pl_fc_output_neon, NULL};
