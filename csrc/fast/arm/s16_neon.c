/* s16_neon.c - the 16x8 matrix product with NEON: SMLAL by element (int16 x int16 products
** accumulated into int32 lanes, at most 2^22 each: exact), 16 output channels in four
** vectors, int32 over blocks of PL_S16_BLOCK k, then int64; TFLite's 16x8 output stage on
** the vectors (stage16_neon.h; the 32-bit rescale as the int8 stage's). Advanced SIMD is
** part of every arm64 CPU; SDOT has no int16 form, so NEON_DOT runs this too. */
#include <arm_neon.h>
#include <string.h>

#include "fast/arm/s8_stage.h"
#include "fast/arm/smlal_lane.h"
#include "fast/arm/stage16_neon.h"
#include "fast/gemm16.h"
#include "fast/gemm_pack.h"
#include "fast/inline.h"

enum { NR = 16, MR = 4 };

/* Panels of 16 channels; per k, the 16 channels' w[k] as int16 (0 past n or k). */
PL_GEMM_PACKING(NR, 1, 1, true)

/* One panel's stage: the arrays, and the 32-bit rescale's operands of its four groups of 4
** channels (left shifts capped at 32 and right shifts negated, as pl_neon_stage_of). */
typedef struct panel_stage {
    const pl_s16_stage *st;
    int32x4_t mult[4], left[4], neg_right[4];
} panel_stage;

static void stage_of(const pl_s16_stage *st, int32_t n0, panel_stage *ps)
{
    ps->st = st;
    for (int32_t h = 0; h < 4 && !st->acc64; h++) {
        int32_t c = n0 + 4 * h;
        ps->mult[h] = vld1q_s32(st->mult + c);
        ps->left[h] = vminq_s32(vld1q_s32(st->left + c), vdupq_n_s32(32));
        ps->neg_right[h] = vnegq_s32(vld1q_s32(st->right + c));
    }
}

/* A row's sums of channels n0..n0+15: the last block's int32 acc plus the earlier blocks'
** int64 total unless NULL; into sums, or through the stage into out. */
static inline void finish(const int32x4_t acc[4], const int64_t *total, const panel_stage *ps,
                          int32_t n0, int32_t count, int16_t *out, int64_t *sums)
{
    int64x2_t q[8];
    for (int32_t h = 0; h < 4; h++) {
        q[2 * h] = vmovl_s32(vget_low_s32(acc[h]));
        q[2 * h + 1] = vmovl_high_s32(acc[h]);
    }
    for (int32_t j = 0; j < 8 && total != NULL; j++)
        q[j] = vaddq_s64(q[j], vld1q_s64(total + 2 * j));
    if (ps == NULL) {
        int64_t tmp[NR];
        for (int32_t j = 0; j < 8; j++)
            vst1q_s64(tmp + 2 * j, q[j]);
        memcpy(sums, tmp, sizeof(int64_t) * (size_t)count);
        return;
    }
    const pl_s16_stage *st = ps->st;
    int16x4_t words[4];
    for (int32_t h = 0; h < 4; h++) {
        int32_t c = n0 + 4 * h;
        int64x2_t lo = q[2 * h], hi = q[2 * h + 1];
        int32x4_t v;
        if (st->acc64) {
            v = pl_stage64_neon(lo, hi, st->bias + c, st->reduced + c, st->round + c,
                                st->shift + c, st->narrow);
        } else {
            lo = vaddq_s64(lo, vld1q_s64(st->bias + c));
            hi = vaddq_s64(hi, vld1q_s64(st->bias + c + 2));
            v = pl_neon_rescale(vcombine_s32(vmovn_s64(lo), vmovn_s64(hi)), ps->mult[h],
                                ps->left[h], ps->neg_right[h]);
        }
        words[h] = vqmovn_s32(pl_clamp_neon(v, st->out_offset, st->act_min, st->act_max));
    }
    int16_t tmp[NR];
    vst1q_s16(tmp, vcombine_s16(words[0], words[1]));
    vst1q_s16(tmp + 8, vcombine_s16(words[2], words[3]));
    memcpy(out, tmp, sizeof(int16_t) * (size_t)count);
}

/* total (16 int64 in memory) = the 16 int32 lanes of acc, + total unless first. */
static inline void widen_add(int64_t *total, const int32x4_t acc[4], bool first)
{
    for (int32_t h = 0; h < 4; h++) {
        int64_t *t = total + 4 * h;
        int64x2_t lo = vmovl_s32(vget_low_s32(acc[h])), hi = vmovl_high_s32(acc[h]);
        vst1q_s64(t, first ? lo : vaddq_s64(lo, vld1q_s64(t)));
        vst1q_s64(t + 2, first ? hi : vaddq_s64(hi, vld1q_s64(t + 2)));
    }
}

/* rows (1..MR) rows of a from row m0 on against one panel: channels n0.. of n. The last
** block's int32 sums stay in registers; only deeper rows keep int64 totals in memory. */
PL_FAST_INLINE void block(int32_t rows, int32_t m0, int32_t kp, const int16_t *a, size_t lda,
                          const int16_t *panel, const panel_stage *ps, int32_t n0, int32_t n,
                          int16_t *out, int64_t *sums, size_t ldo)
{
    int64_t total[MR][NR];
    int32x4_t acc[MR][4];
    a += (size_t)m0 * lda;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < MR; r++)
        PL_FAST_UNROLL
        for (int32_t h = 0; h < 4; h++)
            acc[r][h] = vdupq_n_s32(0);
    for (int32_t k0 = 0; k0 < kp; k0 += PL_S16_BLOCK) {
        int32_t k1 = kp - k0 < PL_S16_BLOCK ? kp : k0 + PL_S16_BLOCK;
        if (k0 > 0) { /* the previous block's sums into the totals */
            PL_FAST_UNROLL
            for (int32_t r = 0; r < rows; r++) {
                widen_add(total[r], acc[r], k0 == PL_S16_BLOCK);
                PL_FAST_UNROLL
                for (int32_t h = 0; h < 4; h++)
                    acc[r][h] = vdupq_n_s32(0);
            }
        }
        for (int32_t k = k0; k < k1; k += 4) {
            int16x8_t w[8];
            pl_smlal_weights(panel + (size_t)k * NR, w);
            PL_FAST_UNROLL
            for (int32_t r = 0; r < rows; r++) {
                int16x4_t x = vld1_s16(a + (size_t)r * lda + (size_t)k);
                MAC_LANE(acc[r], w, x, 0);
                MAC_LANE(acc[r], w, x, 1);
                MAC_LANE(acc[r], w, x, 2);
                MAC_LANE(acc[r], w, x, 3);
            }
        }
    }
    int32_t count = n - n0 >= NR ? NR : n - n0;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < rows; r++) {
        size_t row = (size_t)(m0 + r) * ldo + (size_t)n0;
        finish(acc[r], kp > PL_S16_BLOCK ? total[r] : NULL, ps, n0, count,
               ps != NULL ? out + row : NULL, ps != NULL ? NULL : sums + row);
    }
}

typedef int16_t panel_t;
#define PL_GEMM_S16

#include "fast/gemm_panels_body.h"

const pl_gemm_s16 pl_gemm_s16_neon = {packed_bytes, pack, run};
