/* f32_avx512.c - the float32 matrix product with AVX-512F, 16 output channels per vector
** (the driver: f32_body.h). Built with -mavx512f -mavx512bw -mavx512vl -mavx512dq
** -mavx512vnni -mfma; run only when the CPU has them. */
#include <immintrin.h>

#include "fast/gemm.h"

enum { NR = 16, MR = 12, ROWS = 6 };

typedef __m512 vf;
#define PS(op) _mm512_##op##_ps

/* A tail is a lane mask. Macros, not inline functions: with functions GCC 12 compiles the
** driver's blocks differently, 2-5% slower on short rows (k of 9 to 72). */
typedef __mmask16 lanes_t;
#define lanes_of(left) ((left) >= NR ? (lanes_t)0xFFFF : (lanes_t)((1u << (left)) - 1u))
#define bias_of(bias, lanes) \
    ((bias) != NULL ? _mm512_maskz_loadu_ps(lanes, bias) : _mm512_setzero_ps())
#define store(dst, v, lanes) _mm512_mask_storeu_ps(dst, lanes, v)

#include "fast/x86/f32_body.h"

const pl_gemm_f32 pl_gemm_f32_avx512 = {packed_bytes, pack, pack_by_depth,
                                        run, run_fused, run_taps, run_taps_fused};
