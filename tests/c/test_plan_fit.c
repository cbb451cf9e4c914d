/* test_plan_fit.c - the fast planners against the list walks they replace.
**
** The reference functions below are the plain O(n^2) walks (TFLM's GreedyMemoryPlanner list,
** SimpleMemoryArena::Allocate's gap search, the optimal planner's first fit), kept here in
** the test only. Every instance is planned both ways and every 64-bit offset must agree:
** random lifetimes and sizes with many ties, empty buffers, offline buffers, model inputs,
** lists dense enough that the fit rules switch to their offset-ordered list, and edges. */
#include "harness.h"
#include "memory/planners.h"

#include <stdint.h>

#define MAX_BUFS 3000

static pl_plan_buffer bufs[MAX_BUFS];
static uint64_t off_ref[MAX_BUFS], off_new[MAX_BUFS];
static uint32_t order[MAX_BUFS], work[MAX_BUFS], ref_ids[MAX_BUFS], ref_next[MAX_BUFS];
static _Alignas(8) uint32_t scratch[4 * MAX_BUFS];
static uint32_t rng_state;

static uint32_t rng(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

static int overlap(uint32_t a, uint32_t b)
{
    return bufs[a].first <= bufs[b].last && bufs[b].first <= bufs[a].last;
}

/* ---- the references ---- */

/* TFLM's order: offline by index, then size descending, equal sizes by index descending. */
static int ref_greedy_before(uint32_t a, uint32_t b)
{
    int a_off = bufs[a].offline_offset >= 0, b_off = bufs[b].offline_offset >= 0;
    if (a_off || b_off)
        return a_off && b_off ? a < b : a_off;
    if (bufs[a].size != bufs[b].size)
        return bufs[a].size > bufs[b].size;
    return a > b;
}

/* TFLite's order: offline, then inputs/outputs by index, then size desc, first asc, index. */
static int ref_bestfit_before(uint32_t a, uint32_t b)
{
    int a_off = bufs[a].offline_offset >= 0, b_off = bufs[b].offline_offset >= 0;
    if (a_off || b_off)
        return a_off && b_off ? a < b : a_off;
    int a_io = (bufs[a].flags & PL_PLAN_IO) != 0, b_io = (bufs[b].flags & PL_PLAN_IO) != 0;
    if (a_io || b_io)
        return a_io && b_io ? a < b : a_io;
    if (bufs[a].size != bufs[b].size)
        return bufs[a].size > bufs[b].size;
    if (bufs[a].first != bufs[b].first)
        return bufs[a].first < bufs[b].first;
    return a < b;
}

/* Insertion sort: slow and obviously right. */
static void ref_sort(uint32_t n, int (*before)(uint32_t, uint32_t))
{
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    for (uint32_t i = 1; i < n; i++) {
        uint32_t v = order[i], k = i;
        for (; k > 0 && before(v, order[k - 1]); k--)
            order[k] = order[k - 1];
        order[k] = v;
    }
}

/* TFLM's walk over its linked list: entries in offset order, equal offsets in placement
** order; every placed buffer is listed, empty ones included. */
static void ref_greedy(uint32_t n)
{
    uint32_t head = 0, count = 0;
    for (uint32_t e = 0; e < n; e++) {
        uint32_t want = order[e];
        off_ref[want] = bufs[want].offline_offset >= 0 ? (uint64_t)bufs[want].offline_offset : 0;
        if (bufs[want].offline_offset < 0 && count > 0) {
            uint64_t candidate = 0;
            uint32_t x = head;
            for (uint32_t k = 0; k < count; k++, x = ref_next[x]) {
                uint32_t p = ref_ids[x];
                if (!overlap(p, want))
                    continue;
                if (off_ref[p] >= candidate && off_ref[p] - candidate >= bufs[want].size)
                    break;
                if (off_ref[p] + bufs[p].size > candidate)
                    candidate = off_ref[p] + bufs[p].size;
            }
            off_ref[want] = candidate;
        }
        ref_ids[e] = want;
        if (count == 0 || off_ref[ref_ids[head]] > off_ref[want]) {
            ref_next[e] = head;
            head = e;
        } else {
            uint32_t cur = head;
            for (uint32_t k = 1; k < count && off_ref[ref_ids[ref_next[cur]]] <= off_ref[want]; k++)
                cur = ref_next[cur];
            ref_next[e] = ref_next[cur];
            ref_next[cur] = e;
        }
        count++;
    }
}

/* The optimal planner's first fit (empty buffers unlisted) or TFLite's best fit, over an
** offset-sorted array of the placed buffers. */
static void ref_place(uint32_t n, int best_rule)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = order[i], size = bufs[id].size;
        uint64_t current = 0, best = UINT64_MAX, best_room = UINT64_MAX;
        for (uint32_t k = 0; k < count && bufs[id].offline_offset < 0 && size > 0; k++) {
            uint32_t p = ref_ids[k];
            if (!overlap(p, id))
                continue;
            if (current + size <= off_ref[p] && off_ref[p] - current < best_room) {
                best = current;
                best_room = off_ref[p] - current;
                if (!best_rule)
                    break;
            }
            if (off_ref[p] + bufs[p].size > current)
                current = off_ref[p] + bufs[p].size;
        }
        off_ref[id] = bufs[id].offline_offset >= 0 ? (uint64_t)bufs[id].offline_offset
                      : size == 0                 ? 0
                      : best != UINT64_MAX        ? best
                                                  : current;
        if (size == 0)
            continue;
        uint32_t k = count++;
        for (; k > 0 && off_ref[ref_ids[k - 1]] >= off_ref[id]; k--)
            ref_ids[k] = ref_ids[k - 1];
        ref_ids[k] = id;
    }
}

