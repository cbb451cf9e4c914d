/* narrow_avx2.c - conv_narrow.h's rows with AVX2 and FMA, 8 points per vector (the body:
** narrow_body.h). Built with -mavx2 -mfma; run only when the CPU has them. */
#include <immintrin.h>
#include <stdint.h>

enum { W = 8 };

typedef __m256 vf;
#define PS(op) _mm256_##op##_ps

#include "fast/x86/narrow_body.h"

static inline void store_points(float *dst, const vf *v, int32_t n, int32_t count)
{
    points_through_memory(dst, v, n, count);
}

/* The product's panels hold 8 channels: up to 4 leave at least half of them idle. */
const pl_narrow_kernels pl_narrow_avx2 = {W, 4, rows};
