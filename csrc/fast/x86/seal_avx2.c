/* seal_avx2.c - the arena seal's hash of the tail with AVX2 (pl_interp_options.seal_feed):
** the state's four 64-bit lanes read as eight 32-bit ones, each step (lane ^ word) * an odd
** constant, a bijection of the lane, so changing one word always changes the result. Four
** chains of 32 bytes run side by side (VPMULLD waits 3 cycles; the scalar hash's four
** 64-bit multiplies take 8 bytes a cycle), then fold into the state, each fold a bijection
** of the chain it adds. Built with -mavx2; run only when the CPU has it. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "fast/fast.h"

enum { CHAINS = 4, BLOCK = 32 };

/* Odd, one per chain; the fold's is the first. */
static const uint32_t PRIME[CHAINS] = {0x01000193u, 0x01000195u, 0x01000197u, 0x01000199u};

static __m256i step(__m256i chain, __m256i words, uint32_t prime)
{
    return _mm256_mullo_epi32(_mm256_xor_si256(chain, words), _mm256_set1_epi32((int)prime));
}

static __m256i load(const unsigned char *p)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

void pl_fast_seal_feed_avx2(uint64_t lane[4], const unsigned char *bytes, size_t n)
{
    __m256i c[CHAINS];
    c[0] = _mm256_loadu_si256((const __m256i *)(const void *)lane);
    for (int k = 1; k < CHAINS; k++)
        c[k] = _mm256_set1_epi32((int)PRIME[k]); /* any start will do */
    size_t i = 0;
    for (; n - i >= CHAINS * BLOCK; i += CHAINS * BLOCK)
        for (int k = 0; k < CHAINS; k++)
            c[k] = step(c[k], load(bytes + i + (size_t)k * BLOCK), PRIME[k]);
    for (; n - i >= BLOCK; i += BLOCK)
        c[0] = step(c[0], load(bytes + i), PRIME[0]);
    if (i < n) { /* the last block zero-padded */
        unsigned char pad[BLOCK] = {0};
        memcpy(pad, bytes + i, n - i);
        c[0] = step(c[0], load(pad), PRIME[0]);
    }
    __m256i x = c[0];
    for (int k = 1; k < CHAINS; k++)
        x = step(x, c[k], PRIME[0]);
    _mm256_storeu_si256((__m256i *)(void *)lane, x);
    _mm256_zeroupper();
}
