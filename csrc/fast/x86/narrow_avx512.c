/* narrow_avx512.c - conv_narrow.h's rows with AVX-512F, 16 points per vector (the body:
** narrow_body.h). Built with -mavx512f ... -mfma; run only when the CPU has them. */
#include <immintrin.h>

enum { W = 16 };

typedef __m512 vf;
#define PS(op) _mm512_##op##_ps
#define store_first(dst, v, count) \
    _mm512_mask_storeu_ps(dst, (__mmask16)((1u << (count)) - 1u), v)

#include "fast/x86/narrow_body.h"

/* The product's panels hold 16 channels: up to 8 leave at least half of them idle. */
const pl_narrow_kernels pl_narrow_avx512 = {W, 8, rows};
