/* test_integrity.c - the tail records' seal (pl_integrity_check) and the planners' host poll
** and sweep lower bound. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model_builder.h"
#include "picolite/picolite.h"
#include "runtime/state.h"

static _Alignas(16) uint8_t arena[8192];

/* Where ready_model puts the interpreter record: the arena's tail, or the caller's storage;
** and whether the host gives its own hash of the tail (pl_interp_options.seal_feed). main
** runs the seal's tests every way. */
static pl_interp_storage record;
static bool record_outside, host_feed;

/* A host's hash of the tail as a vector one would be: 32-bit lanes, each step (lane ^ word)
** times an odd constant, the last word zero-padded. */
static void host_seal_feed(uint64_t lane[4], const unsigned char *bytes, size_t n)
{
    uint32_t l[8];
    memcpy(l, lane, sizeof l);
    for (size_t i = 0; i < n; i += 4) {
        uint32_t w = 0;
        memcpy(&w, bytes + i, n - i < 4 ? n - i : 4);
        l[i / 4 % 8] = (l[i / 4 % 8] ^ w) * 0x01000193u;
    }
    memcpy(lane, l, sizeof l);
}

static pl_interp *ready_model(uint8_t **model, pl_error *err, int subgraphs)
{
    mb_spec s;
    size_t n;
    pl_interp *it = NULL;
    mb_default(&s);
    s.nsubgraphs = subgraphs;
    *model = mb_build(&s, &n, NULL);
    pl_interp_options o = pl_interp_defaults();
    o.resolver = pl_builtin_resolver();
    o.storage = record_outside ? &record : NULL;
    o.seal_feed = host_feed ? host_seal_feed : NULL;
    pl_error_clear(err);
    if (pl_interp_create(*model, n, &o, arena, sizeof arena, &it, err) != PL_OK ||
        pl_interp_allocate(it) != PL_OK) {
        fprintf(stderr, "setup failed: %s\n", err->msg);
        exit(1);
    }
    return it;
}

static pl_interp *ready_add(uint8_t **model, pl_error *err)
{
    return ready_model(model, err, 1);
}

static void intact_arena_passes_every_invoke(void)
{
    uint8_t *m;
    pl_error err, mine;
    pl_interp *it = ready_add(&m, &err);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(pl_interp_invoke(it), PL_OK);
        CHECK_EQ(pl_interp_reset(it), PL_OK);
        CHECK_EQ(pl_integrity_check(it, &mine), PL_OK);
    }
    pl_interp_destroy(it);
    free(m);
}

/* Whether byte k of the record is one the seal leaves out (or the host compares first: the
** pointer to the host's record, which the check follows). */
static bool unsealed_byte(size_t k)
{
#define FIELD(f) {offsetof(pl_interp, f), sizeof(((pl_interp *)0)->f)}
    static const size_t fields[][2] = {
        FIELD(ctx_slot_), FIELD(tensors_slot_), FIELD(nodes_slot_), FIELD(err_slot_),
        FIELD(sg_record_), FIELD(current_node), FIELD(tensor_count), FIELD(node_count),
        FIELD(current_subgraph), FIELD(depth),
    };
#undef FIELD
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
        if (k >= fields[f][0] && k < fields[f][0] + fields[f][1])
            return true;
    return false;
}

/* The eight-lane hash: a change to any one sealed byte, anywhere in the tail, is caught. */
static void every_sealed_byte_is_checked(void)
{
    uint8_t *m;
    pl_error err, mine;
    pl_interp *it = ready_add(&m, &err);
    uint8_t *me = (uint8_t *)it;
    uint8_t *lo = (uint8_t *)(uintptr_t)err.seal.low, *hi = (uint8_t *)(uintptr_t)err.seal.high;
    int missed = 0;
    for (uint8_t *p = lo; p < hi; p++) {
        if (p >= me && p < me + sizeof *it)
            continue; /* the record: below, wherever it lies */
        *p ^= 0x01;
        missed += pl_integrity_check(it, &mine) == PL_OK;
        *p ^= 0x01;
    }
    for (size_t k = 0; k < sizeof *it; k++) {
        if (unsealed_byte(k))
            continue;
        me[k] ^= 0x01;
        missed += pl_integrity_check(it, &mine) == PL_OK;
        me[k] ^= 0x01;
    }
    CHECK_EQ(missed, 0);
    CHECK(hi == arena + sizeof arena);
    CHECK((me >= lo && me < hi) == !record_outside);
    CHECK(hi - lo > 64); /* the arena record, tensor and node records at least */
    CHECK_EQ(pl_integrity_check(it, &mine), PL_OK);
    pl_interp_destroy(it);
    free(m);
}

