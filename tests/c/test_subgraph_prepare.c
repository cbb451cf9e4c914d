/* test_subgraph_prepare.c - ctx->prepare_subgraph: a callee prepared from its caller.
**
** tests/models/subgraphs/cond_batch_float32.tflite (IF on an input of signature [-1, 4]) runs
** with the builtin kernels, but IF replaced by a stand-in that misuses the callback as a mode
** says and otherwise does what IF does. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "picolite/picolite.h"

enum { OP_IF = 118 };
enum { MODE_AS_IF, MODE_AFTER_GET_TENSOR, MODE_IN_INVOKE, MODE_WRONG_COUNT };

static int mode;
static pl_status seen; /* what the misused callback returned */
static _Alignas(16) uint8_t arena[1 << 16];
static pl_error err;

static uint8_t *load(const char *name, size_t *size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/models/subgraphs/%s", PL_SOURCE_DIR, name);
    return harness_read(path, size);
}

static const pl_registration *real_if(void)
{
    const pl_resolver *b = pl_builtin_resolver();
    return b->find(b->self, OP_IF, NULL, 0, 1);
}

static pl_status s_init(pl_context *ctx, pl_node *node, void **data)
{
    return pl_registration_init(real_if(), ctx, node, data);
}

static pl_status s_prepare(pl_context *ctx, pl_node *node)
{
    pl_vec branch_inputs = {node->inputs.p + 4, node->inputs.n - 1};
    if (mode == MODE_AFTER_GET_TENSOR) {
        pl_tensor *t;
        PL_TRY(ctx->get_tensor(ctx, pl_node_input(node, 0), &t));
        seen = ctx->prepare_subgraph(ctx, 1, branch_inputs);
        return seen;
    }
    if (mode == MODE_WRONG_COUNT) {
        pl_vec fewer = {branch_inputs.p, branch_inputs.n - 1};
        seen = ctx->prepare_subgraph(ctx, 1, fewer);
        if (seen != PL_OK)
            return seen;
    }
    return real_if()->prepare(ctx, node);
}

static pl_status s_invoke(pl_context *ctx, pl_node *node)
{
    if (mode == MODE_IN_INVOKE) {
        seen = ctx->prepare_subgraph(ctx, 1, node->inputs);
        return seen;
    }
    return real_if()->invoke(ctx, node);
}

static const pl_registration stand_in = {.name = "IF", .builtin_code = OP_IF, .init = s_init,
                                         .prepare = s_prepare, .invoke = s_invoke};

static const pl_registration *find(const void *self, int32_t code, const char *custom,
                                   uint32_t custom_len, int32_t version)
{
    (void)self;
    if (code == OP_IF)
        return &stand_in;
    const pl_resolver *b = pl_builtin_resolver();
    return b->find(b->self, code, custom, custom_len, version);
}

static const pl_resolver resolver = {find, NULL};

/* The model created with input 0 (x) at batch 3, then allocated and invoked in mode m. */
static pl_status run(const char *name, int m, pl_interp **out)
{
    static uint8_t *model;
    size_t n;
    free(model);
    model = load(name, &n);
    if (model == NULL)
        return PL_ERR_ARG; /* the zoo is in the source tree: the checks then fail */
    pl_interp_options o = pl_interp_defaults();
    o.resolver = &resolver;
    static const int32_t dims[] = {3, 4};
    pl_input_shape shape = {0, 2, dims};
    o.input_shapes = &shape;
    o.input_shape_count = strstr(name, "batch") != NULL ? 1 : 0;
    mode = m;
    seen = PL_OK;
    PL_TRY(pl_interp_create(model, n, &o, arena, sizeof arena, out, &err));
    PL_TRY(pl_interp_allocate(*out));
    return pl_interp_invoke(*out);
}

static void the_stand_in_runs_as_if_does(void)
{
    pl_interp *it;
    CHECK_EQ(run("cond_batch_float32.tflite", MODE_AS_IF, &it), PL_OK);
}

static void prepare_subgraph_after_get_tensor_is_a_state_error(void)
{
    pl_interp *it;
    CHECK_EQ(run("cond_batch_float32.tflite", MODE_AFTER_GET_TENSOR, &it), PL_ERR_STATE);
    CHECK_EQ(seen, PL_ERR_STATE);
    CHECK_STR_CONTAINS(err.msg, "prepare_subgraph(1) must come before get_tensor and "
                                "request_scratch");
}

static void prepare_subgraph_during_invoke_is_a_state_error(void)
{
    pl_interp *it;
    CHECK_EQ(run("cond_batch_float32.tflite", MODE_IN_INVOKE, &it), PL_ERR_STATE);
    CHECK_STR_CONTAINS(err.msg, "prepare_subgraph is only allowed during prepare");
}

static void an_input_count_that_differs_is_a_model_error(void)
{
    pl_interp *it;
    CHECK_EQ(run("cond_batch_float32.tflite", MODE_WRONG_COUNT, &it), PL_ERR_MODEL);
    CHECK_STR_CONTAINS(err.msg, "node 0 (IF): subgraph 1 has 4 inputs, the node gives 3");
}

/* A model with fixed shapes keeps them: its subgraphs are prepared in order, as before. */
static void a_model_never_resized_prepares_nothing_here(void)
{
    pl_interp *it;
    CHECK_EQ(run("cond_float32.tflite", MODE_WRONG_COUNT, &it), PL_OK);
    CHECK_EQ(seen, PL_OK);
}

int main(void)
{
    RUN(the_stand_in_runs_as_if_does);
    RUN(prepare_subgraph_after_get_tensor_is_a_state_error);
    RUN(prepare_subgraph_during_invoke_is_a_state_error);
    RUN(an_input_count_that_differs_is_a_model_error);
    RUN(a_model_never_resized_prepares_nothing_here);
    return HARNESS_END();
}
