/* narrow_avx2.c - conv_narrow.h's rows with AVX2 and FMA, 8 points per vector (the body:
** narrow_body.h). Built with -mavx2 -mfma; run only when the CPU has them. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

enum { W = 8 };

typedef __m256 vf;
#define PS(op) _mm256_##op##_ps

static inline void store_first(float *dst, vf v, int32_t count)
{
    float lanes[W];
    _mm256_storeu_ps(lanes, v);
    memcpy(dst, lanes, sizeof(float) * (size_t)count);
}

#include "fast/x86/narrow_body.h"

/* The product's panels hold 8 channels: up to 4 leave at least half of them idle. */
const pl_narrow_kernels pl_narrow_avx2 = {W, 4, rows};