/* ---- instances ---- */

typedef struct shape {
    uint32_t n;
    uint32_t horizon;  /* node indices 0 .. horizon-1 */
    uint32_t max_life; /* lifetimes up to this many nodes (0: up to the horizon's end) */
    uint32_t sizes;    /* 0: 1..4 x 16 (many ties), 1: any up to 5000, 2: huge, 3: one size */
    uint32_t offline;  /* one in this many buffers offline (0: none) */
} shape;

static uint32_t random_size(uint32_t kind)
{
    if (rng() % 8 == 0)
        return 0;
    switch (kind) {
    case 0: return 16 * (1 + rng() % 4);
    case 1: return rng() % 5000;
    case 2: return UINT32_MAX - rng() % 3;
    default: return 48;
    }
}

/* Offline buffers sit on a stack of their own below a random base, so they never collide. */
static void make(const shape *s)
{
    uint64_t stack = rng() % 3 == 0 ? 0 : 16 * (rng() % 64);
    for (uint32_t i = 0; i < s->n; i++) {
        pl_plan_buffer b = {random_size(s->sizes), (int32_t)(rng() % s->horizon), 0, -1, 0, 7};
        uint32_t room = s->horizon - (uint32_t)b.first;
        uint32_t life = s->max_life == 0 || s->max_life > room ? room : s->max_life;
        b.last = b.first + (int32_t)(rng() % life);
        b.flags = rng() % 16 == 0 ? PL_PLAN_IO : 0;
        if (s->offline > 0 && rng() % s->offline == 0 && stack + b.size < INT32_MAX) {
            b.offline_offset = (int32_t)stack;
            stack += b.size + (rng() % 2) * 16;
        }
        bufs[i] = b;
    }
}

static int same_offsets(uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (off_ref[i] != off_new[i])
            return 0;
    return 1;
}

static pl_plan_poll no_poll(void)
{
    pl_plan_poll p = {NULL, NULL, PL_PLAN_POLL_EVERY, 0};
    return p;
}

