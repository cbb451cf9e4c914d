/* narrow_avx2.c - conv_narrow.h's rows with AVX2 and FMA, 8 points per vector (the body:
** narrow_body.h). Built with -mavx2 -mfma; run only when the CPU has them. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

enum { W = 8 };

typedef __m256 vf;
#define PS(op) _mm256_##op##_ps

/* The first count points of n channel vectors, each point's n channels side by side. */
static inline void store_points(float *dst, const vf *v, int32_t n, int32_t count)
{
    float lanes[8][W];
    for (int32_t o = 0; o < n; o++)
        _mm256_storeu_ps(lanes[o], v[o]);
    for (int32_t x = 0; x < count; x++)
        for (int32_t o = 0; o < n; o++)
            dst[(size_t)x * (size_t)n + (size_t)o] = lanes[o][x];
}

#include "fast/x86/narrow_body.h"

/* The product's panels hold 8 channels: up to 4 leave at least half of them idle. */
const pl_narrow_kernels pl_narrow_avx2 = {W, 4, rows};