static void damaged_interpreter_record_is_named(void)
{
    uint8_t *m;
    pl_error err, mine;
    pl_interp *it = ready_add(&m, &err);
    uint8_t *p = (uint8_t *)it + 8; /* inside the record, wherever the arena put it */
    *p ^= 0x5a;
    pl_error_clear(&mine);
    CHECK_EQ(pl_integrity_check(it, &mine), PL_ERR_STATE);
    CHECK_STR_CONTAINS(mine.msg, "interpreter record");
    CHECK_EQ(pl_interp_invoke(it), PL_ERR_STATE); /* by status alone */
    *p ^= 0x5a;
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    free(m);
}

static void damaged_tail_below_the_record_is_named(void)
{
    uint8_t *m;
    pl_error err, mine;
    pl_interp *it = ready_add(&m, &err);
    pl_recording rec;
    CHECK_EQ(pl_interp_recording(it, &rec), PL_OK);
    /* every byte of the tail but the variable tensors is sealed: flip each in turn */
    size_t lo = sizeof arena - rec.tail, caught = 0, tried = 0;
    for (size_t at = lo; at < sizeof arena; at += 7) {
        if (arena + at >= (uint8_t *)it && arena + at < (uint8_t *)(it + 1))
            continue; /* the record itself: its own tests */
        arena[at] ^= 0xff;
        pl_error_clear(&mine);
        caught += pl_integrity_check(it, &mine) == PL_ERR_STATE &&
                  strstr(mine.msg, "arena damaged") != NULL;
        tried++;
        arena[at] ^= 0xff;
    }
    CHECK(tried > 10);
    CHECK_EQ(caught, tried);
    CHECK_EQ(pl_integrity_check(it, &mine), PL_OK);
    pl_interp_destroy(it);
    free(m);
}

static void damaged_profiler_pointer_is_caught(void)
{
    uint8_t *m;
    pl_error err, mine;
    pl_interp *it = ready_add(&m, &err);
    uint64_t ns[1];
    pl_profiler prof = {NULL, NULL, ns, 1};
    CHECK_EQ(pl_interp_set_profiler(it, &prof), PL_ERR_ARG); /* no timer */
    memset(&it->profiler, 0xab, sizeof it->profiler); /* a stray write */
    CHECK_EQ(pl_integrity_check(it, &mine), PL_ERR_STATE);
    CHECK_EQ(pl_interp_invoke(it), PL_ERR_STATE);
    free(m);
}

/* Flips one byte at p, checks that the message names what, and flips it back. */
static void expect_named(pl_interp *it, void *p, const char *what)
{
    pl_error mine;
    pl_error_clear(&mine);
    *(uint8_t *)p ^= 0x21;
    CHECK_EQ(pl_integrity_check(it, &mine), PL_ERR_STATE);
    CHECK_STR_CONTAINS(mine.msg, what);
    *(uint8_t *)p ^= 0x21;
    CHECK_EQ(pl_integrity_check(it, &mine), PL_OK);
}

static void each_region_is_named(void)
{
    uint8_t *m;
    pl_error err;
    pl_interp *it = ready_add(&m, &err);
    expect_named(it, &it->tensor_records[1].shape, "eval tensor records");
    expect_named(it, &it->node_records[0].opcode, "node records");
    expect_named(it, &it->regs[0], "registration table");
    expect_named(it, &it->opcode_count, "interpreter record (checksum)");
    /* the selection is not summed but must be what subgraph 0 makes */
    expect_named(it, &it->tensors, "current subgraph's selection");
    expect_named(it, &it->tensor_count, "current subgraph's selection");
    expect_named(it, &it->current_subgraph, "current subgraph's selection");
    expect_named(it, &it->depth, "current subgraph's selection");
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    pl_interp_destroy(it);
    free(m);
}

