/* control.c - CALL_ONCE, IF and WHILE (TFLM's call_once.cc, if.cc, while.cc). */
#include "control.h"

#include "copy.h"

/* BuiltinOptions union types and their fields (schema.fbs). */
enum { OPT_IF = 92, OPT_WHILE = 93, OPT_CALL_ONCE = 103 };
enum { F_FIRST = 0, F_SECOND = 1 };

typedef struct op_data {
    int32_t first;  /* init, then or cond subgraph */
    int32_t second; /* else or body subgraph */
    uint32_t has_run;
} op_data;

static pl_status init(pl_context *ctx, pl_node *node, void **user_data)
{
    (void)node;
    return ctx->alloc_persistent(ctx, sizeof(op_data), user_data);
}

/* Reads the subgraph indices from options of the expected type; checks they exist. */
static pl_status read_options(pl_context *ctx, pl_node *node, uint8_t type, uint32_t count)
{
    op_data *d = node->user_data;
    if (node->options_type != type)
        return ctx->fail(ctx, PL_ERR_MODEL, "builtin options type %d, expected %d",
                         (int)node->options_type, (int)type);
    d->first = pl_table_i32(&node->options, F_FIRST, 0);
    d->second = count > 1 ? pl_table_i32(&node->options, F_SECOND, 0) : -1;
    uint32_t unused;
    PL_TRY(ctx->subgraph_io_count(ctx, d->first, false, &unused));
    if (count > 1)
        PL_TRY(ctx->subgraph_io_count(ctx, d->second, false, &unused));
    return PL_OK;
}

/* Output i takes the shape of tensor `like` (a subgraph's output, or the node's input). */
static pl_status shape_like(pl_context *ctx, int32_t output, const pl_tensor *like)
{
    return ctx->set_shape(ctx, output, like->ndims, like->dims);
}

/* --- CALL_ONCE --- */

static pl_status call_once_prepare(pl_context *ctx, pl_node *node)
{
    PL_TRY(read_options(ctx, node, OPT_CALL_ONCE, 1));
    if (node->inputs.n != 0 || node->outputs.n != 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "%u inputs and %u outputs, expected none",
                         (unsigned)node->inputs.n, (unsigned)node->outputs.n);
    return PL_OK;
}

static pl_status call_once_invoke(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    if (d->has_run)
        return PL_OK;
    PL_TRY(ctx->invoke_subgraph(ctx, d->first));
    d->has_run = 1;
    return PL_OK;
}

const pl_registration *pl_call_once_registration(void)
{
    static const pl_registration reg = {"CALL_ONCE", 129, init, NULL, call_once_prepare,
                                        call_once_invoke, NULL};
    return &reg;
}

/* --- IF --- */

static pl_status check_branch(pl_context *ctx, pl_node *node, int32_t k)
{
    PL_TRY(pl_copy_check_count(ctx, k, false, node->inputs.n - 1));
    PL_TRY(pl_copy_check_count(ctx, k, true, node->outputs.n));
    for (uint32_t i = 0; i < node->outputs.n; i++) {
        pl_tensor t;
        PL_TRY(ctx->subgraph_io(ctx, k, true, i, &t));
        PL_TRY(shape_like(ctx, pl_node_output(node, i), &t));
    }
    return PL_OK;
}

static pl_status if_prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    PL_TRY(read_options(ctx, node, OPT_IF, 2));
    if (pl_node_input(node, 0) < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "no condition input");
    pl_tensor cond;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &cond));
    if (cond.type != PL_BOOL || pl_tensor_count(&cond) != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "the condition is %s with %zu elements, expected "
                         "one BOOL", pl_type_name(cond.type), pl_tensor_count(&cond));
    PL_TRY(check_branch(ctx, node, d->first));
    return check_branch(ctx, node, d->second);
}

