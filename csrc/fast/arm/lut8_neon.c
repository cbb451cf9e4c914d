/* lut8_neon.c - the 256-byte table lookup with NEON: TBL reads the first 64 bytes (0 for an
** index past them), then TBX the other three quarters with the index moved down by 64 each
** time (an index outside a quarter leaves the lane as it was); 16 bytes per step, the last
** few one by one. */
#include <arm_neon.h>

#include "fast/lut8.h"

void pl_lut8_neon(const uint8_t table[256], const uint8_t *in, uint8_t *out, size_t n)
{
    const uint8x16x4_t q0 = vld1q_u8_x4(table), q1 = vld1q_u8_x4(table + 64);
    const uint8x16x4_t q2 = vld1q_u8_x4(table + 128), q3 = vld1q_u8_x4(table + 192);
    const uint8x16_t quarter = vdupq_n_u8(64);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        uint8x16_t x = vld1q_u8(in + i);
        uint8x16_t y = vqtbl4q_u8(q0, x);
        x = vsubq_u8(x, quarter);
        y = vqtbx4q_u8(y, q1, x);
        x = vsubq_u8(x, quarter);
        y = vqtbx4q_u8(y, q2, x);
        x = vsubq_u8(x, quarter);
        y = vqtbx4q_u8(y, q3, x);
        vst1q_u8(out + i, y);
    }
    for (; i < n; i++)
        out[i] = table[in[i]];
}
