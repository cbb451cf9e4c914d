/* test_planner.c - greedy (TFLM's exact offsets), bestfit (TFLite's), linear, optimal,
** the lower bound, validation, and invariants on random buffer lists. */
#include "harness.h"
#include "picolite/pl_plan.h"

#include <stdint.h>
#include <time.h>

#define MAX_BUFS 600

static _Alignas(16) uint8_t scratch[64 * MAX_BUFS];
static pl_plan_buffer bufs[MAX_BUFS];
static uint32_t rng_state;

static uint32_t rng(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

/* Fills bufs from {size, first, last} triples, all planned online. */
static uint32_t load(const int32_t (*spec)[3], uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        pl_plan_buffer b = {(uint32_t)spec[i][0], spec[i][1], spec[i][2], -1, 0, 0xdeadu};
        bufs[i] = b;
    }
    return n;
}

static pl_status plan(pl_planner p, uint32_t n, uint32_t *total)
{
    pl_error err;
    pl_error_clear(&err);
    return pl_plan_compute(p, bufs, n, scratch, sizeof scratch, total, &err);
}

static uint32_t total_of(pl_planner p, uint32_t n)
{
    uint32_t total = 0;
    return plan(p, n, &total) == PL_OK ? total : UINT32_MAX;
}

/* No two buffers live at the same node share a byte, and total is the highest end. */
static int plan_is_valid(uint32_t n, uint32_t total)
{
    uint64_t top = 0;
    for (uint32_t i = 0; i < n; i++) {
        const pl_plan_buffer *a = &bufs[i];
        if ((uint64_t)a->offset + a->size > top)
            top = (uint64_t)a->offset + a->size;
        for (uint32_t j = i + 1; j < n; j++) {
            const pl_plan_buffer *b = &bufs[j];
            int in_time = a->first <= b->last && b->first <= a->last;
            int in_space = a->size > 0 && b->size > 0 &&
                           (uint64_t)a->offset < (uint64_t)b->offset + b->size &&
                           (uint64_t)b->offset < (uint64_t)a->offset + a->size;
            if (in_time && in_space)
                return 0;
        }
    }
    return top == total;
}

/* ---- greedy: TFLM's examples and tests ---- */

static void greedy_seed_example(void)
{
    static const int32_t spec[][3] = {{100, 0, 1}, {80, 2, 3}, {50, 1, 2}};
    uint32_t total;
    CHECK_EQ(plan(PL_PLANNER_GREEDY, load(spec, 3), &total), PL_OK);
    CHECK_EQ(bufs[0].offset, 0);
    CHECK_EQ(bufs[1].offset, 0);
    CHECK_EQ(bufs[2].offset, 100);
    CHECK_EQ(total, 150);
}

static void greedy_tflm_basics(void)
{
    static const int32_t spec[][3] = {{10, 0, 1}, {20, 2, 3}};
    uint32_t total;
    CHECK_EQ(plan(PL_PLANNER_GREEDY, load(spec, 2), &total), PL_OK);
    CHECK_EQ(bufs[0].offset, 0);
    CHECK_EQ(bufs[1].offset, 0);
    CHECK_EQ(total, 20);
}

static void greedy_tflm_medium(void)
{
    static const int32_t spec[][3] = {{10, 0, 1}, {20, 1, 2}, {30, 2, 3}, {40, 3, 4},
                                      {50, 0, 1}};
    static const uint32_t want[] = {50, 70, 40, 0, 0};
    uint32_t total;
    CHECK_EQ(plan(PL_PLANNER_GREEDY, load(spec, 5), &total), PL_OK);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(bufs[i].offset, want[i]);
    CHECK_EQ(total, 90);
}

static void greedy_tflm_overlap_case(void)
{
    static const int32_t spec[][3] = {{100, 0, 1}, {50, 2, 3}, {20, 1, 2}};
    uint32_t total;
    CHECK_EQ(plan(PL_PLANNER_GREEDY, load(spec, 3), &total), PL_OK);
    CHECK_EQ(total, 120);
    CHECK(plan_is_valid(3, total));
}

