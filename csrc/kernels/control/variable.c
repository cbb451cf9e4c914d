/* variable.c - VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE (TFLM's var_handle.cc,
** read_variable.cc, assign_variable.cc) over the runtime's resource variables. */
#include "variable.h"
#include "picolite/pl_node_io.h"

#include <string.h>

enum { OPT_VAR_HANDLE = 111 };
enum { F_CONTAINER = 0, F_SHARED_NAME = 1 };

/* An absent string field reads as NULL (TFLM passes a null container). */
static pl_bytes option_str(const pl_table *t, uint32_t field)
{
    pl_vec v = pl_table_vec(t, field, 1);
    return (pl_bytes){pl_table_field(t, field) != 0 ? v.p : NULL, v.n};
}

static pl_status var_handle_prepare(pl_context *ctx, pl_node *node)
{
    if (node->options_type != OPT_VAR_HANDLE)
        return ctx->fail(ctx, PL_ERR_MODEL, "expected VarHandleOptions");
    PL_TRY(pl_node_check(ctx, node, ((pl_io_spec){0, PL_IO_ANY, 1, 1, NULL, 0})));
    pl_tensor t;
    PL_TRY(pl_node_evals(ctx, node, 0, 1, &t));
    PL_TRY(ctx->set_shape(ctx, t.index, t.ndims, t.dims));
    return ctx->var_handle(ctx, t.index, option_str(&node->options, F_CONTAINER),
                           option_str(&node->options, F_SHARED_NAME));
}

/* The variable id a RESOURCE input holds, or -1 when nothing bound it. */
static pl_status resource_id(pl_context *ctx, pl_node *node, int32_t *id)
{
    pl_tensor t;
    *id = -1;
    PL_TRY(pl_node_evals(ctx, node, 1, 0, &t));
    if (t.type != PL_RESOURCE && t.type != PL_INT32) /* not pl_check_type: a model error */
        return ctx->fail(ctx, PL_ERR_MODEL, "input 0 is %s, expected RESOURCE",
                         pl_type_name(t.type));
    if (t.data != NULL && t.bytes >= sizeof(int32_t))
        memcpy(id, t.data, sizeof *id);
    return PL_OK;
}

static pl_status var_handle_invoke(pl_context *ctx, pl_node *node)
{
    (void)ctx;
    (void)node; /* prepare bound the output to the variable */
    return PL_OK;
}

const pl_registration *pl_var_handle_registration(void)
{
    static const pl_registration reg = {.name = "VAR_HANDLE", .builtin_code = 142,
                                        .prepare = var_handle_prepare,
                                        .invoke = var_handle_invoke};
    return &reg;
}

static pl_status read_prepare(pl_context *ctx, pl_node *node)
{
    int32_t id;
    PL_TRY(pl_node_check(ctx, node, PL_IO(1, 1)));
    PL_TRY(resource_id(ctx, node, &id));
    pl_tensor out;
    PL_TRY(pl_node_evals(ctx, node, 0, 1, &out));
    return ctx->set_shape(ctx, pl_node_output(node, 0), out.ndims, out.dims);
}

static pl_status read_invoke(pl_context *ctx, pl_node *node)
{
    int32_t id;
    void *data;
    size_t bytes;
    pl_tensor out;
    PL_TRY(resource_id(ctx, node, &id));
    PL_TRY(ctx->var_data(ctx, id, &data, &bytes));
    PL_TRY(pl_node_evals(ctx, node, 0, 1, &out));
    if (out.bytes != bytes)
        return ctx->fail(ctx, PL_ERR_MODEL, "the output has %zu bytes, variable %d has %zu",
                         out.bytes, (int)id, bytes);
    memcpy(out.data, data, bytes);
    return PL_OK;
}

const pl_registration *pl_read_variable_registration(void)
{
    static const pl_registration reg = {.name = "READ_VARIABLE", .builtin_code = 143,
                                        .prepare = read_prepare, .invoke = read_invoke};
    return &reg;
}

static pl_status assign_prepare(pl_context *ctx, pl_node *node)
{
    int32_t id;
    PL_TRY(pl_node_check(ctx, node, PL_IO(2, 0)));
    PL_TRY(resource_id(ctx, node, &id));
    pl_tensor *value;
    PL_TRY(pl_node_tensor(ctx, node, false, 1, &value));
    /* a handle bound elsewhere (passed in as a subgraph input) has no id yet, as in TFLM */
    return id < 0 ? PL_OK : ctx->var_allocate(ctx, id, value);
}

static pl_status assign_invoke(pl_context *ctx, pl_node *node)
{
    int32_t id;
    void *data;
    size_t bytes;
    pl_tensor value;
    PL_TRY(resource_id(ctx, node, &id));
    PL_TRY(ctx->var_data(ctx, id, &data, &bytes));
    PL_TRY(pl_node_eval(ctx, node, false, 1, &value));
    if (value.bytes != bytes)
        return ctx->fail(ctx, PL_ERR_MODEL, "the value has %zu bytes, variable %d has %zu",
                         value.bytes, (int)id, bytes);
    memcpy(data, value.data, bytes);
    return PL_OK;
}

const pl_registration *pl_assign_variable_registration(void)
{
    static const pl_registration reg = {.name = "ASSIGN_VARIABLE", .builtin_code = 144,
                                        .prepare = assign_prepare, .invoke = assign_invoke};
    return &reg;
}
