/* subgraph.c - the current subgraph, and running one inside another (control flow).
**
** Every subgraph's eval tensor and node records sit in two shared tail arrays, in subgraph
** order (TFLM keeps one array of each per subgraph: the same bytes). Selecting a subgraph
** points it->tensors, it->nodes and the counts at its slice, so the callbacks, the
** allocator and the reports address "the current subgraph" with local indices. */
#include "state.h"

#include "model/schema.h"

enum { OP_IF = 118, OP_WHILE = 119, OP_CALL_ONCE = 129 };

/* Option field ids (schema.fbs): IfOptions, WhileOptions, CallOnceOptions. */
enum { F_FIRST_SUBGRAPH = 0, F_SECOND_SUBGRAPH = 1 };

uint32_t pl_subgraph_tensor_count(const pl_interp *it, uint32_t k)
{
    pl_subgraph sg;
    pl_model_subgraph(&it->model, k, &sg);
    return sg.tensors.n;
}

uint32_t pl_subgraph_node_count(const pl_interp *it, uint32_t k)
{
    pl_subgraph sg;
    pl_model_subgraph(&it->model, k, &sg);
    return sg.operators.n;
}

void pl_subgraph_select(pl_interp *it, uint32_t k)
{
    pl_model_subgraph(&it->model, k, &it->sg);
    it->current_subgraph = k;
    it->tensor_count = it->sg.tensors.n;
    it->node_count = it->sg.operators.n;
    if (it->tensor_records == NULL)
        return; /* before allocation: structure only */
    pl_subgraph_record r = pl_subgraph_rec(it, k);
    it->tensors = it->tensor_records + r.tensor_base;
    it->nodes = it->node_records + r.node_base;
}

void pl_subgraph_callees(const pl_model *m, const pl_subgraph *sg, uint32_t n, int32_t out[2],
                         uint32_t *count)
{
    pl_op_view op;
    pl_opcode_view oc;
    pl_model_operator(m, sg, n, &op);
    pl_model_opcode(m, op.opcode_index, &oc);
    int32_t code = oc.builtin_code;
    *count = code == OP_CALL_ONCE ? 1 : code == OP_IF || code == OP_WHILE ? 2 : 0;
    if (*count == 0)
        return;
    /* the verifier checked both indices of these option tables against the subgraph count;
    ** a table of another type (a hostile model) has no such fields: 0, the main graph */
    out[0] = pl_table_i32(&op.options, F_FIRST_SUBGRAPH, 0);
    out[1] = pl_table_i32(&op.options, F_SECOND_SUBGRAPH, 0);
}

static pl_status run_nodes(pl_interp *it);

pl_status pl_subgraph_invoke(pl_interp *it, uint32_t k)
{
    if (k >= it->subgraph_count)
        return pl_error_set(it->err, PL_ERR_ARG, "invoke: subgraph %u out of range (%u "
                            "subgraphs)", (unsigned)k, (unsigned)it->subgraph_count);
    if (it->depth >= PL_MAX_SUBGRAPH_DEPTH)
        return pl_error_set(it->err, PL_ERR_MODEL, "subgraph %u: control flow nested deeper "
                            "than %d subgraphs (a subgraph invoking itself?)", (unsigned)k,
                            PL_MAX_SUBGRAPH_DEPTH);
    uint32_t saved = it->current_subgraph;
    int32_t saved_node = it->current_node;
    it->depth++;
    pl_subgraph_select(it, k);
    pl_status s = pl_interp_poll(it, 0); /* each loop iteration, even of an empty subgraph */
    if (s == PL_OK)
        s = run_nodes(it);
    pl_subgraph_select(it, saved);
    it->depth--;
    it->current_node = saved_node;
    return s;
}

static pl_status run_nodes(pl_interp *it)
{
    for (uint32_t n = 0; n < it->node_count; n++)
        PL_TRY(pl_interp_run_node(it, n));
    return PL_OK;
}

/* --- the control-flow callbacks --- */

static pl_interp *interp_of(pl_context *ctx)
{
    return (pl_interp *)ctx->impl;
}

static pl_status check_subgraph(pl_interp *it, int32_t k, const char *call)
{
    if (it->phase != PL_PHASE_PREPARE && it->phase != PL_PHASE_INVOKE)
        return pl_context_phase_error(it, call, "prepare and invoke");
    if (k < 0 || (uint32_t)k >= it->subgraph_count)
        return pl_error_set(it->err, PL_ERR_MODEL, "node %d: %s(%d): subgraph out of range "
                            "(%u subgraphs)", (int)it->current_node, call, (int)k,
                            (unsigned)it->subgraph_count);
    return PL_OK;
}