/* TFLM's person-detection buffer list (greedy_memory_planner_test.cc). */
static const int32_t person_detection[][3] = {
    {9216, 0, 29},  {3, 28, 29},    {256, 27, 28},  {2304, 26, 27}, {2304, 25, 26},
    {2304, 24, 25}, {1152, 23, 24}, {4608, 22, 23}, {4608, 21, 22}, {4608, 20, 21},
    {4608, 19, 20}, {4608, 18, 19}, {4608, 17, 18}, {4608, 16, 17}, {4608, 15, 16},
    {4608, 14, 15}, {4608, 13, 14}, {4608, 12, 13}, {2304, 11, 12}, {9216, 10, 11},
    {9216, 9, 10},  {9216, 8, 9},   {4608, 7, 8},   {18432, 6, 7},  {18432, 5, 6},
    {18432, 4, 5},  {9216, 3, 4},   {36864, 2, 3},  {18432, 1, 2},  {18432, 0, 1},
};

static void greedy_tflm_person_detection(void)
{
    uint32_t total;
    uint32_t n = load(person_detection, 30);
    CHECK_EQ(plan(PL_PLANNER_GREEDY, n, &total), PL_OK);
    CHECK(plan_is_valid(n, total));
    CHECK(total < 241027u); /* TFLM's test: below the sum of all buffers */
    CHECK_EQ(total, 64512);
    CHECK_EQ(bufs[27].offset, 0); /* the 36864-byte buffer is placed first */
}

/* TFLM's plan print for hello_world: equal sizes are placed in reverse given order. */
static void greedy_hello_world_plan(void)
{
    static const int32_t spec[][3] = {{16, 0, 1}, {64, 1, 2}, {64, 2, 3}, {16, 3, 3}};
    static const uint32_t want[] = {0, 64, 0, 64};
    uint32_t total;
    CHECK_EQ(plan(PL_PLANNER_GREEDY, load(spec, 4), &total), PL_OK);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(bufs[i].offset, want[i]);
    CHECK_EQ(total, 128);
}

static void greedy_equal_sizes_reverse_order(void)
{
    static const int32_t spec[][3] = {{32, 0, 4}, {32, 0, 4}, {32, 0, 4}};
    uint32_t total;
    CHECK_EQ(plan(PL_PLANNER_GREEDY, load(spec, 3), &total), PL_OK);
    CHECK_EQ(bufs[2].offset, 0);
    CHECK_EQ(bufs[1].offset, 32);
    CHECK_EQ(bufs[0].offset, 64);
}

static void greedy_plans_around_offline(void)
{
    static const int32_t spec[][3] = {{100, 0, 2}, {40, 0, 1}, {60, 1, 2}};
    uint32_t total;
    load(spec, 3);
    bufs[0].offline_offset = 50;
    CHECK_EQ(plan(PL_PLANNER_GREEDY, 3, &total), PL_OK);
    CHECK_EQ(bufs[0].offset, 50);
    CHECK_EQ(bufs[1].offset, 0);  /* fits the 50-byte gap below the offline buffer */
    CHECK_EQ(bufs[2].offset, 150);
    CHECK_EQ(total, 210);
}

/* ---- bestfit: TFLite's ArenaPlanner ---- */

/* The reference doc's example: tensors i..v with i > v > ii > iv > iii, plus I/O. */
static void bestfit_reference_example(void)
{
    static const int32_t spec[][3] = {{32, 0, 6}, {32, 0, 6}, {100, 1, 2}, {80, 2, 4},
                                      {60, 3, 5}, {70, 5, 6}, {90, 4, 5}};
    static const uint32_t want[] = {0, 32, 64, 164, 244, 154, 64};
    uint32_t total;
    load(spec, 7);
    bufs[0].flags = bufs[1].flags = PL_PLAN_IO;
    CHECK_EQ(plan(PL_PLANNER_BESTFIT, 7, &total), PL_OK);
    for (int i = 0; i < 7; i++)
        CHECK_EQ(bufs[i].offset, want[i]);
    CHECK_EQ(total, 64 + 100 + 80 + 60); /* I/O + i + ii + iii */
}

static void bestfit_takes_smallest_gap(void)
{
    static const int32_t spec[][3] = {{10, 0, 5}, {10, 0, 5}, {10, 0, 5}, {12, 0, 5}};
    uint32_t total;
    load(spec, 4);
    bufs[0].offline_offset = 0;
    bufs[1].offline_offset = 60;
    bufs[2].offline_offset = 85;
    CHECK_EQ(plan(PL_PLANNER_BESTFIT, 4, &total), PL_OK);
    CHECK_EQ(bufs[3].offset, 70); /* the 15-byte gap, not the 50-byte one */
    CHECK_EQ(plan(PL_PLANNER_GREEDY, 4, &total), PL_OK);
    CHECK_EQ(bufs[3].offset, 10); /* first fit */
}

