/* test_tflm.c - TFLM's allocator replayed (csrc/tflm/sim.c) and pl_tflm_arena on a model.
**
** The replay's rules one by one (tail alignment down from an odd end, the ignored resize
** after a node's prepare, temp memory read back, the planner's 40 bytes a buffer, the
** reset's check, the recording's counts), then the public call on the builder's ADD model:
** its minimum is exact against the replay and an arena below it is refused with the numbers;
** a type TFLM's kernel has no code for is refused (accept.c).
** The figures themselves are checked against TFLM in tests/test_tflm_arena_target.py. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model_builder.h"
#include "picolite/picolite.h"
#include "tflm/program.h"
#include "tflm/sim.h"

#define NONE PL_TFLM_CAT_NONE

static pl_tflm_event ev(pl_tflm_op op, uint32_t size, uint32_t align, uint32_t count)
{
    pl_tflm_event e = {(uint8_t)op, NONE, (uint8_t)align, 0, size, count};
    return e;
}

static bool run(const pl_tflm_event *e, uint32_t n, uint64_t size, pl_tflm_sim *s)
{
    pl_tflm_sim_run(e, n, false, size, s);
    return s->ok;
}

static void tail_aligns_down_from_the_arenas_end(void)
{
    pl_tflm_event e[] = {ev(PL_TFLM_TAIL, 8, 16, 1)};
    pl_tflm_sim s;
    CHECK(run(e, 1, 1000, &s));
    CHECK_EQ(s.tail, 8); /* 992 is a multiple of 16 */
    CHECK(run(e, 1, 1001, &s));
    CHECK_EQ(s.tail, 9);
    CHECK(run(e, 1, 1015, &s));
    CHECK_EQ(s.tail, 23);
    CHECK(!run(e, 1, 7, &s)); /* crosses the head at 0 */
}

static void a_failed_resize_after_a_node_is_ignored(void)
{
    pl_tflm_event e[] = {ev(PL_TFLM_HEAD, 64, 8, 0), ev(PL_TFLM_NODE_DONE, 4096, 8, 0)};
    pl_tflm_sim s;
    CHECK(run(e, 2, 128, &s));
    CHECK_EQ(s.head, 64); /* the head stays where it was */
    CHECK(!run(e, 1, 63, &s));
}

/* A tensor struct (57 of 64 bytes read back), its quantization record (16 of 24), its zero
** points (none), temp ending at 96: a 16-aligned tail buffer may overlap what is not read
** back, not more. */
static void tail_may_overlap_only_temp_memory_not_read_back(void)
{
    pl_tflm_event e[] = {ev(PL_TFLM_TEMP, 64, 8, 57), ev(PL_TFLM_TEMP, 24, 8, 16),
                         ev(PL_TFLM_TEMP, 8, 4, 0), ev(PL_TFLM_TAIL, 32, 16, 1)};
    pl_tflm_sim s;
    CHECK(run(e, 4, 128, &s));  /* [96, 128): no overlap */
    CHECK(run(e, 4, 112, &s));  /* [80, 112): quantized_dimension, zero points, padding */
    CHECK(!run(e, 4, 111, &s)); /* [64, 96) would take the record's pointers */
    CHECK_EQ(s.failed_event, 3);
}

static void a_temp_allocation_needs_room_below_the_tail(void)
{
    pl_tflm_event e[] = {ev(PL_TFLM_TEMP, 100, 4, 100)};
    pl_tflm_sim s;
    CHECK(run(e, 1, 100, &s));
    CHECK_EQ(s.head, 100); /* temp counts in the non-persistent figure, as TFLM's does */
    CHECK(!run(e, 1, 99, &s));
}

static void the_planner_needs_40_bytes_a_buffer_of_what_remains(void)
{
    pl_tflm_event e[] = {ev(PL_TFLM_TEMP, 12, 4, 12), ev(PL_TFLM_PLAN, 0, 16, 3)};
    pl_tflm_sim s;
    CHECK(run(e, 2, 16 + 128, &s)); /* from 16 (aligned up) to 144 (aligned down): 3 fit */
    CHECK(!run(e, 2, 16 + 127, &s)); /* to 128: 112 bytes, 2 buffers */
    e[1].count = 0; /* nothing to plan: no room needed */
    CHECK(run(e, 2, 16, &s));
}

static void a_reset_with_temp_memory_still_held_fails(void)
{
    pl_tflm_event e[] = {ev(PL_TFLM_TEMP, 8, 4, 8), ev(PL_TFLM_TEMP, 8, 4, 8),
                         ev(PL_TFLM_FREE, 0, 0, 1), ev(PL_TFLM_RESET, 0, 0, 0)};
    pl_tflm_sim s;
    CHECK(!run(e, 4, 1024, &s));
    CHECK_EQ(s.failed_event, 3);
    e[2].count = 2;
    CHECK(run(e, 4, 1024, &s));
    CHECK_EQ(s.head, 0);
}

static void recording_counts_what_tflm_counts(void)
{
    pl_tflm_event e[] = {ev(PL_TFLM_TAIL, 100, 8, 1), ev(PL_TFLM_TAIL, 24, 8, 3),
                         ev(PL_TFLM_TAIL, 4, 16, 1), ev(PL_TFLM_HEAD, 48, 16, 0)};
    e[0].flags = PL_TFLM_EV_PLAIN_ONLY; /* the recording allocator makes its own objects */
    e[1].cat = PL_CAT_EVAL_TENSOR;
    e[2].cat = PL_CAT_PERSISTENT_BUFFER;
    pl_tflm_sim s;
    pl_tflm_sim_run(e, 4, true, 1024, &s);
    CHECK(s.ok);
    CHECK_EQ(s.rec.cat[PL_CAT_EVAL_TENSOR].count, 3);
    CHECK_EQ(s.rec.cat[PL_CAT_EVAL_TENSOR].used, 24);
    CHECK_EQ(s.rec.cat[PL_CAT_PERSISTENT_BUFFER].requested, 4);
    CHECK_EQ(s.rec.cat[PL_CAT_PERSISTENT_BUFFER].used, 8); /* 1000 aligned down to 992 */
    CHECK_EQ(s.rec.total, 24 + 8 + 48);
    CHECK_EQ(s.rec.tail, 32);
    CHECK_EQ(s.rec.head, 48);
}

