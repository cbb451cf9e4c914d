/* fast_harness.h - what the fast-path tests share: a reproducible random source, host
** memory from malloc and the loop over every instruction set this CPU runs. */
#ifndef PL_TEST_FAST_HARNESS_H
#define PL_TEST_FAST_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
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

/* Draws one random case, runs it through the resolver and the portable kernel; true when
** they agree (and the case took the path it should). */
typedef bool (*fast_case_fn)(pl_fast_resolver *r);

/* One case through the portable registration (slot 0) and the fast resolver's (slot 1):
** run(case, registration, slot, &bytes) runs it into the test's outputs[slot]. */
typedef pl_status (*fast_run_fn)(const void *c, const pl_registration *reg, int slot,
                                 size_t *bytes);

/* What the two runs gave: statuses and bytes alike (agree), outputs equal (when the portable
** run succeeded), and whether the fast one took its path (a host block). */
typedef struct fast_pair {
    pl_status want, got;
    size_t want_bytes, got_bytes;
    bool agree, equal, took_fast;
} fast_pair;

/* Runs both, counts a fast case, releases the resolver's blocks. */
static inline fast_pair fast_run_pair(pl_fast_resolver *r, const pl_registration *portable,
                                      int32_t code, fast_run_fn run, const void *c,
                                      const void *out0, const void *out1)
{
    fast_pair p;
    p.want = run(c, portable, 0, &p.want_bytes);
    p.got = run(c, r->resolver.find(r, code, NULL, 0, 1), 1, &p.got_bytes);
    p.took_fast = r->host_bytes > r->capacity * sizeof(pl_fast_slot);
    fast_cases += p.took_fast;
    pl_fast_resolver_release(r);
    p.agree = p.want == p.got && p.want_bytes == p.got_bytes;
    p.equal = p.want != PL_OK || memcmp(out0, out1, p.want_bytes) == 0;
    return p;
}

/* r on threads threads, every job split however small (what the threaded cases run). */
static inline void split_every_job(pl_fast_resolver *r, int32_t threads)
{
    CHECK_EQ(pl_fast_resolver_set_threads(r, threads), PL_OK);
    r->parallel_min_work = 0.0;
}

/* `cases` random cases through a fresh resolver for isa on `threads` threads (every job
** split when more than one): *failures the cases that failed (all of them when the resolver
** cannot be made), *jobs the jobs split over the threads; fast_cases counts those that took
** the fast path. */
static inline void fast_run_cases(const pl_resolver *portable, pl_isa isa, int32_t threads,
                                  int cases, fast_case_fn one, int *failures, uint64_t *jobs)
{
    pl_fast_resolver r;
    *failures = cases;
    *jobs = 0;
    fast_cases = 0;
    CHECK_EQ(pl_fast_resolver_init(&r, portable, &host, isa), PL_OK);
    r.poison_scratch = true;
    if (threads > 1)
        split_every_job(&r, threads);
    *failures = 0;
    for (int k = 0; k < cases; k++)
        *failures += !one(&r);
    pl_fast_resolver_release(&r);
    CHECK_EQ(pl_fast_resolver_set_threads(&r, 1), PL_OK);
    *jobs = r.parallel_jobs;
}

/* One random case through r, counting a failure in *failures. */
typedef void fast_variant_fn(pl_fast_resolver *r, int *failures);

/* `cases` calls of one through a fresh resolver for every instruction set this CPU runs, on
** 1 and 3 threads (every job split), unfused and fused (*fused_madd set, the kernel
** harness's context; only where can_fuse says the set has the fused products). */
static inline void fast_variants_equal_portable(const pl_resolver *portable, bool *fused_madd,
                                                bool (*can_fuse)(pl_isa), int cases,
                                                fast_variant_fn *one)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        for (int run = 0; run < 4; run++) {
            const bool fused = run & 1;
            if (fused && !can_fuse((pl_isa)isa))
                continue;
            pl_fast_resolver r;
            CHECK_EQ(pl_fast_resolver_init(&r, portable, &host, (pl_isa)isa), PL_OK);
            r.poison_scratch = true;
            split_every_job(&r, run < 2 ? 1 : 3);
            int failures = 0;
            *fused_madd = fused;
            for (int n = 0; n < cases; n++)
                one(&r, &failures);
            *fused_madd = false;
            pl_fast_resolver_release(&r);
            CHECK_EQ(pl_fast_resolver_set_threads(&r, 1), PL_OK);
            CHECK_EQ(failures, 0);
        }
    }
}

/* On every instruction set this CPU runs: `cases` random cases against the portable
** resolver; prints "  <isa>: <what> N fast cases" (tests/test_fast_arm64.py reads it) and
** checks that none differed and that at least min_fast took the fast path. */
static inline void fast_equals_portable(const pl_resolver *portable, const char *what,
                                        int cases, int min_fast, fast_case_fn one)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        uint64_t jobs;
        int failures;
        fast_run_cases(portable, (pl_isa)isa, 1, cases, one, &failures, &jobs);
        printf("  %s: %s %d fast cases\n", pl_fast_isa_name((pl_isa)isa), what, fast_cases);
        CHECK_EQ(failures, 0);
        CHECK(fast_cases >= min_fast);
    }
}

/* fast_equals_portable on 3 threads with every job split: the cases must also have split
** at least min_jobs jobs on every set whose path is taken (taken NULL: every set), so a fast
** path that stopped splitting fails. */
static inline void fast_threads_split_where(const pl_resolver *portable, const char *what,
                                            int cases, uint64_t min_jobs, fast_case_fn one,
                                            bool (*taken)(pl_isa isa))
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        uint64_t jobs;
        int failures;
        fast_run_cases(portable, (pl_isa)isa, 3, cases, one, &failures, &jobs);
        printf("  %s, 3 threads: %s %d fast cases, %llu split jobs\n",
               pl_fast_isa_name((pl_isa)isa), what, fast_cases, (unsigned long long)jobs);
        CHECK_EQ(failures, 0);
        CHECK(jobs >= (taken == NULL || taken((pl_isa)isa) ? min_jobs : 0));
    }
}

static inline void fast_threads_equal_portable(const pl_resolver *portable, const char *what,
                                               int cases, uint64_t min_jobs, fast_case_fn one)
{
    fast_threads_split_where(portable, what, cases, min_jobs, one, NULL);
}

/* fast_equals_portable for a fused target (ctx->fused_madd, as tflm's; ctx is the kernels'
** context): every case takes the fast path where the instruction set has FMA (can_fuse),
** none where it has not (the portable kernel's fmaf runs them). Prints "  <isa>, fused:
** <what> N fast cases". */
static inline void fast_fused_equals_portable(const pl_resolver *portable, const char *what,
                                              int cases, fast_case_fn one,
                                              bool (*can_fuse)(pl_isa isa), pl_context *ctx)
{
    for (int isa = 1; isa < PL_ISA_COUNT; isa++) {
        if (!pl_fast_isa_available((pl_isa)isa))
            continue;
        uint64_t jobs;
        ctx->fused_madd = true;
        int failures;
        fast_run_cases(portable, (pl_isa)isa, 1, cases, one, &failures, &jobs);
        ctx->fused_madd = false;
        printf("  %s, fused: %s %d fast cases\n", pl_fast_isa_name((pl_isa)isa), what,
               fast_cases);
        CHECK_EQ(failures, 0);
        CHECK_EQ(fast_cases, can_fuse((pl_isa)isa) ? cases : 0);
    }
}

#endif
