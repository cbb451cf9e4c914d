/* test_node_views.c - the host's copies of the node views (pl_interp_set_node_views): an
** invoke fills each on the node's first run and copies it afterwards, in every subgraph; the
** outputs are those of an interpreter reading the model's tables at every node. Refused before
** allocate and for too few views; create starts without them.
**
** tests/hostile/nested_while_int32.tflite: three subgraphs, a WHILE in a WHILE (x + 1 each
** inner iteration: from x = 0 the output is 5000). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "picolite/picolite.h"

enum { VIEWS = 64 };

static _Alignas(16) uint8_t arena[1 << 16];
static pl_error err;
static pl_node views[VIEWS];

static uint8_t *load(size_t *size)
{
    return harness_read(PL_SOURCE_DIR "/tests/hostile/nested_while_int32.tflite", size);
}

static pl_interp *created(const uint8_t *model, size_t n)
{
    pl_interp *it;
    pl_interp_options opt = pl_interp_defaults();
    opt.resolver = pl_builtin_resolver();
    if (pl_interp_create(model, n, &opt, arena, sizeof arena, &it, &err) != PL_OK) {
        fprintf(stderr, "create failed: %s\n", err.msg);
        exit(1);
    }
    return it;
}

/* The output for input x, from a fresh interpreter with the views or without them. */
static int32_t run(const uint8_t *model, size_t n, int32_t x, bool with_views)
{
    pl_interp *it = created(model, n);
    pl_tensor_info in, out;
    int32_t y = -1;
    if (pl_interp_allocate(it) != PL_OK ||
        (with_views && pl_interp_set_node_views(it, views, VIEWS) != PL_OK) ||
        pl_interp_tensor(it, (uint32_t)pl_interp_input_index(it, 0), &in) != PL_OK)
        fprintf(stderr, "setup failed: %s\n", err.msg);
    memcpy(in.data, &x, sizeof x);
    for (int k = 0; k < 2; k++) /* the second invoke copies every view the first filled */
        if (pl_interp_invoke(it) == PL_OK &&
            pl_interp_tensor(it, (uint32_t)pl_interp_output_index(it, 0), &out) == PL_OK)
            memcpy(&y, out.data, sizeof y);
    pl_interp_destroy(it);
    return y;
}

static void views_give_the_outputs_of_the_model_tables(void)
{
    size_t n;
    uint8_t *m = load(&n);
    CHECK(m != NULL);
    const int32_t xs[] = {0, 1, 4999, -7};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        int32_t want = run(m, n, xs[i], false);
        CHECK_EQ(run(m, n, xs[i], true), want);
    }
    CHECK_EQ(run(m, n, 0, true), 5000);
    free(m);
}

/* Every node of the three subgraphs ran: each view filled, its index its place in its
** subgraph (the subgraphs' nodes follow one another), the rest untouched. */
static void an_invoke_fills_every_subgraphs_views(void)
{
    size_t n;
    uint8_t *m = load(&n);
    CHECK(m != NULL);
    CHECK_EQ(run(m, n, 0, true), 5000);
    pl_interp *it = created(m, n);
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    const uint32_t total = pl_interp_node_total(it);
    CHECK(total >= 3 && total < VIEWS);
    uint32_t filled = 0, base = 0;
    for (uint32_t k = 0; k < pl_interp_subgraph_count(it); k++) {
        CHECK_EQ(pl_interp_select_subgraph(it, k), PL_OK);
        const uint32_t count = pl_interp_node_count(it);
        for (uint32_t i = 0; i < count; i++)
            filled += views[base + i].registration != NULL && views[base + i].index == i;
        base += count;
    }
    CHECK_EQ(base, total);
    CHECK_EQ(filled, total);
    CHECK(views[total].registration == NULL);
    pl_interp_destroy(it);
    free(m);
}

static void views_need_allocate_and_every_node(void)
{
    size_t n;
    uint8_t *m = load(&n);
    CHECK(m != NULL);
    pl_interp *it = created(m, n);
    CHECK_EQ(pl_interp_node_total(it), 0u);
    CHECK_EQ(pl_interp_set_node_views(it, views, VIEWS), PL_ERR_STATE);
    CHECK_STR_CONTAINS(err.msg, "allocate");
    CHECK_EQ(pl_interp_allocate(it), PL_OK);
    const uint32_t total = pl_interp_node_total(it);
    CHECK_EQ(pl_interp_set_node_views(it, views, total - 1), PL_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "node views");
    CHECK(err.node_views == NULL);
    CHECK_EQ(pl_interp_set_node_views(it, views, total), PL_OK);
    CHECK(err.node_views == views);
    CHECK_EQ(pl_interp_set_node_views(it, NULL, 0), PL_OK);
    CHECK(err.node_views == NULL);
    pl_interp_destroy(it);
    free(m);
}

/* The views live in the host's record: create starts without them. */
static void create_resets_the_views(void)
{
    size_t n;
    uint8_t *m = load(&n);
    CHECK(m != NULL);
    err.node_views = views;
    pl_interp *it = created(m, n);
    CHECK(err.node_views == NULL);
    pl_interp_destroy(it);
    free(m);
}

int main(void)
{
    RUN(views_give_the_outputs_of_the_model_tables);
    RUN(an_invoke_fills_every_subgraphs_views);
    RUN(views_need_allocate_and_every_node);
    RUN(create_resets_the_views);
    return HARNESS_END();
}