/* ---- pl_tflm_arena on the builder's ADD model ---- */

static pl_interp *built(const mb_spec *spec, void *arena, size_t size, uint8_t **model)
{
    size_t n;
    pl_interp *it;
    pl_error err;
    *model = mb_build(spec, &n, NULL);
    pl_interp_options opt = pl_interp_defaults();
    opt.resolver = pl_builtin_resolver();
    if (pl_interp_create(*model, n, &opt, arena, size, &it, &err) != PL_OK ||
        pl_interp_allocate(it) != PL_OK)
        return NULL;
    return it;
}

static pl_interp *allocated(void *arena, size_t size, uint8_t **model)
{
    mb_spec spec;
    mb_default(&spec);
    return built(&spec, arena, size, model);
}

static void figures_for(pl_interp *it, pl_target target, size_t arena_size,
                        pl_tflm_arena_figures *f, pl_status *status, pl_error *err)
{
    size_t need = 0;
    CHECK_EQ(pl_tflm_arena_scratch_size(it, target, &need, err), PL_OK);
    void *scratch = malloc(need);
    *status = pl_tflm_arena(it, target, arena_size, scratch, need, f, err);
    free(scratch);
}

static void the_minimum_is_exact_and_a_smaller_arena_refused(void)
{
    static _Alignas(16) uint8_t arena[16384];
    uint8_t *model;
    pl_interp *it = allocated(arena, sizeof arena, &model);
    CHECK(it != NULL);
    for (int t = PL_TARGET_TFLM; it != NULL && t <= PL_TARGET_TFLM_X86_64; t++) {
        pl_tflm_arena_figures f, at;
        pl_status status;
        pl_error err;
        figures_for(it, (pl_target)t, 0, &f, &status, &err);
        CHECK_EQ(status, PL_OK);
        CHECK(f.min_arena_bytes <= f.min_arena_bytes_16);
        CHECK(f.min_arena_bytes_16 < f.min_arena_bytes + 16);
        CHECK(f.arena_used_bytes == f.head + f.tail);
        CHECK(f.planned_buffers == 2); /* the input and the output; b is a constant */
        figures_for(it, (pl_target)t, f.min_arena_bytes, &at, &status, &err);
        CHECK_EQ(status, PL_OK);
        figures_for(it, (pl_target)t, f.min_arena_bytes - 1, &at, &status, &err);
        CHECK_EQ(status, PL_ERR_ARENA);
        CHECK_EQ(err.required, f.min_arena_bytes);
        CHECK_EQ(err.available, f.min_arena_bytes - 1);
    }
    free(model);
}

static void a_target_that_is_not_tflm_is_refused(void)
{
    static _Alignas(16) uint8_t arena[16384];
    uint8_t *model;
    size_t need;
    pl_error err;
    pl_interp *it = allocated(arena, sizeof arena, &model);
    CHECK(it != NULL);
    CHECK_EQ(pl_tflm_arena_scratch_size(it, PL_TARGET_PICOLITE, &need, &err), PL_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "not a TFLM target");
    free(model);
}

/* FLOOR_DIV on int32: picolite runs it, TFLM's kernel has float32 code only (accept.c). */
static void a_type_tflms_kernel_has_no_code_for_is_refused(void)
{
    static _Alignas(16) uint8_t arena[16384];
    static const int32_t divisors[4] = {1, 2, 3, 4};
    uint8_t *model;
    mb_spec spec;
    mb_default(&spec);
    spec.opcodes[0] = (mb_opcode){0, 90, NULL, 1}; /* FLOOR_DIV */
    spec.ops[0].has_opt = 0;
    for (int i = 0; i < 3; i++)
        spec.tensors[i].type = 2; /* INT32 */
    spec.buffers[1].data = (const uint8_t *)divisors;
    pl_interp *it = built(&spec, arena, sizeof arena, &model);
    CHECK(it != NULL);
    for (int t = PL_TARGET_TFLM; it != NULL && t <= PL_TARGET_TFLM_X86_64; t++) {
        size_t need;
        pl_error err;
        CHECK_EQ(pl_tflm_arena_scratch_size(it, (pl_target)t, &need, &err), PL_ERR_UNSUPPORTED);
        CHECK_STR_CONTAINS(err.msg, "FLOOR_DIV kernel fails");
        CHECK_STR_CONTAINS(err.msg, "input 0 is INT32");
    }
    free(model);
}

int main(void)
{
    RUN(tail_aligns_down_from_the_arenas_end);
    RUN(a_failed_resize_after_a_node_is_ignored);
    RUN(tail_may_overlap_only_temp_memory_not_read_back);
    RUN(a_temp_allocation_needs_room_below_the_tail);
    RUN(the_planner_needs_40_bytes_a_buffer_of_what_remains);
    RUN(a_reset_with_temp_memory_still_held_fails);
    RUN(recording_counts_what_tflm_counts);
    RUN(the_minimum_is_exact_and_a_smaller_arena_refused);
    RUN(a_target_that_is_not_tflm_is_refused);
    RUN(a_type_tflms_kernel_has_no_code_for_is_refused);
    return HARNESS_END();
}
