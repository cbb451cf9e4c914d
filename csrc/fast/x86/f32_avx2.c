/* f32_avx2.c - the float32 matrix product with AVX2, 8 output channels per vector (the
** driver: f32_body.h). Built with -mavx2 -mfma; run only when the CPU has them. */
#include <immintrin.h>
#include <string.h>

#include "fast/gemm.h"

enum { NR = 8, MR = 6, ROWS = 6 }; /* 16 registers: 6 sums of one panel */

typedef __m256 vf;
#define PS(op) _mm256_##op##_ps

/* A tail is a count of channels, through a buffer. */
typedef int32_t lanes_t;

static inline lanes_t lanes_of(int32_t left)
{
    return left >= NR ? NR : left;
}

static inline vf bias_of(const float *bias, lanes_t count)
{
    float b[NR] = {0};
    if (bias != NULL)
        memcpy(b, bias, sizeof(float) * (size_t)count);
    return _mm256_loadu_ps(b);
}

static inline void store(float *dst, vf v, lanes_t count)
{
    float tmp[NR];
    _mm256_storeu_ps(tmp, v);
    memcpy(dst, tmp, sizeof(float) * (size_t)count);
}

#include "fast/x86/f32_body.h"

const pl_gemm_f32 pl_gemm_f32_avx2 = {packed_bytes, pack, pack_by_depth,
                                      run, run_fused, run_taps, run_taps_fused};
