/* dw_s16_neon.c - the 16x8 depthwise rows with NEON (see depthwise16.h): the 16-channel
** groups of the x86 layout, whose weights come in (tap, tap + 1) pairs: two taps' staged
** values interleaved the same way (ZIP1/ZIP2) and SMLAL/SMLAL2 into two sums per channel
** pair (one product per int32 lane per pair of taps: at most 2^29, exact), added pairwise
** (ADDP) at the end, then the 64-bit stage (stage16_neon.h). */
#include <arm_neon.h>
#include <string.h>

#include "fast/arm/dw_pairs_neon.h"
#include "fast/arm/stage16_neon.h"
#include "fast/depthwise16.h"
#include "fast/inline.h"

enum { POINTS = 2 }; /* output points per pass: their sums stay in registers */

/* n (1..POINTS) points from in on, channels c0..c0+15 with their packed group g (narrow:
** job->narrow, a constant). */
PL_FAST_INLINE void points_at(const pl_dw16_job *job, int32_t n, const int16_t *in,
                              const uint8_t *g, int32_t c0, int16_t *out, bool narrow)
{
    int32x4_t a[POINTS][4], b[POINTS][4]; /* per channel: tap t's, tap t + 1's sums */
    const int16_t *w = pl_dw_pairs_neon(job->taps, job->tap_at, job->step, n, in, c0,
                                        (const int16_t *)(const void *)g, a, b);
    /* bias, reduced multiplier, rounding, shift (int64, 16 each) follow the weights */
    const int64_t *arr = (const int64_t *)(const void *)w;
    const int32_t count = job->channels - c0 < 16 ? job->channels - c0 : 16;
    PL_FAST_UNROLL
    for (int32_t r = 0; r < n; r++) {
        int16x4_t words[4];
        for (int32_t h = 0; h < 4; h++) {
            int32x4_t s = vpaddq_s32(a[r][h], b[r][h]);
            int32x4_t v = pl_stage64_neon(vmovl_s32(vget_low_s32(s)), vmovl_high_s32(s),
                                          arr + 4 * h, arr + 16 + 4 * h, arr + 32 + 4 * h,
                                          arr + 48 + 4 * h, narrow);
            words[h] = vqmovn_s32(pl_clamp_neon(v, job->out_offset, job->act_min,
                                                job->act_max));
        }
        int16_t tmp[16], *o = out + (size_t)r * (size_t)job->channels + c0;
        /* back into channel order */
        vst1q_s16(tmp, vcombine_s16(words[0], words[2]));
        vst1q_s16(tmp + 8, vcombine_s16(words[1], words[3]));
        memcpy(o, tmp, sizeof(int16_t) * (size_t)count);
    }
}

#define S16_POINTS POINTS
#define DW_ROWS_S16
#include "fast/dw_rows_body.h"

const pl_dw_s16 pl_dw_s16_neon = {run};