/* Two subgraphs: records summed over both; selecting or invoking the second keeps the seal. */
static void every_subgraph_is_sealed(void)
{
    uint8_t *m;
    pl_error err, mine;
    pl_interp *it = ready_model(&m, &err, 2);
    CHECK(it->subgraphs != NULL);
    CHECK_EQ(pl_interp_select_subgraph(it, 1), PL_OK);
    CHECK_EQ(pl_integrity_check(it, &mine), PL_OK);
    expect_named(it, &it->tensor_records[it->all_tensors - 1].data, "eval tensor records");
    expect_named(it, &it->subgraphs[1].node_base, "subgraph records");
    expect_named(it, &it->current_subgraph, "current subgraph's selection");
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    CHECK_EQ(pl_interp_select_subgraph(it, 0), PL_OK);
    CHECK_EQ(pl_interp_invoke_subgraph(it, 1), PL_OK);
    CHECK_EQ(pl_interp_selected_subgraph(it), 0u);
    CHECK_EQ(pl_interp_reset(it), PL_OK);
    CHECK_EQ(pl_integrity_check(it, &mine), PL_OK);
    pl_interp_destroy(it);
    free(m);
}

static void seal_lives_in_the_host_record(void)
{
    uint8_t *m;
    pl_error err;
    pl_interp *it = ready_add(&m, &err);
    CHECK(err.seal.owner == it);
    pl_error_clear(&err); /* a cleared message keeps the seal */
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    err.seal.record ^= 1u; /* the host's copy disagrees: the records are not trusted */
    CHECK_EQ(pl_interp_invoke(it), PL_ERR_STATE);
    err.seal.record ^= 1u;
    CHECK_EQ(pl_interp_reset(it), PL_OK);
    pl_interp_destroy(it);
    free(m);
}

static void nothing_sealed_before_allocate(void)
{
    mb_spec s;
    size_t n;
    pl_interp *it;
    pl_error err;
    mb_default(&s);
    uint8_t *m = mb_build(&s, &n, NULL);
    pl_interp_options o = pl_interp_defaults();
    o.resolver = pl_builtin_resolver();
    CHECK_EQ(pl_interp_create(m, n, &o, arena, sizeof arena, &it, &err), PL_OK);
    CHECK_EQ(pl_integrity_check(it, &err), PL_OK);
    CHECK_EQ(pl_interp_invoke(it), PL_ERR_STATE);
    CHECK_STR_CONTAINS(err.msg, "allocate");
    free(m);
}

/* The tail as allocate leaves it, from an arena first filled with `fill`. */
static size_t tail_after_allocate(const uint8_t *model, size_t n, uint8_t fill, uint8_t *out,
                                  pl_error *err)
{
    pl_interp *it;
    pl_interp_options o = pl_interp_defaults();
    o.resolver = pl_builtin_resolver();
    memset(arena, fill, sizeof arena);
    if (pl_interp_create(model, n, &o, arena, sizeof arena, &it, err) != PL_OK ||
        pl_interp_allocate(it) != PL_OK)
        return 0;
    size_t tail = pl_arena_tail_size(it->arena);
    memcpy(out, arena + sizeof arena - tail, tail);
    pl_interp_destroy(it);
    return tail;
}

/* The seal hashes the whole tail: every byte of it must be one the interpreter wrote, never
** what the arena held before (valgrind: a conditional jump on uninitialised bytes). Two
** allocations of one model in one arena, first filled differently, leave the same tail. */
static void sealed_tail_holds_only_written_bytes(void)
{
    static uint8_t a[sizeof arena], b[sizeof arena];
    for (int subgraphs = 1; subgraphs <= 2; subgraphs++) {
        mb_spec s;
        size_t n;
        pl_error err;
        mb_default(&s);
        s.nsubgraphs = subgraphs;
        uint8_t *m = mb_build(&s, &n, NULL);
        size_t ta = tail_after_allocate(m, n, 0xA5, a, &err);
        size_t tb = tail_after_allocate(m, n, 0x5A, b, &err);
        CHECK(ta > 0);
        CHECK_EQ(ta, tb);
        CHECK(memcmp(a, b, ta) == 0);
        free(m);
    }
}

