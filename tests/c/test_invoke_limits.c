/* test_invoke_limits.c - what bounds one invoke: the loop budget, counted once for every WHILE
** of the invoke (nested loops included), and the host's poll (pl_interp_set_poll), called
** before every node and every run of a subgraph.
**
** tests/hostile/nested_while_int32.tflite (tests/hostile/make_hostile.py): from x = 0 its
** outer WHILE runs 100 times, each running an inner WHILE 50 times (x + 1 each): 5100
** iterations in all, output 5000. A budget per node would let it run 100 x 50 under a budget
** of 100; from x = -2^31 nesting would make that hours. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "picolite/picolite.h"

static _Alignas(16) uint8_t arena[1 << 16];
static pl_error err;

static uint8_t *load(size_t *size)
{
    return harness_read(PL_SOURCE_DIR "/tests/hostile/nested_while_int32.tflite", size);
}

/* An allocated interpreter on the model with this budget, x set. */
static pl_interp *ready(const uint8_t *model, size_t n, uint32_t budget, int32_t x)
{
    pl_interp *it;
    pl_tensor_info in;
    pl_interp_options opt = pl_interp_defaults();
    opt.resolver = pl_builtin_resolver();
    opt.loop_budget = budget;
    if (pl_interp_create(model, n, &opt, arena, sizeof arena, &it, &err) != PL_OK ||
        pl_interp_allocate(it) != PL_OK ||
        pl_interp_tensor(it, (uint32_t)pl_interp_input_index(it, 0), &in) != PL_OK) {
        fprintf(stderr, "setup failed: %s\n", err.msg);
        exit(1);
    }
    memcpy(in.data, &x, sizeof x);
    return it;
}

static int32_t output(const pl_interp *it)
{
    pl_tensor_info out;
    int32_t y = -1;
    if (pl_interp_tensor(it, (uint32_t)pl_interp_output_index(it, 0), &out) == PL_OK)
        memcpy(&y, out.data, sizeof y);
    return y;
}

static void one_budget_counts_every_loop_of_the_invoke(void)
{
    size_t n;
    uint8_t *m = load(&n);
    CHECK(m != NULL);
    pl_interp *it = ready(m, n, 5100, 0);
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    CHECK_EQ(output(it), 5000);
    pl_interp_destroy(it);
    it = ready(m, n, 5099, 0); /* one iteration short: the inner loop's last one fails */
    CHECK_EQ(pl_interp_invoke(it), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(err.msg, "loop budget ran out");
    CHECK_STR_CONTAINS(err.msg, "subgraph 2 node 0 (WHILE)");
    pl_interp_destroy(it);
    it = ready(m, n, 100, 0); /* per node, 100 would allow 100 x 50 */
    CHECK_EQ(pl_interp_invoke(it), PL_ERR_MODEL);
    pl_interp_destroy(it);
    free(m);
}

/* The budget is per invoke: the next invoke has all of it again. */
static void every_invoke_has_the_whole_budget(void)
{
    size_t n;
    uint8_t *m = load(&n);
    CHECK(m != NULL);
    pl_interp *it = ready(m, n, 5100, 0);
    for (int k = 0; k < 3; k++) {
        CHECK_EQ(pl_interp_invoke(it), PL_OK);
        CHECK_EQ(output(it), 5000);
    }
    pl_interp_destroy(it);
    free(m);
}

typedef struct poll_count {
    uint32_t calls;
    uint32_t stop_at; /* 0: never */
} poll_count;

static int count_polls(void *ctx)
{
    poll_count *p = ctx;
    p->calls++;
    return p->stop_at != 0 && p->calls >= p->stop_at;
}

/* Polled before every node and every subgraph run: 1 (main's WHILE) + per outer iteration
** the cond's run and node and the body's run and node, per inner iteration likewise with
** the body's two ADDs, and the last conditions. */
static void poll_runs_before_every_node_and_iteration(void)
{
    size_t n;
    uint8_t *m = load(&n);
    CHECK(m != NULL);
    pl_interp *it = ready(m, n, 1000000, 0);
    poll_count p = {0, 0};
    pl_interp_set_poll(it, count_polls, &p);
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    CHECK_EQ(output(it), 5000);
    /* outer: 101 conds (2 polls) + 100 bodies (2); inner: 100 x (51 conds x 2 + 50 x 3) */
    CHECK_EQ(p.calls, 1u + 101u * 2u + 100u * 2u + 100u * (51u * 2u + 50u * 3u));
    pl_interp_destroy(it);
    free(m);
}

/* A nonzero poll stops the invoke at once, as PL_ERR_STATE; the interpreter stays usable.
** From x = -2^31 the loops would run for hours (and the budget is at its largest). */
static void a_poll_that_asks_to_stop_ends_a_long_invoke(void)
{
    size_t n;
    uint8_t *m = load(&n);
    CHECK(m != NULL);
    pl_interp *it = ready(m, n, UINT32_MAX, INT32_MIN);
    poll_count p = {0, 100000};
    pl_interp_set_poll(it, count_polls, &p);
    CHECK_EQ(pl_interp_invoke(it), PL_ERR_STATE);
    CHECK_EQ(p.calls, 100000u);
    CHECK_STR_CONTAINS(err.msg, "interrupted");
    pl_tensor_info in;
    int32_t zero = 0;
    CHECK_EQ(pl_interp_tensor(it, (uint32_t)pl_interp_input_index(it, 0), &in), PL_OK);
    memcpy(in.data, &zero, sizeof zero);
    pl_interp_set_poll(it, NULL, NULL);
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    CHECK_EQ(output(it), 5000);
    pl_interp_destroy(it);
    free(m);
}

/* The poll lives in the host's record: create starts without one. */
static void create_resets_the_poll(void)
{
    size_t n;
    uint8_t *m = load(&n);
    CHECK(m != NULL);
    poll_count p = {0, 1};
    err.poll = count_polls;
    err.poll_ctx = &p;
    pl_interp *it = ready(m, n, 1000000, 0);
    CHECK(err.poll == NULL);
    CHECK_EQ(pl_interp_invoke(it), PL_OK);
    CHECK_EQ(p.calls, 0u);
    pl_interp_destroy(it);
    free(m);
}

int main(void)
{
    RUN(one_budget_counts_every_loop_of_the_invoke);
    RUN(every_invoke_has_the_whole_budget);
    RUN(poll_runs_before_every_node_and_iteration);
    RUN(a_poll_that_asks_to_stop_ends_a_long_invoke);
    RUN(create_resets_the_poll);
    return HARNESS_END();
}
