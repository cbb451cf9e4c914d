/* hybrid.c - the hybrid kernels' table for an instruction set (see hybrid.h), and their
** 4-lane build for the baseline vectors (SSE2 on x86-64, Advanced SIMD on arm64), which
** SSE4.1 and NEON take. */
#include "fast/hybrid.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

enum { W = 4 };

#include "fast/hybrid_body.h"
#include "fast/isa_pick.h"

static inline void store_q(uint8_t *out, vi q, uint8_t flip)
{
    uint32_t bytes;
#if defined(__SSE2__)
    __m128i words = _mm_packs_epi32((__m128i)q, (__m128i)q);
    bytes = (uint32_t)_mm_cvtsi128_si32(_mm_packs_epi16(words, words));
#elif defined(__ARM_NEON)
    int16x4_t words = vmovn_s32((int32x4_t)q);
    bytes = vget_lane_u32(vreinterpret_u32_s8(vmovn_s16(vcombine_s16(words, words))), 0);
#else
    uint8_t lanes[W];
    for (int k = 0; k < W; k++)
        lanes[k] = (uint8_t)q[k];
    memcpy(&bytes, lanes, sizeof bytes);
#endif
    bytes ^= 0x01010101u * flip;
    memcpy(out, &bytes, sizeof bytes);
}

static inline vf less_f(vf a, vf b)
{
#if defined(__SSE2__)
    return (vf)_mm_min_ps((__m128)a, (__m128)b);
#else
    return select_f(a < b, a, b);
#endif
}

static inline vf more_f(vf a, vf b)
{
#if defined(__SSE2__)
    return (vf)_mm_max_ps((__m128)a, (__m128)b);
#else
    return select_f(a > b, a, b);
#endif
}

const pl_hybrid_kernels pl_hybrid_vec4 = {quantize, output, output_f32};

const pl_hybrid_kernels *pl_hybrid_for(pl_isa isa)
{
    PL_FAST_PICK(isa, &pl_hybrid_avx512, &pl_hybrid_avx2, &pl_hybrid_vec4, &pl_hybrid_vec4,
                 &pl_hybrid_vec4);
    return NULL;
}

bool pl_hybrid_all_zero(const float *x, size_t n)
{
    enum { BLOCK = 64 }; /* an input rarely starts with many zeros: stop at the first block */
    for (size_t i = 0; i < n; i += BLOCK) {
        size_t end = n - i < BLOCK ? n : i + BLOCK;
        uint32_t any = 0;
        for (size_t k = i; k < end; k++) {
            uint32_t bits;
            memcpy(&bits, x + k, sizeof bits);
            any |= bits << 1; /* all but the sign */
        }
        if (any != 0)
            return false;
    }
    return true;
}
