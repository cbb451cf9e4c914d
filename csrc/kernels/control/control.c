/* control.c - CALL_ONCE, IF and WHILE (TFLM's call_once.cc, if.cc, while.cc). */
#include "control.h"

#include "copy.h"
#include "picolite/pl_node_io.h"

/* BuiltinOptions union types and their fields (schema.fbs). */
enum { OPT_IF = 92, OPT_WHILE = 93, OPT_CALL_ONCE = 103 };
enum { F_FIRST = 0, F_SECOND = 1 };

typedef struct op_data {
    int32_t first;  /* init, then or cond subgraph */
    int32_t second; /* else or body subgraph */
    uint32_t has_run;
} op_data;

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

/* The first dim where a's and b's shapes differ, PL_MAX_DIMS for their rank, -1 if none. */
static int32_t differing_dim(const pl_tensor *a, const pl_tensor *b)
{
    if (a->ndims != b->ndims)
        return PL_MAX_DIMS;
    for (int32_t d = 0; d < a->ndims; d++)
        if (a->dims[d] != b->dims[d])
            return d;
    return -1;
}

/* Fails naming how tensors a and b (what i, seen at places pa and pb) differ: their ranks
** or their first differing dim d. */
typedef struct shape_diff {
    const char *what;
    const char *pa;
    const char *pb;
} shape_diff;

static pl_status shape_fail(pl_context *ctx, shape_diff f, uint32_t i, const pl_tensor *a,
                            const pl_tensor *b, int32_t d, const char *why)
{
    if (d == PL_MAX_DIMS)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s %u: rank %d %s, rank %d %s: %s", f.what,
                         (unsigned)i, (int)a->ndims, f.pa, (int)b->ndims, f.pb, why);
    return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "%s %u: dim %d is %d %s, %d %s: %s", f.what,
                     (unsigned)i, (int)d, (int)a->dims[d], f.pa, (int)b->dims[d], f.pb, why);
}

/* --- CALL_ONCE --- */

static pl_status call_once_prepare(pl_context *ctx, pl_node *node)
{
    PL_TRY(read_options(ctx, node, OPT_CALL_ONCE, 1));
    PL_TRY(pl_node_check(ctx, node, PL_IO(0, 0)));
    return ctx->prepare_subgraph(ctx, ((op_data *)node->user_data)->first, node->inputs);
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
    static const pl_registration reg = {.name = "CALL_ONCE", .builtin_code = 129,
                                        .prepare = call_once_prepare,
                                        .invoke = call_once_invoke,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}

/* --- IF --- */

/* Branch k is prepared with the node's inputs but the condition (TFLite's IF resizes both
** branches' inputs in Prepare). */
static pl_status prepare_branch(pl_context *ctx, pl_node *node, int32_t k)
{
    PL_TRY(pl_copy_check_count(ctx, k, false, node->inputs.n - 1));
    PL_TRY(pl_copy_check_count(ctx, k, true, node->outputs.n));
    pl_vec passed = {node->inputs.p + 4, node->inputs.n - 1};
    return ctx->prepare_subgraph(ctx, k, passed);
}

/* Both branches must give output i one shape: LiteRT makes the output dynamic otherwise,
** which an arena planned once cannot hold. TFLM keeps the output's declared shape and fails
** the invoke whose branch gives another byte count (pl_copy_tensors checks the same). */
static pl_status branch_output(pl_context *ctx, pl_node *node, const op_data *d, uint32_t i)
{
    pl_tensor a, b;
    PL_TRY(ctx->subgraph_io(ctx, d->first, true, i, &a));
    PL_TRY(ctx->subgraph_io(ctx, d->second, true, i, &b));
    int32_t dim = differing_dim(&a, &b);
    if (dim >= 0 && ctx->arith != PL_ARITH_LITERT)
        return PL_OK;
    if (dim >= 0)
        return shape_fail(ctx, (shape_diff){"output", "from the then branch",
                                            "from the else branch"}, i, &a, &b, dim,
                          "TFLite makes the IF output a dynamic tensor; picolite plans the "
                          "arena once");
    return shape_like(ctx, pl_node_output(node, i), &a);
}

static pl_status if_prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    PL_TRY(read_options(ctx, node, OPT_IF, 2));
    if (pl_node_input(node, 0) < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "no condition input");
    pl_tensor cond;
    PL_TRY(pl_node_evals(ctx, node, 1, 0, &cond));
    if (cond.type != PL_BOOL || pl_tensor_count(&cond) != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "the condition is %s with %zu elements, expected "
                         "one BOOL", pl_type_name(cond.type), pl_tensor_count(&cond));
    PL_TRY(prepare_branch(ctx, node, d->first));
    PL_TRY(prepare_branch(ctx, node, d->second));
    for (uint32_t i = 0; i < node->outputs.n; i++)
        PL_TRY(branch_output(ctx, node, d, i));
    return PL_OK;
}