static pl_status subgraph_io_count(pl_context *ctx, int32_t k, bool output, uint32_t *count)
{
    pl_interp *it = interp_of(ctx);
    pl_subgraph sg;
    *count = 0;
    PL_TRY(check_subgraph(it, k, "subgraph_io_count"));
    pl_model_subgraph(&it->model, (uint32_t)k, &sg);
    *count = output ? sg.outputs.n : sg.inputs.n;
    return PL_OK;
}

static pl_status subgraph_io(pl_context *ctx, int32_t k, bool output, uint32_t i,
                             pl_tensor *out)
{
    pl_interp *it = interp_of(ctx);
    pl_subgraph sg;
    PL_TRY(check_subgraph(it, k, "subgraph_io"));
    pl_model_subgraph(&it->model, (uint32_t)k, &sg);
    pl_vec list = output ? sg.outputs : sg.inputs;
    if (i >= list.n)
        return pl_error_set(it->err, PL_ERR_MODEL, "node %d: subgraph %d has %u %s, not %u",
                            (int)it->current_node, (int)k, (unsigned)list.n,
                            output ? "outputs" : "inputs", (unsigned)i + 1);
    uint32_t saved = it->current_subgraph;
    pl_subgraph_select(it, (uint32_t)k);
    pl_context_eval(it, pl_vec_i32(list, i), out);
    pl_subgraph_select(it, saved);
    return PL_OK;
}

#ifndef PL_SINGLE_SUBGRAPH
static pl_status invoke_subgraph(pl_context *ctx, int32_t k)
{
    pl_interp *it = interp_of(ctx);
    if (it->phase != PL_PHASE_INVOKE)
        return pl_context_phase_error(it, "invoke_subgraph", "invoke");
    PL_TRY(check_subgraph(it, k, "invoke_subgraph"));
    return pl_subgraph_invoke(it, (uint32_t)k);
}
#endif

/* --- preparing a subgraph with its caller's shapes (resized models) --- */

void pl_subgraph_mark_callees(pl_interp *it)
{
    for (uint32_t k = 0; it->subgraphs != NULL && k < it->subgraph_count; k++) {
        pl_subgraph sg;
        pl_model_subgraph(&it->model, k, &sg);
        for (uint32_t n = 0; n < sg.operators.n; n++) {
            int32_t callee[2];
            uint32_t count;
            pl_subgraph_callees(&it->model, &sg, n, callee, &count);
            for (uint32_t c = 0; c < count; c++)
                if (callee[c] > 0) /* subgraph 0 is the entry, prepared first */
                    it->subgraphs[callee[c]].prepared = PL_PREPARE_BY_CALLER;
        }
    }
}

#ifndef PL_SINGLE_SUBGRAPH
/* Callee input i (tensor t of subgraph k) takes the shape of the caller's tensor from; a
** callee prepared before must have it already. */
static pl_status take_input(pl_context *ctx, int32_t k, uint32_t i, int32_t t,
                            const pl_tensor *from, bool prepared)
{
    pl_interp *it = interp_of(ctx);
    uint32_t caller = it->current_subgraph;
    pl_tensor to;
    pl_subgraph_select(it, (uint32_t)k);
    pl_context_eval(it, t, &to);
    pl_subgraph_select(it, caller);
    if (to.type != from->type)
        return PL_CTX_FAIL(ctx, PL_ERR_MODEL, "subgraph %d input %u is %s, the node gives %s",
                           (int)k, (unsigned)i, pl_type_name(to.type), pl_type_name(from->type));
    bool same = to.ndims == from->ndims;
    for (int32_t d = 0; same && d < to.ndims; d++)
        same = to.dims[d] == from->dims[d];
    if (same)
        return PL_OK;
    if (prepared) {
        char want[96], have[96];
        pl_context_format_dims(from->ndims, from->dims, want, sizeof want);
        pl_context_format_dims(to.ndims, to.dims, have, sizeof have);
        return PL_CTX_FAIL(ctx, PL_ERR_MODEL, "subgraph %d was prepared with input %u of shape "
                           "%s, this node gives %s (one memory plan holds one shape per "
                           "tensor)", (int)k, (unsigned)i, have, want);
    }
    pl_subgraph_select(it, (uint32_t)k);
    pl_status s = pl_shapes_take(it, t, from->ndims, from->dims);
    pl_subgraph_select(it, caller);
    return s;
}