static void bestfit_ties_by_first_use_then_index(void)
{
    static const int32_t spec[][3] = {{32, 2, 5}, {32, 0, 5}, {32, 1, 5}, {32, 1, 5}};
    uint32_t total;
    CHECK_EQ(plan(PL_PLANNER_BESTFIT, load(spec, 4), &total), PL_OK);
    CHECK_EQ(bufs[1].offset, 0);
    CHECK_EQ(bufs[2].offset, 32);
    CHECK_EQ(bufs[3].offset, 64);
    CHECK_EQ(bufs[0].offset, 96);
}

static void bestfit_places_io_first_in_order(void)
{
    static const int32_t spec[][3] = {{16, 0, 3}, {200, 1, 2}, {48, 0, 3}};
    uint32_t total;
    load(spec, 3);
    bufs[0].flags = bufs[2].flags = PL_PLAN_IO;
    CHECK_EQ(plan(PL_PLANNER_BESTFIT, 3, &total), PL_OK);
    CHECK_EQ(bufs[0].offset, 0);
    CHECK_EQ(bufs[2].offset, 16);
    CHECK_EQ(bufs[1].offset, 64);
}

/* ---- linear, optimal, lower bound ---- */

static void linear_never_reuses(void)
{
    static const int32_t spec[][3] = {{100, 0, 1}, {80, 2, 3}, {50, 1, 2}};
    uint32_t total;
    CHECK_EQ(plan(PL_PLANNER_LINEAR, load(spec, 3), &total), PL_OK);
    CHECK_EQ(bufs[0].offset, 0);
    CHECK_EQ(bufs[1].offset, 100);
    CHECK_EQ(bufs[2].offset, 180);
    CHECK_EQ(total, 230);
    bufs[1].offline_offset = 500;
    CHECK_EQ(plan(PL_PLANNER_LINEAR, 3, &total), PL_OK);
    CHECK_EQ(bufs[1].offset, 500);
    CHECK_EQ(bufs[0].offset, 580);
    CHECK_EQ(bufs[2].offset, 680);
}

/* A conv chain with two residual skips where greedy and bestfit both waste 12 KiB. */
static const int32_t residual_chain[][3] = {
    {1024, 0, 1},  {6144, 1, 4},   {16384, 2, 3}, {8192, 3, 4},  {12288, 4, 5},
    {16384, 5, 6}, {8192, 6, 7},   {8192, 7, 8},  {4096, 8, 9},  {8192, 9, 10},
    {2048, 10, 11}, {2048, 11, 12}, {12288, 12, 14}, {8192, 13, 14},
};

static void optimal_reaches_lower_bound_where_greedy_does_not(void)
{
    uint32_t n = load(residual_chain, 14);
    CHECK_EQ(pl_plan_lower_bound(bufs, n), 30720);
    CHECK_EQ(total_of(PL_PLANNER_GREEDY, n), 43008);
    CHECK_EQ(total_of(PL_PLANNER_BESTFIT, n), 43008);
    uint32_t total;
    CHECK_EQ(plan(PL_PLANNER_OPTIMAL, n, &total), PL_OK);
    CHECK_EQ(total, 30720);
    CHECK(plan_is_valid(n, total));
}

static void optimal_beats_greedy_on_tflm_medium(void)
{
    static const int32_t spec[][3] = {{10, 0, 1}, {20, 1, 2}, {30, 2, 3}, {40, 3, 4},
                                      {50, 0, 1}};
    uint32_t n = load(spec, 5), total;
    CHECK_EQ(total_of(PL_PLANNER_GREEDY, n), 90);
    CHECK_EQ(plan(PL_PLANNER_OPTIMAL, n, &total), PL_OK);
    CHECK_EQ(total, 80); /* the lower bound: 10 + 20 + 50 live at node 1 */
    CHECK_EQ(pl_plan_lower_bound(bufs, n), 80);
    CHECK(plan_is_valid(n, total));
}

static void optimal_is_deterministic(void)
{
    uint32_t n = load(residual_chain, 14), first[14], total;
    CHECK_EQ(plan(PL_PLANNER_OPTIMAL, n, &total), PL_OK);
    for (uint32_t i = 0; i < n; i++)
        first[i] = bufs[i].offset;
    CHECK_EQ(plan(PL_PLANNER_OPTIMAL, n, &total), PL_OK);
    for (uint32_t i = 0; i < n; i++)
        CHECK_EQ(bufs[i].offset, first[i]);
}