static pl_status if_invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor cond;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &cond));
    int32_t k = *(const uint8_t *)cond.data ? d->first : d->second;
    pl_copy_end ins = {-1, false, 1}, outs = {-1, true, 0};
    pl_copy_end sub_in = {k, false, 0}, sub_out = {k, true, 0};
    PL_TRY(pl_copy_tensors(ctx, node, ins, sub_in, node->inputs.n - 1));
    PL_TRY(ctx->invoke_subgraph(ctx, k));
    return pl_copy_tensors(ctx, node, sub_out, outs, node->outputs.n);
}

const pl_registration *pl_if_registration(void)
{
    static const pl_registration reg = {"IF", 118, init, NULL, if_prepare, if_invoke, NULL};
    return &reg;
}

/* --- WHILE --- */

static pl_status while_prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    PL_TRY(read_options(ctx, node, OPT_WHILE, 2));
    uint32_t n = node->inputs.n;
    if (node->outputs.n != n)
        return ctx->fail(ctx, PL_ERR_MODEL, "%u inputs but %u outputs", (unsigned)n,
                         (unsigned)node->outputs.n);
    PL_TRY(pl_copy_check_count(ctx, d->first, false, n));
    PL_TRY(pl_copy_check_count(ctx, d->second, false, n));
    PL_TRY(pl_copy_check_count(ctx, d->second, true, n));
    pl_tensor cond;
    PL_TRY(ctx->subgraph_io(ctx, d->first, true, 0, &cond));
    if (cond.type != PL_BOOL || pl_tensor_count(&cond) != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "subgraph %d's output is %s with %zu elements, "
                         "expected one BOOL", (int)d->first, pl_type_name(cond.type),
                         pl_tensor_count(&cond));
    for (uint32_t i = 0; i < n; i++) {
        pl_tensor in;
        if (pl_node_input(node, i) < 0)
            return ctx->fail(ctx, PL_ERR_MODEL, "input %u is absent", (unsigned)i);
        PL_TRY(ctx->get_eval(ctx, pl_node_input(node, i), &in));
        PL_TRY(shape_like(ctx, pl_node_output(node, i), &in));
    }
    return PL_OK;
}

static pl_status run_cond(pl_context *ctx, pl_node *node, int32_t k, bool *value)
{
    pl_tensor cond;
    pl_copy_end outs = {-1, true, 0}, sub_in = {k, false, 0};
    PL_TRY(pl_copy_tensors(ctx, node, outs, sub_in, node->outputs.n));
    PL_TRY(ctx->invoke_subgraph(ctx, k));
    PL_TRY(ctx->subgraph_io(ctx, k, true, 0, &cond));
    *value = *(const uint8_t *)cond.data != 0;
    return PL_OK;
}

static pl_status while_invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    uint32_t n = node->outputs.n;
    pl_copy_end ins = {-1, false, 0}, outs = {-1, true, 0};
    pl_copy_end body_in = {d->second, false, 0}, body_out = {d->second, true, 0};
    bool more;
    PL_TRY(pl_copy_tensors(ctx, node, ins, outs, n));
    PL_TRY(run_cond(ctx, node, d->first, &more));
    for (uint32_t iterations = 0; more; iterations++) {
        if (iterations >= ctx->loop_budget)
            return ctx->fail(ctx, PL_ERR_MODEL, "the loop ran %u iterations without its "
                             "condition turning false (loop_budget %u)",
                             (unsigned)iterations, (unsigned)ctx->loop_budget);
        PL_TRY(pl_copy_tensors(ctx, node, outs, body_in, n));
        PL_TRY(ctx->invoke_subgraph(ctx, d->second));
        PL_TRY(pl_copy_tensors(ctx, node, body_out, outs, n));
        PL_TRY(run_cond(ctx, node, d->first, &more));
    }
    return PL_OK;
}

const pl_registration *pl_while_registration(void)
{
    static const pl_registration reg = {"WHILE", 119, init, NULL, while_prepare, while_invoke,
                                        NULL};
    return &reg;
}
