/* optimal.c - the best plan a bounded, deterministic search finds.
**
** Candidates, best kept, stopping as soon as one reaches the live-bytes lower bound:
**   1. TFLM's greedy and TFLite's best fit (so the result is never worse than either);
**   2. six placement orders (size, size x lifetime, lifetime, first use, last use, bytes
**      live alongside), each placed by first fit and by best fit;
**   3. a local search from the best of those: swap two buffers in the order (nearby or
**      anywhere, from a fixed-seed generator), keep the order when it is no worse.
** Bounded time: 14 placements, then 2 per local-search step with min(256, 6e6 / n^2) steps
** (so at most 526, and none from n = 2450 on); each placement is an O(n log n) sort plus
** fit.c's search, never more than the O(n^2) list walk, so steps * n^2 stays under 12 million
** buffer visits. Measured (benchmarks/bench_planner.py, a busy 2-core host): 500 buffers
** 3 ms; 10,000 buffers of a network 0.6 s, 10,000 that mostly live at once 2.8 s (the 14
** fixed placements). Offline buffers stay put. */
#include "memory/planners.h"

#include <string.h>

#define KEY_COUNT 6
#define MAX_STEPS 256u
#define WORK_BUDGET 6000000u /* buffer visits the local search may spend */
#define NEAR_WINDOW 8u

typedef struct search {
    const pl_plan_buffer *bufs;
    uint32_t n;
    uint64_t *off;        /* the candidate being evaluated */
    uint64_t *best_off;   /* the best plan so far */
    uint64_t *key;        /* sort key of the current order */
    uint32_t *order;      /* candidate order */
    uint32_t *best_order; /* local-search position */
    uint32_t *placed;     /* the fit rules' working ids */
    void *sub;            /* scratch for greedy / bestfit, then the fit index */
    pl_fit fit;
    uint64_t lower;
    uint64_t best;
    uint32_t fixed;       /* offline buffers: the first entries of every order */
    uint32_t rng;
    pl_plan_poll *poll;   /* the host's interrupt check */
} search;

size_t pl_optimal_scratch_size(uint32_t count)
{
    size_t sub = pl_greedy_scratch_size(count);
    size_t bf = pl_bestfit_scratch_size(count);
    if (bf > sub)
        sub = bf;
    size_t own = pl_plan_array_bytes(count, 2 * sizeof(uint64_t) + 3 * sizeof(uint32_t));
    return sub == SIZE_MAX || own > SIZE_MAX - sub ? SIZE_MAX : own + sub;
}

/* Keeps off when it beats the best; true once the lower bound is reached. */
static int keep(search *s)
{
    uint64_t total = pl_plan_total(s->bufs, s->n, s->off);
    if (total < s->best) {
        s->best = total;
        memcpy(s->best_off, s->off, s->n * sizeof *s->off);
    }
    return s->best <= s->lower || s->poll->stopped;
}

static uint64_t key_of(const search *s, uint32_t i, int k)
{
    const pl_plan_buffer *b = &s->bufs[i];
    uint64_t life = (uint64_t)(b->last - b->first) + 1;
    switch (k) {
    case 0: return b->size;
    case 1: return b->size * life;
    case 2: return life;
    case 3: return (uint64_t)INT32_MAX - (uint64_t)b->first; /* earliest first */
    case 4: return (uint64_t)b->last;
    default: break;
    }
    uint64_t live = 0; /* bytes that must coexist with it somewhere: peak buffers first */
    uint32_t hits = pl_fit_overlapping(&s->fit, i, NULL, 0, s->placed);
    while (hits > 0)
        live += s->bufs[s->placed[--hits]].size;
    return live;
}

/* Offline first (index order), then key descending, size descending, index ascending. */
static int before(const void *ctx, uint32_t a, uint32_t b)
{
    const search *s = ctx;
    int a_off = s->bufs[a].offline_offset >= 0, b_off = s->bufs[b].offline_offset >= 0;
    if (a_off || b_off)
        return a_off && b_off ? a < b : a_off;
    if (s->key[a] != s->key[b])
        return s->key[a] > s->key[b];
    if (s->bufs[a].size != s->bufs[b].size)
        return s->bufs[a].size > s->bufs[b].size;
    return a < b;
}

