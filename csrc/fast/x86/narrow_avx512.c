/* narrow_avx512.c - conv_narrow.h's rows with AVX-512F, 16 points per vector (the body:
** narrow_body.h). Built with -mavx512f ... -mfma; run only when the CPU has them. */
#include <immintrin.h>
#include <stdint.h>

enum { W = 16 };

typedef __m512 vf;
#define PS(op) _mm512_##op##_ps

#include "fast/x86/narrow_body.h"

/* a and b's blocks of g floats (1, 2, 4: tables 0, 1, 2) taken in turn: the first 8 floats'
** worth into *lo, the rest into *hi (the step of an in-register transpose of channel
** vectors into points). */
static const int32_t interleaved[3][2][16] = {
    {{0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23},
     {8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31}},
    {{0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23},
     {8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31}},
    {{0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23},
     {8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31}},
};

static inline void interleave(__m512 a, __m512 b, int32_t table, __m512 *lo, __m512 *hi)
{
    *lo = _mm512_permutex2var_ps(a, _mm512_loadu_si512(interleaved[table][0]), b);
    *hi = _mm512_permutex2var_ps(a, _mm512_loadu_si512(interleaved[table][1]), b);
}

/* The first count points of n channel vectors, each point's n channels side by side: 2, 4
** and 8 channels transposed in registers (1, 2 or 3 rounds of interleaving), the others
** through memory. */
static inline void store_points(float *dst, const vf *v, int32_t n, int32_t count)
{
    __m512 t[8], s[8], o[8];
    int32_t vectors = 1;
    if (n == 1) {
        o[0] = v[0];
    } else if (n == 2) {
        interleave(v[0], v[1], 0, &o[0], &o[1]);
        vectors = 2;
    } else if (n == 4) {
        interleave(v[0], v[1], 0, &t[0], &t[1]);
        interleave(v[2], v[3], 0, &t[2], &t[3]);
        interleave(t[0], t[2], 1, &o[0], &o[1]);
        interleave(t[1], t[3], 1, &o[2], &o[3]);
        vectors = 4;
    } else if (n == 8) {
        for (int32_t k = 0; k < 4; k++)
            interleave(v[2 * k], v[2 * k + 1], 0, &t[2 * k], &t[2 * k + 1]);
        interleave(t[0], t[2], 1, &s[0], &s[1]); /* channels 0-3, points 0-7 */
        interleave(t[1], t[3], 1, &s[2], &s[3]); /* channels 0-3, points 8-15 */
        interleave(t[4], t[6], 1, &s[4], &s[5]);
        interleave(t[5], t[7], 1, &s[6], &s[7]);
        for (int32_t k = 0; k < 4; k++)
            interleave(s[k], s[4 + k], 2, &o[2 * k], &o[2 * k + 1]);
        vectors = 8;
    } else {
        points_through_memory(dst, v, n, count);
        return;
    }
    int32_t left = count * n; /* floats to store */
    for (int32_t k = 0; k < vectors && left > 0; k++, left -= W)
        _mm512_mask_storeu_ps(dst + k * W, left >= W ? (__mmask16)0xFFFF
                                                     : (__mmask16)((1u << left) - 1u), o[k]);
}


/* The product's panels hold 16 channels: up to 8 leave at least half of them idle. */
const pl_narrow_kernels pl_narrow_avx512 = {W, 8, rows};