static void lower_bound_is_peak_live_bytes(void)
{
    static const int32_t spec[][3] = {{100, 0, 1}, {80, 2, 3}, {50, 1, 2}};
    CHECK_EQ(pl_plan_lower_bound(bufs, 0), 0);
    CHECK_EQ(pl_plan_lower_bound(bufs, load(spec, 3)), 150);
    CHECK_EQ(pl_plan_lower_bound(bufs, load(person_detection, 30)), 64512);
}

/* ---- validation ---- */

static void rejects_bad_lifetimes(void)
{
    static const int32_t spec[][3] = {{16, 3, 2}, {16, -1, 2}};
    pl_error err;
    uint32_t total;
    load(spec, 2);
    CHECK_EQ(pl_plan_compute(PL_PLANNER_GREEDY, bufs, 1, scratch, sizeof scratch, &total,
                             &err), PL_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "plan buffer 0: bad lifetime [3, 2]");
    CHECK_EQ(pl_plan_compute(PL_PLANNER_OPTIMAL, bufs + 1, 1, scratch, sizeof scratch, &total,
                             &err), PL_ERR_ARG);
}

static void rejects_small_scratch(void)
{
    static const int32_t spec[][3] = {{16, 0, 1}, {16, 1, 2}};
    pl_error err;
    uint32_t total;
    load(spec, 2);
    for (int p = 0; p < PL_PLANNER_COUNT; p++) {
        size_t need = pl_plan_scratch_size((pl_planner)p, 2);
        CHECK_EQ(pl_plan_compute((pl_planner)p, bufs, 2, scratch, need - 1, &total, &err),
                 PL_ERR_ARG);
        CHECK_STR_CONTAINS(err.msg, "bytes of scratch for 2 buffers");
        /* Exactly the reported size works, at any alignment of the scratch pointer. */
        CHECK_EQ(pl_plan_compute((pl_planner)p, bufs, 2, scratch + 3, need, &total, &err),
                 PL_OK);
    }
}

static void rejects_overlapping_offline_buffers(void)
{
    static const int32_t spec[][3] = {{64, 0, 2}, {64, 2, 3}, {64, 3, 4}};
    pl_error err;
    uint32_t total;
    load(spec, 3);
    bufs[0].offline_offset = 0;
    bufs[1].offline_offset = 32;
    CHECK_EQ(pl_plan_compute(PL_PLANNER_BESTFIT, bufs, 3, scratch, sizeof scratch, &total,
                             &err), PL_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "overlap in time and space");
    bufs[1].first = 3; /* same bytes, different nodes: a valid offline plan */
    CHECK_EQ(plan(PL_PLANNER_BESTFIT, 3, &total), PL_OK);
}

static void rejects_heads_beyond_4gib(void)
{
    static const int32_t spec[][3] = {{0, 0, 0}, {0, 1, 1}};
    load(spec, 2);
    bufs[0].size = bufs[1].size = 3000000000u;
    uint32_t total;
    CHECK_EQ(plan(PL_PLANNER_GREEDY, 2, &total), PL_OK); /* reused: 3e9 fits */
    CHECK_EQ(total, 3000000000u);
    CHECK_EQ(plan(PL_PLANNER_LINEAR, 2, &total), PL_ERR_ARG);
}

static void names_round_trip(void)
{
    pl_error err;
    pl_planner p;
    for (int i = 0; i < PL_PLANNER_COUNT; i++) {
        CHECK_EQ(pl_planner_from_name(pl_planner_name((pl_planner)i), &p, &err), PL_OK);
        CHECK_EQ(p, i);
    }
    CHECK(pl_planner_name(PL_PLANNER_COUNT) == NULL);
    CHECK_EQ(pl_planner_from_name("fast", &p, &err), PL_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "greedy, bestfit, linear, optimal");
}

static void empty_list_has_zero_head(void)
{
    uint32_t total = 7;
    for (int p = 0; p < PL_PLANNER_COUNT; p++) {
        CHECK_EQ(plan((pl_planner)p, 0, &total), PL_OK);
        CHECK_EQ(total, 0);
    }
}

/* ---- invariants on random lists ---- */