/* Places the current order both ways; returns the better total, true in *done at the bound. */
static uint64_t try_order(search *s, int *done)
{
    pl_fit_place(&s->fit, s->n, s->order, s->placed, s->off, PL_FIT_FIRST, s->poll);
    uint64_t total = pl_plan_total(s->bufs, s->n, s->off);
    *done = keep(s);
    if (*done)
        return total;
    pl_fit_place(&s->fit, s->n, s->order, s->placed, s->off, PL_FIT_BEST, s->poll);
    uint64_t bf = pl_plan_total(s->bufs, s->n, s->off);
    *done = keep(s);
    return bf < total ? bf : total;
}

/* The sorted orders; leaves the best of them in best_order and returns its total. */
static uint64_t try_keys(search *s, int *done)
{
    uint64_t best = UINT64_MAX;
    for (int k = 0; k < KEY_COUNT && !*done; k++) {
        for (uint32_t i = 0; i < s->n; i++) {
            s->order[i] = i;
            s->key[i] = key_of(s, i, k);
        }
        pl_plan_sort(s->order, s->n, before, s);
        uint64_t total = try_order(s, done);
        if (total < best) {
            best = total;
            memcpy(s->best_order, s->order, s->n * sizeof *s->order);
        }
    }
    return best;
}

static uint32_t next_random(search *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 17;
    s->rng ^= s->rng << 5;
    return s->rng;
}

/* Swaps two online buffers of best_order into order: nearby on even steps, anywhere on odd. */
static void perturb(search *s, uint32_t step)
{
    uint32_t online = s->n - s->fixed;
    memcpy(s->order, s->best_order, s->n * sizeof *s->order);
    uint32_t i = s->fixed + next_random(s) % online;
    uint32_t j = s->fixed + next_random(s) % online;
    if (step % 2 == 0) {
        uint32_t reach = online - 1 < NEAR_WINDOW ? online - 1 : NEAR_WINDOW;
        j = i + 1 + next_random(s) % reach;
        if (j >= s->n)
            j = i - (j - s->n) - 1;
    }
    uint32_t t = s->order[i];
    s->order[i] = s->order[j];
    s->order[j] = t;
}

static void local_search(search *s, uint64_t current)
{
    if (s->n - s->fixed < 2)
        return;
    uint64_t per_step = (uint64_t)s->n * s->n + 1;
    /* in 32 bits: a 64-bit division would link libgcc's on a 32-bit device */
    uint32_t steps = per_step > WORK_BUDGET ? 0 : WORK_BUDGET / (uint32_t)per_step;
    if (steps > MAX_STEPS)
        steps = MAX_STEPS;
    int done = 0;
    for (uint32_t step = 0; step < steps && !done; step++) {
        perturb(s, step);
        uint64_t total = try_order(s, &done);
        if (total <= current) {
            current = total;
            memcpy(s->best_order, s->order, s->n * sizeof *s->order);
        }
    }
}

static void carve(search *s, const pl_plan_buffer *bufs, uint32_t n, uint64_t *off, void *mem,
                  pl_plan_poll *poll)
{
    s->bufs = bufs;
    s->n = n;
    s->off = off;
    s->best_off = mem;
    s->key = s->best_off + n;
    s->order = (uint32_t *)(void *)(s->key + n);
    s->best_order = s->order + n;
    s->placed = s->best_order + n;
    s->sub = s->placed + n;
    s->lower = pl_plan_lower_bound_sorted(bufs, n, s->sub); /* sub is free until greedy */
    s->poll = poll;
    s->best = UINT64_MAX;
    s->fixed = 0;
    for (uint32_t i = 0; i < n; i++)
        s->fixed += bufs[i].offline_offset >= 0;
    s->rng = 0x9E3779B9u ^ n;
}

void pl_optimal_plan(const pl_plan_buffer *bufs, uint32_t n, uint64_t *off, void *scratch,
                     pl_plan_poll *poll)
{
    if (n == 0)
        return;
    search s;
    carve(&s, bufs, n, off, scratch, poll);
    pl_greedy_plan(bufs, n, off, s.sub, poll);
    int done = keep(&s);
    if (!done) {
        pl_bestfit_plan(bufs, n, off, s.sub, poll);
        done = keep(&s);
    }
    if (!done) {
        pl_fit_index(&s.fit, bufs, n, s.sub);
        uint64_t current = try_keys(&s, &done);
        if (!done)
            local_search(&s, current);
    }
    memcpy(off, s.best_off, n * sizeof *off);
}
