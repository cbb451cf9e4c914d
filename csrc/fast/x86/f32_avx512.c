/* f32_avx512.c - the float32 matrix product with AVX-512F, 16 output channels per vector
** (the driver: f32_body.h). Built with -mavx512f -mavx512bw -mavx512vl -mavx512vnni; run
** only when the CPU has them. */
#include <immintrin.h>

#include "fast/gemm.h"

enum { NR = 16, MR = 8 };

typedef __m512 vf;
#define PS(op) _mm512_##op##_ps

/* A tail is a lane mask. */
typedef __mmask16 lanes_t;

static inline lanes_t lanes_of(int32_t left)
{
    return left >= NR ? 0xFFFF : (__mmask16)((1u << left) - 1u);
}

static inline vf bias_of(const float *bias, lanes_t lanes)
{
    return bias != NULL ? _mm512_maskz_loadu_ps(lanes, bias) : _mm512_setzero_ps();
}

static inline void store(float *dst, vf v, lanes_t lanes)
{
    _mm512_mask_storeu_ps(dst, lanes, v);
}

#include "fast/x86/f32_body.h"

const pl_gemm_f32 pl_gemm_f32_avx512 = {packed_bytes, pack, run};