static uint32_t random_list(int with_offline)
{
    uint32_t n = 1 + rng() % 60;
    uint32_t next_fixed = 0;
    for (uint32_t i = 0; i < n; i++) {
        pl_plan_buffer b = {rng() % 4 == 0 ? 16 * (1 + rng() % 32) : rng() % 500,
                            (int32_t)(rng() % 30), 0, -1, rng() % 10 == 0 ? PL_PLAN_IO : 0, 0};
        b.last = b.first + (int32_t)(rng() % (rng() % 2 ? 3 : 20));
        if (with_offline && rng() % 5 == 0) {
            b.offline_offset = (int32_t)next_fixed; /* disjoint addresses: always valid */
            next_fixed += b.size + rng() % 64;
        }
        bufs[i] = b;
    }
    return n;
}

static void random_lists_keep_invariants(void)
{
    rng_state = 12345;
    for (int c = 0; c < 400; c++) {
        int with_offline = c % 3 == 0;
        uint32_t n = random_list(with_offline), t[PL_PLANNER_COUNT];
        uint64_t lower = pl_plan_lower_bound(bufs, n), sum = 0;
        for (uint32_t i = 0; i < n; i++)
            sum += bufs[i].size;
        for (int p = 0; p < PL_PLANNER_COUNT; p++) {
            CHECK_EQ(plan((pl_planner)p, n, &t[p]), PL_OK);
            CHECK(plan_is_valid(n, t[p]));
            CHECK(t[p] >= lower);
            for (uint32_t i = 0; i < n; i++)
                CHECK(bufs[i].offline_offset < 0 ||
                      bufs[i].offset == (uint32_t)bufs[i].offline_offset);
        }
        CHECK(t[PL_PLANNER_OPTIMAL] <= t[PL_PLANNER_GREEDY]);
        CHECK(t[PL_PLANNER_OPTIMAL] <= t[PL_PLANNER_BESTFIT]);
        if (!with_offline)
            CHECK_EQ(t[PL_PLANNER_LINEAR], sum);
    }
}

/* 500 buffers, two per node, a third of them long-lived: a search that does not reach
** the lower bound runs its whole budget, which must stay bounded. */
static void optimal_is_fast_on_500_buffers(void)
{
    rng_state = 99;
    for (uint32_t i = 0; i < 500; i++) {
        pl_plan_buffer b = {16 * (1 + rng() % 256), (int32_t)(i / 2), (int32_t)(i / 2) + 1,
                            -1, 0, 0};
        b.last += (int32_t)(rng() % 3 == 0 ? rng() % 12 : 0);
        bufs[i] = b;
    }
    clock_t start = clock();
    uint32_t total;
    CHECK_EQ(plan(PL_PLANNER_OPTIMAL, 500, &total), PL_OK);
    double ms = 1000.0 * (double)(clock() - start) / CLOCKS_PER_SEC;
    printf("     optimal on 500 buffers: %.1f ms, head %u, greedy %u, lower bound %llu\n", ms,
           total, total_of(PL_PLANNER_GREEDY, 500),
           (unsigned long long)pl_plan_lower_bound(bufs, 500));
    CHECK(ms < 500.0); /* 50 ms in a release build; the slack is for sanitizer builds */
    CHECK(plan_is_valid(500, total_of(PL_PLANNER_OPTIMAL, 500)));
}

int main(void)
{
    RUN(greedy_seed_example);
    RUN(greedy_tflm_basics);
    RUN(greedy_tflm_medium);
    RUN(greedy_tflm_overlap_case);
    RUN(greedy_tflm_person_detection);
    RUN(greedy_hello_world_plan);
    RUN(greedy_equal_sizes_reverse_order);
    RUN(greedy_plans_around_offline);
    RUN(bestfit_reference_example);
    RUN(bestfit_takes_smallest_gap);
    RUN(bestfit_ties_by_first_use_then_index);
    RUN(bestfit_places_io_first_in_order);
    RUN(linear_never_reuses);
    RUN(optimal_reaches_lower_bound_where_greedy_does_not);
    RUN(optimal_beats_greedy_on_tflm_medium);
    RUN(optimal_is_deterministic);
    RUN(lower_bound_is_peak_live_bytes);
    RUN(rejects_bad_lifetimes);
    RUN(rejects_small_scratch);
    RUN(rejects_overlapping_offline_buffers);
    RUN(rejects_heads_beyond_4gib);
    RUN(names_round_trip);
    RUN(empty_list_has_zero_head);
    RUN(random_lists_keep_invariants);
    RUN(optimal_is_fast_on_500_buffers);
    return HARNESS_END();
}
