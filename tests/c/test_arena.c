/* test_arena.c - the head/temp/tail arena: alignment, bounds, errors and the exact peak. */
#include "harness.h"
#include "memory/arena.h"

#include <stdint.h>

static _Alignas(16) uint8_t storage[1 << 16];

static uint32_t rng_state;

static uint32_t rng(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

static size_t record_size(void)
{
    pl_arena *a;
    pl_error err;
    pl_arena_create(storage, sizeof storage, &a, &err);
    return pl_arena_tail_size(a);
}

static void create_aligns_start_up_and_end_down(void)
{
    pl_arena *a;
    pl_error err;
    CHECK_EQ(pl_arena_create(storage + 3, 1000, &a, &err), PL_OK);
    CHECK(pl_arena_base(a) == storage + 16);
    CHECK_EQ(pl_arena_capacity(a), (1000 - 13) / 16 * 16);
    CHECK_EQ(pl_arena_head_size(a), 0);
    CHECK_EQ(pl_arena_free_size(a) + pl_arena_tail_size(a), pl_arena_capacity(a));
}

static void record_is_first_tail_allocation(void)
{
    pl_arena *a;
    pl_error err;
    CHECK_EQ(pl_arena_create(storage, 1024, &a, &err), PL_OK);
    CHECK_EQ(pl_arena_tail_size(a) % 16, 0);
    CHECK((uint8_t *)a == storage + 1024 - pl_arena_tail_size(a));
    CHECK_EQ(pl_arena_peak(a), pl_arena_tail_size(a));
}

static void create_fails_on_tiny_buffer_with_numbers(void)
{
    pl_arena *a;
    pl_error err;
    pl_error_clear(&err);
    CHECK_EQ(pl_arena_create(storage + 1, 20, &a, &err), PL_ERR_ARENA);
    CHECK_EQ(err.required, record_size());
    CHECK_EQ(err.available, 0);
    CHECK_STR_CONTAINS(err.msg, "arena too small");
    CHECK_EQ(pl_arena_create(NULL, 20, &a, &err), PL_ERR_ARG);
}

static void tail_allocations_align_down(void)
{
    pl_arena *a;
    pl_error err;
    void *p, *q;
    CHECK_EQ(pl_arena_create(storage, 1024, &a, &err), PL_OK);
    size_t rec = pl_arena_tail_size(a);
    CHECK_EQ(pl_arena_alloc_tail(a, 5, 1, &p, &err), PL_OK);
    CHECK_EQ(pl_arena_offset(a, p), 1024 - rec - 5);
    CHECK_EQ(pl_arena_alloc_tail(a, 3, 16, &q, &err), PL_OK);
    CHECK_EQ(pl_arena_offset(a, q) % 16, 0);
    CHECK_EQ(pl_arena_offset(a, q), (1024 - rec - 5 - 3) / 16 * 16);
    CHECK_EQ(pl_arena_tail_size(a), 1024 - pl_arena_offset(a, q));
}

static void temp_allocations_align_up_from_head(void)
{
    pl_arena *a;
    pl_error err;
    void *p, *q;
    CHECK_EQ(pl_arena_create(storage, 1024, &a, &err), PL_OK);
    CHECK_EQ(pl_arena_resize_head(a, 100, &err), PL_OK);
    CHECK_EQ(pl_arena_head_size(a), 112);
    CHECK_EQ(pl_arena_alloc_temp(a, 7, 1, &p, &err), PL_OK);
    CHECK_EQ(pl_arena_offset(a, p), 112);
    CHECK_EQ(pl_arena_alloc_temp(a, 8, 8, &q, &err), PL_OK);
    CHECK_EQ(pl_arena_offset(a, q), 120);
    CHECK_EQ(pl_arena_temp_size(a), 16);
    pl_arena_reset_temp(a);
    CHECK_EQ(pl_arena_temp_size(a), 0);
    CHECK_EQ(pl_arena_temp_high_water(a), 16);
}

static void head_resize_refused_while_temp_is_live(void)
{
    pl_arena *a;
    pl_error err;
    void *p;
    CHECK_EQ(pl_arena_create(storage, 1024, &a, &err), PL_OK);
    CHECK_EQ(pl_arena_alloc_temp(a, 32, 16, &p, &err), PL_OK);
    CHECK_EQ(pl_arena_resize_head(a, 64, &err), PL_ERR_STATE);
    pl_arena_reset_temp(a);
    CHECK_EQ(pl_arena_resize_head(a, 64, &err), PL_OK);
    CHECK_EQ(pl_arena_head_size(a), 64);
}

static void tail_may_not_cross_temp(void)
{
    pl_arena *a;
    pl_error err;
    void *p;
    CHECK_EQ(pl_arena_create(storage, 1024, &a, &err), PL_OK);
    size_t rec = pl_arena_tail_size(a);
    CHECK_EQ(pl_arena_resize_head(a, 256, &err), PL_OK);
    CHECK_EQ(pl_arena_alloc_temp(a, 512, 16, &p, &err), PL_OK);
    /* Fits above head (1024 - rec - 256) but not above temp. */
    size_t room_above_temp = 1024 - rec - 256 - 512;
    pl_error_clear(&err);
    CHECK_EQ(pl_arena_alloc_tail(a, room_above_temp + 16, 16, &p, &err), PL_ERR_ARENA);
    CHECK_EQ(err.required, 1024 + 16);
    CHECK_EQ(err.available, 1024);
    CHECK_EQ(pl_arena_alloc_tail(a, room_above_temp, 16, &p, &err), PL_OK);
    CHECK_EQ(pl_arena_free_size(a), 0);
}

static void temp_may_not_cross_tail(void)
{
    pl_arena *a;
    pl_error err;
    void *p;
    CHECK_EQ(pl_arena_create(storage, 1024, &a, &err), PL_OK);
    CHECK_EQ(pl_arena_alloc_tail(a, 512, 16, &p, &err), PL_OK);
    size_t room = pl_arena_free_size(a);
    CHECK_EQ(pl_arena_alloc_temp(a, room + 1, 1, &p, &err), PL_ERR_ARENA);
    CHECK_EQ(pl_arena_alloc_temp(a, room, 1, &p, &err), PL_OK);
    CHECK_EQ(pl_arena_alloc_temp(a, 0, 1, &p, &err), PL_OK);
    CHECK_EQ(pl_arena_alloc_temp(a, 1, 1, &p, &err), PL_ERR_ARENA);
}

static void failure_message_names_the_numbers(void)
{
    pl_arena *a;
    pl_error err;
    void *p;
    CHECK_EQ(pl_arena_create(storage, 1024, &a, &err), PL_OK);
    size_t rec = pl_arena_tail_size(a);
    CHECK_EQ(pl_arena_resize_head(a, 1024 - rec - 16, &err), PL_OK);
    pl_error_clear(&err);
    CHECK_EQ(pl_arena_alloc_tail(a, 96, 16, &p, &err), PL_ERR_ARENA);
    CHECK_EQ(err.required, 1024 + 80);
    char want[128];
    snprintf(want, sizeof want,
             "arena too small: tail allocation of 96 bytes needs %d bytes, arena has 1024",
             1024 + 80);
    CHECK(strcmp(err.msg, want) == 0);
    CHECK_EQ(pl_arena_resize_head(a, 2000, &err), PL_ERR_ARENA);
    CHECK_STR_CONTAINS(err.msg, "head of 2000 bytes");
}

static void huge_sizes_fail_without_overflow(void)
{
    pl_arena *a;
    pl_error err;
    void *p;
    CHECK_EQ(pl_arena_create(storage, 1024, &a, &err), PL_OK);
    CHECK_EQ(pl_arena_alloc_tail(a, SIZE_MAX, 16, &p, &err), PL_ERR_ARENA);
    CHECK_EQ(err.required, SIZE_MAX);
    CHECK_EQ(pl_arena_alloc_temp(a, SIZE_MAX - 3, 16, &p, &err), PL_ERR_ARENA);
    CHECK_EQ(pl_arena_resize_head(a, SIZE_MAX, &err), PL_ERR_ARENA);
    CHECK_EQ(pl_arena_alloc_tail(a, 16, 3, &p, &err), PL_ERR_ARG);
    CHECK_EQ(pl_arena_alloc_temp(a, 16, 32, &p, &err), PL_ERR_ARG);
    CHECK_EQ(pl_arena_tail_size(a), record_size());
}

/* A recorded call sequence, replayed on arenas of different usable sizes. */
enum { OP_TAIL, OP_TEMP, OP_RESET, OP_HEAD };
typedef struct op {
    int kind;
    size_t size, align;
} op;

static pl_status replay(const op *ops, int n, size_t usable, size_t *peak)
{
    pl_arena *a;
    pl_error err;
    void *p;
    PL_TRY(pl_arena_create(storage + 16, usable, &a, &err));
    for (int i = 0; i < n; i++) {
        if (ops[i].kind == OP_TAIL)
            PL_TRY(pl_arena_alloc_tail(a, ops[i].size, ops[i].align, &p, &err));
        else if (ops[i].kind == OP_TEMP)
            PL_TRY(pl_arena_alloc_temp(a, ops[i].size, ops[i].align, &p, &err));
        else if (ops[i].kind == OP_RESET)
            pl_arena_reset_temp(a);
        else
            PL_TRY(pl_arena_resize_head(a, ops[i].size, &err));
    }
    *peak = pl_arena_peak(a);
    return PL_OK;
}

static void peak_is_exact_for_fixed_sequence(void)
{
    static const op ops[] = {
        {OP_TAIL, 40, 8}, {OP_TAIL, 3, 1}, {OP_TEMP, 100, 16}, {OP_TEMP, 5, 4},
        {OP_TAIL, 24, 4}, {OP_RESET, 0, 0}, {OP_TEMP, 300, 16}, {OP_RESET, 0, 0},
        {OP_HEAD, 200, 0}, {OP_TAIL, 64, 16},
    };
    size_t peak, again;
    CHECK_EQ(replay(ops, 10, 60000, &peak), PL_OK);
    CHECK_EQ(peak % 16, 0);
    CHECK_EQ(replay(ops, 10, peak, &again), PL_OK);
    CHECK_EQ(again, peak);
    CHECK_EQ(replay(ops, 10, peak - 16, &again), PL_ERR_ARENA);
}

static void peak_is_exact_for_random_sequences(void)
{
    op ops[40];
    rng_state = 7;
    for (int c = 0; c < 300; c++) {
        for (int i = 0; i < 40; i++) {
            ops[i].kind = (int)(rng() % 4);
            ops[i].size = rng() % 700;
            ops[i].align = (size_t)1 << (rng() % 5);
            if (ops[i].kind == OP_HEAD && i > 0)
                ops[i - 1].kind = OP_RESET; /* head resizes need an empty temp */
        }
        size_t peak, again;
        CHECK_EQ(replay(ops, 40, 60000, &peak), PL_OK);
        CHECK_EQ(replay(ops, 40, peak, &again), PL_OK);
        CHECK_EQ(again, peak);
        CHECK_EQ(replay(ops, 40, peak - 16, &again), PL_ERR_ARENA);
    }
}

int main(void)
{
    RUN(create_aligns_start_up_and_end_down);
    RUN(record_is_first_tail_allocation);
    RUN(create_fails_on_tiny_buffer_with_numbers);
    RUN(tail_allocations_align_down);
    RUN(temp_allocations_align_up_from_head);
    RUN(head_resize_refused_while_temp_is_live);
    RUN(tail_may_not_cross_temp);
    RUN(temp_may_not_cross_tail);
    RUN(failure_message_names_the_numbers);
    RUN(huge_sizes_fail_without_overflow);
    RUN(peak_is_exact_for_fixed_sequence);
    RUN(peak_is_exact_for_random_sequences);
    return HARNESS_END();
}
