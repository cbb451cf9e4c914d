/* intmath.c - TFLM Signal's integer helpers (see intmath.h). */
#include "signal/intmath.h"

uint32_t pl_intmath_msb32(uint32_t x)
{
    uint32_t n = 0;
    if (x == 0)
        return 32;
    while (x) {
        x >>= 1;
        n++;
    }
    return n;
}

uint32_t pl_intmath_msb64(uint64_t x)
{
    uint32_t n = 0;
    if (x == 0)
        return 64;
    while (x) {
        x >>= 1;
        n++;
    }
    return n;
}

/* Digit-by-digit root from the highest odd bit position, then rounded up when the
** remainder exceeds the root (unless that would overflow the result width). */
uint16_t pl_intmath_sqrt32(uint32_t num)
{
    if (num == 0)
        return 0;
    uint32_t res = 0;
    int32_t max_bit = (int32_t)(32u - pl_intmath_msb32(num)) | 1;
    uint32_t bit = 1u << (31 - max_bit);
    for (int32_t it = (31 - max_bit) / 2 + 1; it > 0; it--) {
        if (num >= res + bit) {
            num -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if (num > res && res != 0xFFFF)
        ++res;
    return (uint16_t)res;
}

uint32_t pl_intmath_sqrt64(uint64_t num)
{
    if ((num >> 32) == 0)
        return pl_intmath_sqrt32((uint32_t)num);
    uint64_t res = 0;
    int32_t max_bit = (int32_t)(64u - pl_intmath_msb64(num)) | 1;
    uint64_t bit = (uint64_t)1 << (63 - max_bit);
    for (int32_t it = (63 - max_bit) / 2 + 1; it > 0; it--) {
        if (num >= res + bit) {
            num -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if (num > res && res != 0xFFFFFFFFu)
        ++res;
    return (uint32_t)res;
}

/* log2's fraction by linear interpolation in a 128-segment correction table (Q16). */
static const uint16_t log_lut[130] = {
    0,    224,  442,  654,  861,  1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490,
    2646, 2797, 2944, 3087, 3224, 3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272,
    4368, 4460, 4549, 4633, 4714, 4791, 4864, 4934, 5001, 5063, 5123, 5178, 5231, 5280,
    5326, 5368, 5408, 5444, 5477, 5507, 5533, 5557, 5578, 5595, 5610, 5622, 5631, 5637,
    5640, 5641, 5638, 5633, 5626, 5615, 5602, 5586, 5568, 5547, 5524, 5498, 5470, 5439,
    5406, 5370, 5332, 5291, 5249, 5203, 5156, 5106, 5054, 5000, 4944, 4885, 4825, 4762,
    4697, 4630, 4561, 4490, 4416, 4341, 4264, 4184, 4103, 4020, 3935, 3848, 3759, 3668,
    3575, 3481, 3384, 3286, 3186, 3084, 2981, 2875, 2768, 2659, 2549, 2437, 2323, 2207,
    2090, 1971, 1851, 1729, 1605, 1480, 1353, 1224, 1094, 963,  830,  695,  559,  421,
    282,  142,  0,    0};

static uint32_t log2_fraction(uint32_t x, uint32_t log2x)
{
    int32_t frac = (int32_t)((int64_t)x - ((int64_t)1 << log2x));
    if (log2x < 16)
        frac = (int32_t)((uint32_t)frac << (16 - log2x));
    else
        frac >>= log2x - 16;
    uint32_t seg = (uint32_t)frac >> 9;
    int32_t c0 = log_lut[seg], c1 = log_lut[seg + 1];
    int32_t seg_base = (int32_t)(512u * seg);
    int32_t rel = (int32_t)(((int64_t)(c1 - c0) * (frac - seg_base)) >> 16);
    return (uint32_t)(frac + c0 + rel);
}

uint32_t pl_intmath_log32(uint32_t x, uint32_t out_scale)
{
    uint32_t integer = pl_intmath_msb32(x) - 1u;
    uint32_t log2 = (integer << 16) + log2_fraction(x, integer);
    uint32_t loge = (uint32_t)(((uint64_t)45426 * log2 + 32768u) >> 16);
    return (out_scale * loge + 32768u) >> 16;
}
