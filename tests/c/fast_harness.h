/* fast_harness.h - what the fast-path tests share: a reproducible random source, host
** memory from malloc and the loop over every instruction set this CPU runs. */
#ifndef PL_TEST_FAST_HARNESS_H
#define PL_TEST_FAST_HARNESS_H

#include <stdint.h>
#include <stdlib.h>

#include "picolite/pl_fast.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static inline uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* An integer in [lo, hi]. */
static inline int32_t between(int32_t lo, int32_t hi)
{
    return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1));
}

static inline float unit(void)
{
    return (float)(rnd() % 20001u) / 10000.0f - 1.0f;
}

static inline void *test_alloc(void *self, size_t bytes)
{
    (void)self;
    return malloc(bytes);
}

static inline void test_release(void *self, void *block)
{
    (void)self;
    free(block);
}

static const pl_host_memory host = {NULL, test_alloc, test_release};

/* How many cases took the fast path (a host block), so a test cannot pass by falling back. */
static int fast_cases;

#endif