static pl_status if_invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_tensor cond;
    PL_TRY(pl_node_evals(ctx, node, 1, 0, &cond));
    int32_t k = *(const uint8_t *)cond.data ? d->first : d->second;
    pl_copy_end ins = {-1, false, 1}, outs = {-1, true, 0};
    pl_copy_end sub_in = {k, false, 0}, sub_out = {k, true, 0};
    PL_TRY(pl_copy_tensors(ctx, node, ins, sub_in, node->inputs.n - 1));
    PL_TRY(ctx->invoke_subgraph(ctx, k));
    return pl_copy_tensors(ctx, node, sub_out, outs, node->outputs.n);
}

const pl_registration *pl_if_registration(void)
{
    static const pl_registration reg = {.name = "IF", .builtin_code = 118,
                                        .prepare = if_prepare, .invoke = if_invoke,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}

/* --- WHILE --- */

/* Loop-carried tensor i must keep its shape through the body: TFLite makes the WHILE's
** outputs dynamic when it changes (it allows a scalar for a one-element tensor, whose bytes
** are the same), which an arena planned once cannot hold. */
static pl_status carried(pl_context *ctx, int32_t body, uint32_t i)
{
    pl_tensor in, out;
    PL_TRY(ctx->subgraph_io(ctx, body, false, i, &in));
    PL_TRY(ctx->subgraph_io(ctx, body, true, i, &out));
    bool scalar_for_one = (in.ndims == 0 || out.ndims == 0) && pl_tensor_count(&in) == 1 &&
                          pl_tensor_count(&out) == 1;
    int32_t dim = differing_dim(&in, &out);
    if (dim < 0 || scalar_for_one)
        return PL_OK;
    return shape_fail(ctx, (shape_diff){"loop variable", "into the body", "out of it"}, i,
                      &in, &out, dim, "its shape changes every iteration, so TFLite makes "
                      "the WHILE outputs dynamic tensors; picolite plans the arena once");
}

static pl_status while_prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    PL_TRY(read_options(ctx, node, OPT_WHILE, 2));
    uint32_t n = node->inputs.n;
    if (node->outputs.n != n)
        return ctx->fail(ctx, PL_ERR_MODEL, "%u inputs but %u outputs", (unsigned)n,
                         (unsigned)node->outputs.n);
    for (uint32_t i = 0; i < n; i++)
        if (pl_node_input(node, i) < 0)
            return ctx->fail(ctx, PL_ERR_MODEL, "input %u is absent", (unsigned)i);
    PL_TRY(pl_copy_check_count(ctx, d->first, false, n));
    PL_TRY(pl_copy_check_count(ctx, d->second, false, n));
    PL_TRY(pl_copy_check_count(ctx, d->second, true, n));
    /* as TFLite's Prepare: both subgraphs take the loop's input shapes */
    PL_TRY(ctx->prepare_subgraph(ctx, d->first, node->inputs));
    PL_TRY(ctx->prepare_subgraph(ctx, d->second, node->inputs));
    pl_tensor cond;
    PL_TRY(ctx->subgraph_io(ctx, d->first, true, 0, &cond));
    if (cond.type != PL_BOOL || pl_tensor_count(&cond) != 1)
        return ctx->fail(ctx, PL_ERR_MODEL, "subgraph %d's output is %s with %zu elements, "
                         "expected one BOOL", (int)d->first, pl_type_name(cond.type),
                         pl_tensor_count(&cond));
    for (uint32_t i = 0; i < n; i++) {
        pl_tensor in;
        PL_TRY(carried(ctx, d->second, i));
        PL_TRY(pl_node_eval(ctx, node, false, i, &in));
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
        if (ctx->loop_budget == 0) /* one budget for the whole invoke: nesting multiplies */
            return ctx->fail(ctx, PL_ERR_MODEL, "the loop ran %u iterations when the invoke's "
                             "loop budget ran out (loop_budget counts every WHILE iteration "
                             "of one invoke, nested loops included)", (unsigned)iterations);
        ctx->loop_budget--;
        PL_TRY(pl_copy_tensors(ctx, node, outs, body_in, n));
        PL_TRY(ctx->invoke_subgraph(ctx, d->second));
        PL_TRY(pl_copy_tensors(ctx, node, body_out, outs, n));
        PL_TRY(run_cond(ctx, node, d->first, &more));
    }
    return PL_OK;
}

const pl_registration *pl_while_registration(void)
{
    static const pl_registration reg = {.name = "WHILE", .builtin_code = 119,
                                        .prepare = while_prepare, .invoke = while_invoke,
                                        .user_data_size = sizeof(op_data)};
    return &reg;
}