/* ---- planners: the host poll and the sweep lower bound ---- */

#define NB 3000
static pl_plan_buffer bufs[NB];
static _Alignas(16) uint8_t scratch[64 * NB];

static void fill(uint32_t seed)
{
    for (uint32_t i = 0; i < NB; i++) {
        seed = seed * 1664525u + 1013904223u;
        int32_t first = (int32_t)((seed >> 8) % 200);
        pl_plan_buffer b = {16 + (seed >> 20) % 500, first, first + (int32_t)(seed % 9), -1,
                            0, 0};
        bufs[i] = b;
    }
}

static int calls;

static int stop_on_third(void *ctx)
{
    (void)ctx;
    return ++calls >= 3;
}

static int never(void *ctx)
{
    (void)ctx;
    calls++;
    return 0;
}

static void poll_stops_every_planner(void)
{
    for (int p = 0; p < PL_PLANNER_COUNT; p++) {
        if (p == PL_PLANNER_LINEAR)
            continue; /* linear time: nothing to poll */
        pl_error err;
        uint32_t total;
        fill(7);
        calls = 0;
        CHECK_EQ(pl_plan_compute_polled((pl_planner)p, bufs, NB, scratch, sizeof scratch,
                                        &total, stop_on_third, NULL, &err), PL_ERR_STATE);
        CHECK_STR_CONTAINS(err.msg, "plan interrupted");
        CHECK_EQ(calls, 3);
    }
}

static void polled_plan_equals_plain_plan(void)
{
    static uint32_t expect[NB];
    pl_error err;
    uint32_t a, b;
    fill(11);
    CHECK_EQ(pl_plan_compute(PL_PLANNER_GREEDY, bufs, NB, scratch, sizeof scratch, &a, &err),
             PL_OK);
    for (uint32_t i = 0; i < NB; i++)
        expect[i] = bufs[i].offset;
    calls = 0;
    CHECK_EQ(pl_plan_compute_polled(PL_PLANNER_GREEDY, bufs, NB, scratch, sizeof scratch, &b,
                                    never, NULL, &err), PL_OK);
    CHECK(calls >= (int)(NB / PL_PLAN_POLL_EVERY) - 1);
    CHECK_EQ(a, b);
    for (uint32_t i = 0; i < NB; i++)
        CHECK_EQ(bufs[i].offset, expect[i]);
}

static void sweep_bound_equals_quadratic_bound(void)
{
    for (uint32_t seed = 1; seed < 6; seed++) {
        fill(seed);
        CHECK(pl_plan_lower_bound_scratch_size(NB) <= sizeof scratch);
        CHECK_EQ(pl_plan_lower_bound_sorted(bufs, NB, scratch), pl_plan_lower_bound(bufs, NB));
    }
    CHECK_EQ(pl_plan_lower_bound_sorted(bufs, 0, scratch), 0);
}

int main(void)
{
    for (int way = 0; way < 4; way++) {
        record_outside = (way & 1) != 0;
        host_feed = (way & 2) != 0;
        RUN(intact_arena_passes_every_invoke);
        RUN(every_sealed_byte_is_checked);
        RUN(damaged_interpreter_record_is_named);
        RUN(damaged_tail_below_the_record_is_named);
        RUN(damaged_profiler_pointer_is_caught);
        RUN(each_region_is_named);
        RUN(every_subgraph_is_sealed);
        RUN(seal_lives_in_the_host_record);
    }
    RUN(nothing_sealed_before_allocate);
    RUN(sealed_tail_holds_only_written_bytes);
    RUN(poll_stops_every_planner);
    RUN(polled_plan_equals_plain_plan);
    RUN(sweep_bound_equals_quadratic_bound);
    return HARNESS_END();
}