/* Why subgraph k cannot be prepared from the current node now, or PL_OK. */
static pl_status check_nesting(pl_context *ctx, int32_t k, pl_vec inputs, const pl_subgraph *sg)
{
    pl_interp *it = interp_of(ctx);
    if (it->pending_count > 0 || pl_arena_temp_size(it->arena) > 0)
        return pl_error_set(it->err, PL_ERR_STATE, "node %d: prepare_subgraph(%d) must come "
                            "before get_tensor and request_scratch (the subgraph's nodes reuse "
                            "the temp section)", (int)it->current_node, (int)k);
    if (it->subgraphs == NULL || it->subgraphs[k].prepared == PL_PREPARE_UNDER_WAY)
        return PL_CTX_FAIL(ctx, PL_ERR_MODEL, "control flow invokes subgraph %d, which is being "
                           "prepared (recursion)", (int)k);
    if (it->depth >= PL_MAX_SUBGRAPH_DEPTH)
        return PL_CTX_FAIL(ctx, PL_ERR_MODEL, "subgraph %d: control flow nested deeper than %d "
                           "subgraphs", (int)k, PL_MAX_SUBGRAPH_DEPTH);
    if (inputs.n != sg->inputs.n)
        return PL_CTX_FAIL(ctx, PL_ERR_MODEL, "subgraph %d has %u inputs, the node gives %u",
                           (int)k, (unsigned)sg->inputs.n, (unsigned)inputs.n);
    return PL_OK;
}

/* Prepares subgraph k's nodes with the current subgraph and node restored after. */
static pl_status prepare_nested(pl_interp *it, uint32_t k)
{
    uint32_t caller = it->current_subgraph;
    int32_t node = it->current_node;
    it->depth++;
    pl_subgraph_select(it, k);
    pl_status s = pl_interp_prepare_nodes(it);
    pl_subgraph_select(it, caller);
    it->depth--;
    it->current_node = node;
    return s;
}

static pl_status prepare_subgraph(pl_context *ctx, int32_t k, pl_vec inputs)
{
    pl_interp *it = interp_of(ctx);
    pl_subgraph sg;
    if (it->phase != PL_PHASE_PREPARE)
        return pl_context_phase_error(it, "prepare_subgraph", "prepare");
    PL_TRY(check_subgraph(it, k, "prepare_subgraph"));
    if (!pl_interp_resized(it))
        return PL_OK; /* the model's own shapes: every subgraph is prepared in order */
    pl_model_subgraph(&it->model, (uint32_t)k, &sg);
    PL_TRY(check_nesting(ctx, k, inputs, &sg));
    bool prepared = it->subgraphs[k].prepared == PL_PREPARE_DONE;
    for (uint32_t i = 0; i < inputs.n; i++) {
        int32_t from = pl_vec_i32(inputs, i), t = pl_vec_i32(sg.inputs, i);
        pl_tensor v;
        if (from < 0 || (uint32_t)from >= it->tensor_count || t < 0)
            return PL_CTX_FAIL(ctx, PL_ERR_MODEL, "subgraph %d input %u: the node's tensor %d "
                               "or the subgraph's %d is absent", (int)k, (unsigned)i, (int)from,
                               (int)t);
        pl_context_eval(it, from, &v);
        PL_TRY(take_input(ctx, k, i, t, &v, prepared));
    }
    return prepared ? PL_OK : prepare_nested(it, (uint32_t)k);
}
#else
/* pl_alloc_start refused models of more than one subgraph: control flow has none to run. */
static pl_status no_subgraph(pl_context *ctx, int32_t k, const char *call)
{
    pl_interp *it = interp_of(ctx);
    return pl_error_set(it->err, PL_ERR_UNSUPPORTED, "node %d: %s(%d): control flow is not "
                        "in this build (PL_SINGLE_SUBGRAPH)", (int)it->current_node, call,
                        (int)k);
}

static pl_status invoke_subgraph(pl_context *ctx, int32_t k)
{
    return no_subgraph(ctx, k, "invoke_subgraph");
}

static pl_status prepare_subgraph(pl_context *ctx, int32_t k, pl_vec inputs)
{
    (void)inputs;
    return no_subgraph(ctx, k, "prepare_subgraph");
}
#endif

void pl_subgraph_init_context(pl_context *ctx)
{
    ctx->subgraph_io_count = subgraph_io_count;
    ctx->subgraph_io = subgraph_io;
    ctx->invoke_subgraph = invoke_subgraph;
    ctx->prepare_subgraph = prepare_subgraph;
}