/* Greedy, bestfit and both fit rules on an arbitrary order; 0 when all agree. */
static int compare(uint32_t n)
{
    pl_plan_poll poll = no_poll();
    pl_fit fit;
    ref_sort(n, ref_greedy_before);
    ref_greedy(n);
    pl_greedy_plan(bufs, n, off_new, scratch, &poll);
    if (!same_offsets(n))
        return 1;
    ref_sort(n, ref_bestfit_before);
    ref_place(n, 1);
    pl_bestfit_plan(bufs, n, off_new, scratch, &poll);
    if (!same_offsets(n))
        return 2;
    /* Any order with the offline buffers first, as the optimal planner's search makes. */
    ref_sort(n, ref_bestfit_before);
    uint32_t fixed = 0;
    while (fixed < n && bufs[order[fixed]].offline_offset >= 0)
        fixed++;
    for (uint32_t i = n; i > fixed + 1; i--) {
        uint32_t j = fixed + rng() % (i - fixed), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    pl_fit_index(&fit, bufs, n, scratch);
    for (int best = 0; best < 2; best++) {
        ref_place(n, best);
        pl_fit_place(&fit, n, order, work, off_new, best ? PL_FIT_BEST : PL_FIT_FIRST, &poll);
        if (!same_offsets(n))
            return 3 + best;
    }
    return 0;
}

static void report(const char *what, uint32_t c, const shape *s, int rc)
{
    static const char *const rule[] = {"", "greedy", "bestfit", "first fit", "best fit"};
    fprintf(stderr, "%s instance %u (n %u, horizon %u, life %u, sizes %u, offline %u): %s "
            "differs from the reference\n", what, c, s->n, s->horizon, s->max_life, s->sizes,
            s->offline, rule[rc]);
}

/* ---- tests ---- */

/* Thousands of small lists: every lifetime, size and tie pattern. */
static void small_random_lists_match(void)
{
    rng_state = 2024;
    for (uint32_t c = 0; c < 6000; c++) {
        shape s = {1 + rng() % 60, 1 + rng() % 24, rng() % 8, rng() % 4, rng() % 4};
        make(&s);
        int rc = compare(s.n);
        if (rc != 0)
            report("small", c, &s, rc);
        CHECK_EQ(rc, 0);
    }
}

/* Larger lists: sparse ones keep the time index, dense ones (most buffers live at once)
** switch to the offset-ordered list part way through; some switch late. */
static void large_random_lists_match(void)
{
    rng_state = 77;
    for (uint32_t c = 0; c < 60; c++) {
        uint32_t n = 200 + rng() % 2800;
        shape s = {n, c % 3 == 0 ? 8 : n, c % 3 == 1 ? 20 : 0, rng() % 4, c % 2 ? 0 : 50};
        make(&s);
        int rc = compare(s.n);
        if (rc != 0)
            report("large", c, &s, rc);
        CHECK_EQ(rc, 0);
    }
}

/* Short lifetimes first, then a crowd of long-lived small buffers placed last. */
static void late_switch_matches(void)
{
    rng_state = 5;
    shape s = {2000, 2000, 10, 1, 0};
    make(&s);
    for (uint32_t i = 1500; i < 2000; i++) {
        bufs[i].size = 1 + rng() % 8;
        bufs[i].first = (int32_t)(rng() % 50);
        bufs[i].last = 1950 + (int32_t)(rng() % 50);
    }
    CHECK_EQ(compare(2000), 0);
}

static void edges_match(void)
{
    static const pl_plan_buffer edge[][4] = {
        /* all equal */
        {{32, 0, 3, -1, 0, 0}, {32, 0, 3, -1, 0, 0}, {32, 0, 3, -1, 0, 0}, {32, 0, 3, -1, 0, 0}},
        /* all empty */
        {{0, 0, 0, -1, 0, 0}, {0, 0, 5, -1, 0, 0}, {0, 2, 2, -1, 0, 0}, {0, 1, 4, -1, 0, 0}},
        /* an empty offline buffer inside a gap: TFLM's list splits the gap there */
        {{0, 0, 9, 40, 0, 0}, {32, 0, 1, 0, 0, 0}, {32, 0, 9, 80, 0, 0}, {48, 0, 9, -1, 0, 0}},
        /* offsets at the top of int32, sizes at the top of uint32 */
        {{UINT32_MAX, 0, 2, -1, 0, 0}, {UINT32_MAX, 1, 3, -1, 0, 0}, {5, 0, 0, INT32_MAX, 0, 0},
         {UINT32_MAX, 2, 2, -1, 0, 0}},
        /* one node, IO buffers */
        {{16, 7, 7, -1, PL_PLAN_IO, 0}, {64, 7, 7, -1, 0, 0}, {16, 7, 7, -1, PL_PLAN_IO, 0},
         {32, 7, 7, -1, 0, 0}},
    };
    for (uint32_t e = 0; e < sizeof edge / sizeof edge[0]; e++) {
        for (uint32_t n = 0; n <= 4; n++) {
            for (uint32_t i = 0; i < n; i++)
                bufs[i] = edge[e][i];
            CHECK_EQ(compare(n), 0);
        }
    }
}

/* The empty offline buffer at 40 splits [32, 80) for greedy: the 48-byte buffer goes to 112
** (after both), not 32; TFLite's list leaves empty buffers out, so bestfit takes 32. */
static void greedy_empty_buffer_splits_gap(void)
{
    static const pl_plan_buffer b[] = {{0, 0, 9, 40, 0, 0}, {32, 0, 9, 0, 0, 0},
                                       {32, 0, 9, 80, 0, 0}, {48, 0, 9, -1, 0, 0}};
    pl_plan_poll poll = no_poll();
    for (uint32_t i = 0; i < 4; i++)
        bufs[i] = b[i];
    pl_greedy_plan(bufs, 4, off_new, scratch, &poll);
    CHECK_EQ(off_new[3], 112);
    pl_bestfit_plan(bufs, 4, off_new, scratch, &poll);
    CHECK_EQ(off_new[3], 32);
}

int main(void)
{
    RUN(small_random_lists_match);
    RUN(large_random_lists_match);
    RUN(late_switch_matches);
    RUN(edges_match);
    RUN(greedy_empty_buffer_splits_gap);
    return HARNESS_END();
}
