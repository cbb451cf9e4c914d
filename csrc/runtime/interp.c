/* interp.c - the interpreter: create (in the caller's storage or the arena), allocate through
** the phases, invoke. */
#include "state.h"

#include <string.h>

#include "base/fmt.h"
#include "picolite/picolite.h"

pl_interp_options pl_interp_defaults(void)
{
    pl_interp_options opt = {PL_PLANNER_GREEDY, false, NULL, NULL, 0, PL_DEFAULT_LOOP_BUDGET,
                             PL_TARGET_PICOLITE, NULL, NULL};
    return opt;
}

static pl_status check_args(const void *model, const pl_interp_options *opt, void *arena,
                            pl_interp **out, pl_error *err)
{
    if (model == NULL || opt == NULL || arena == NULL || out == NULL || err == NULL)
        return pl_error_set(err, PL_ERR_ARG,
                            "create: model, options, arena, out and err are required");
    /* no implicit builtin resolver: a firmware links only the kernels it names */
    if (opt->resolver == NULL || opt->resolver->find == NULL)
        return pl_error_set(err, PL_ERR_ARG,
                            "create: options.resolver is required (pl_builtin_resolver() for "
                            "every kernel, or a pl_kernel_list for a chosen few)");
    if (opt->input_shape_count > 0 && opt->input_shapes == NULL)
        return pl_error_set(err, PL_ERR_ARG, "create: %u input shapes without the array",
                            (unsigned)opt->input_shape_count);
    if ((unsigned)opt->planner >= PL_PLANNER_COUNT)
        return pl_error_set(err, PL_ERR_ARG, "create: unknown planner %d", (int)opt->planner);
    if ((unsigned)opt->target >= PL_TARGET_COUNT)
        return pl_error_set(err, PL_ERR_ARG, "create: unknown target %d", (int)opt->target);
    if (!pl_target_modelled(opt->target))
        return pl_error_set(err, PL_ERR_UNSUPPORTED,
                            "create: target %s is named but not modelled yet: its kernels' "
                            "bytes and arena are not proven against that firmware",
                            pl_target_name(opt->target));
    return PL_OK;
}

static pl_status check_model(const pl_model *m, pl_error *err)
{
    if (pl_model_opcode_count(m) > UINT16_MAX)
        return pl_error_set(err, PL_ERR_UNSUPPORTED, "model: %u operator codes (at most %u)",
                            (unsigned)pl_model_opcode_count(m), (unsigned)UINT16_MAX);
    if ((uint64_t)m->size >= UINT32_MAX)
        return pl_error_set(err, PL_ERR_UNSUPPORTED, "model: larger than 4 GiB");
    return PL_OK;
}

pl_status pl_interp_create(const void *model, size_t model_size, const pl_interp_options *opt,
                           void *arena, size_t arena_size, pl_interp **out, pl_error *err)
{
    pl_model m;
    pl_arena *a;
    pl_interp *it;
    PL_TRY(check_args(model, opt, arena, out, err));
    *out = NULL;
    memset(&err->seal, 0, sizeof err->seal); /* a new interpreter: nothing sealed yet */
    err->poll = NULL;                        /* and nothing polled */
    err->poll_ctx = NULL;
    err->node_views = NULL; /* nor viewed */
    err->seal_feed = opt->seal_feed;
    PL_TRY(pl_model_open(&m, model, model_size, err));
    PL_TRY(check_model(&m, err));
    PL_TRY(pl_arena_create(arena, arena_size, &a, err));
    if (opt->storage != NULL)
        it = (pl_interp *)(void *)opt->storage;
    else
        PL_TRY(pl_arena_alloc_tail(a, sizeof *it, _Alignof(pl_interp), (void **)&it, err));
    memset(it, 0, sizeof *it);
    it->model = m;
    it->arena = a;
    it->opt.resolver = opt->resolver;
    it->opt.planner = (uint8_t)opt->planner;
    it->preserve_all_tensors = opt->preserve_all_tensors;
    it->requests = PL_NO_OFFSET;
    it->opt.loop_budget = opt->loop_budget;
    it->opt.arith = (uint8_t)pl_target_arith(opt->target);
    it->opt.fused_madd = pl_target_fused_madd(opt->target);
    it->phase = PL_PHASE_CREATED;
    it->current_node = -1;
    it->subgraph_count = pl_model_subgraph_count(&m);
    pl_subgraph_select(it, 0);
    it->opcode_count = pl_model_opcode_count(&m);
    it->rec.planner = (uint8_t)opt->planner;
    it->err = err;
    pl_error_clear(err);
    for (uint32_t i = 0; i < opt->input_shape_count; i++) {
        const pl_input_shape *q = &opt->input_shapes[i];
        PL_TRY(pl_interp_resize_input(it, q->input, q->ndims, q->dims, false));
    }
    *out = it;
    return PL_OK;
}

static pl_status unsupported(pl_interp *it, uint32_t node, const pl_opcode_view *oc)
{
    char name[PL_OP_NAME_CAPACITY];
    if (oc->builtin_code == PL_BUILTIN_CUSTOM) {
        pl_fmt(name, sizeof name, "%.*s", (int)oc->custom_code.n,
               oc->custom_code.n > 0 ? (const char *)oc->custom_code.p : "");
        pl_error_set(it->err, PL_ERR_UNSUPPORTED,
                     "node %u: custom operator '%s' (version %d) is not supported", node, name,
                     (int)oc->version);
    } else {
        pl_fmt(name, sizeof name, "%s", pl_model_builtin_name(oc->builtin_code));
        pl_error_set(it->err, PL_ERR_UNSUPPORTED,
                     "node %u: operator %s (builtin code %d, version %d) is not supported",
                     node, name, (int)oc->builtin_code, (int)oc->version);
    }
    it->err->node = (int32_t)node;
    memcpy(it->err->op_name, name, sizeof name);
    return PL_ERR_UNSUPPORTED;
}

static pl_status resolve_subgraph(pl_interp *it)
{
    for (uint32_t n = 0; n < it->node_count; n++) {
        uint16_t code = it->nodes[n].opcode;
        if (it->regs[code].reg != NULL)
            continue;
        pl_opcode_view oc;
        pl_model_opcode(&it->model, code, &oc);
        const char *custom = (const char *)oc.custom_code.p;
        it->regs[code].reg = it->opt.resolver->find(it->opt.resolver->self, oc.builtin_code,
                                                custom, oc.custom_code.n, oc.version);
        if (it->regs[code].reg == NULL)
            return unsupported(it, n, &oc);
    }
    return PL_OK;
}

/* Names the node and op in the error record; a failure that recorded no message of its own
** (a kernel returning a status without ctx->fail) gets one naming the phase. */
static pl_status node_failed(pl_interp *it, uint32_t n, pl_status s, const char *phase)
{
    if (it->err->status == PL_OK)
        return pl_context_fail_node(it, n, s, phase);
    it->err->status = s;
    it->err->node = (int32_t)n;
    pl_context_op_name(it, n, it->err->op_name, sizeof it->err->op_name);
    return s;
}

/* Runs before each kernel call so node_failed knows whether the kernel explained itself. */
static void enter_node(pl_interp *it, uint32_t n)
{
    it->current_node = (int32_t)n;
    pl_error_clear(it->err);
}

/* Runs step over every subgraph in order (TFLM's InitSubgraphs, PrepareSubgraphs ...),
** subgraph 0 current again afterwards. */
static pl_status each_subgraph(pl_interp *it, pl_status (*step)(pl_interp *it))
{
    pl_status s = PL_OK;
    for (uint32_t k = 0; k < it->subgraph_count && s == PL_OK; k++) {
        pl_subgraph_select(it, k);
        s = step(it);
    }
    pl_subgraph_select(it, 0);
    return s;
}

static pl_status init_nodes(pl_interp *it)
{
    for (uint32_t n = 0; n < it->node_count; n++) {
        const pl_registration *reg = it->regs[it->nodes[n].opcode].reg;
        if (reg->init == NULL && reg->user_data_size == 0)
            continue;
        pl_node node;
        void *data = NULL;
        pl_context_node(it, n, &node);
        enter_node(it, n);
        pl_status s = pl_registration_init(reg, it->ctx, &node, &data);
        if (s != PL_OK)
            return node_failed(it, n, s, "init failed");
        if (data != NULL)
            it->nodes[n].op_data = pl_arena_offset(it->arena, data);
    }
    return PL_OK;
}

/* A subgraph that control flow prepared from its caller (a resized model) is done already. */
pl_status pl_interp_prepare_nodes(pl_interp *it)
{
    pl_subgraph_record *rec = it->subgraphs != NULL ? &it->subgraphs[it->current_subgraph]
                                                    : NULL;
    if (rec != NULL && rec->prepared == PL_PREPARE_DONE)
        return PL_OK;
    if (rec != NULL)
        rec->prepared = PL_PREPARE_UNDER_WAY;
    for (uint32_t n = 0; n < it->node_count; n++) {
        const pl_registration *reg = it->regs[it->nodes[n].opcode].reg;
        pl_node node;
        pl_context_node(it, n, &node);
        enter_node(it, n);
        it->pending_count = 0;
        if (reg->prepare != NULL) {
            pl_status s = reg->prepare(it->ctx, &node);
            if (s != PL_OK)
                return node_failed(it, n, s, "prepare failed");
        }
        PL_TRY(pl_alloc_finish_node(it));
    }
    if (rec != NULL)
        rec->prepared = PL_PREPARE_DONE;
    return PL_OK;
}

/* The first pass: a subgraph control flow invokes waits for its caller's prepare, which
** gives it the caller's shapes (only marked so in a resized model). */
static pl_status prepare_uncalled(pl_interp *it)
{
    if (it->subgraphs != NULL &&
        it->subgraphs[it->current_subgraph].prepared == PL_PREPARE_BY_CALLER)
        return PL_OK;
    return pl_interp_prepare_nodes(it);
}

static pl_status allocate_phases(pl_interp *it)
{
    it->failed = true; /* until every phase has succeeded */
    PL_TRY(pl_alloc_start(it));
    PL_TRY(each_subgraph(it, resolve_subgraph));
    it->phase = PL_PHASE_INIT;
    PL_TRY(each_subgraph(it, init_nodes));
    it->phase = PL_PHASE_PREPARE;
    if (pl_interp_resized(it))
        pl_subgraph_mark_callees(it);
    PL_TRY(each_subgraph(it, prepare_uncalled));
    if (it->subgraphs != NULL) /* then the callees no caller prepared (CALL_ONCE's) */
        PL_TRY(each_subgraph(it, pl_interp_prepare_nodes));
    it->current_node = -1;
    it->phase = PL_PHASE_PLANNING;
    PL_TRY(pl_alloc_finish(it));
    it->phase = PL_PHASE_INVOKE;
    it->failed = false;
    it->allocated = true;
    pl_integrity_seal(it);
    return PL_OK;
}

pl_status pl_interp_allocate(pl_interp *it)
{
    if (it->allocated || it->failed)
        return pl_error_set(it->err, PL_ERR_STATE, it->failed
                            ? "allocate: an earlier allocation failed; create a new interpreter"
                            : "allocate: tensors are already allocated");
    return pl_context_bind(it, allocate_phases);
}

pl_status pl_interp_poll(pl_interp *it, uint32_t n)
{
    pl_error *e = it->err;
    if (e->poll == NULL || e->poll(e->poll_ctx) == 0)
        return PL_OK;
    pl_error_set(e, PL_ERR_STATE, "invoke interrupted by the host before node %u of subgraph "
                 "%u", (unsigned)n, (unsigned)it->current_subgraph);
    e->node = (int32_t)n;
    return PL_ERR_STATE;
}

/* Node n of the current subgraph: the host's view of it (filled on its first run), or one
** read from the model. A copy either way: a kernel may change its own. */
static void node_view(pl_interp *it, uint32_t n, pl_node *out)
{
    pl_error *e = it->err;
    if (e->node_views == NULL) {
        pl_context_node(it, n, out);
        return;
    }
    pl_node *v = &e->node_views[pl_subgraph_rec(it, it->current_subgraph).node_base + n];
    if (v->registration == NULL) /* resolved at allocate: NULL only while unfilled */
        pl_context_node(it, n, v);
    *out = *v;
}

pl_status pl_interp_run_node(pl_interp *it, uint32_t n)
{
    PL_TRY(pl_interp_poll(it, n));
    const pl_registration *reg = it->regs[it->nodes[n].opcode].reg;
    pl_node node;
    node_view(it, n, &node);
    enter_node(it, n);
    pl_status s = reg->invoke(it->ctx, &node);
    return s == PL_OK || s == PL_ABORTED ? s : node_failed(it, n, s, "invoke failed");
}

static pl_status invoke_nodes(pl_interp *it)
{
    const pl_profiler *p = it->profiler;
    pl_status s = PL_OK;
    for (uint32_t n = 0; n < it->node_count && s == PL_OK; n++) {
        bool timed = p != NULL && n < p->node_count;
        uint64_t start = timed ? p->timer(p->timer_ctx) : 0;
        s = pl_interp_run_node(it, n);
        if (timed)
            p->node_ns[n] = p->timer(p->timer_ctx) - start; /* nested subgraphs included */
        if (s != PL_OK && s != PL_ABORTED) /* PL_ABORTED ends the loop, not in error */
            return s;
    }
    it->current_node = -1;
    return s;
}

pl_status pl_interp_invoke(pl_interp *it)
{
    if (!it->allocated)
        return pl_error_set(it->err, PL_ERR_STATE,
                            "invoke: call allocate (allocate_tensors) first");
    PL_TRY(pl_integrity_guard(it));
    pl_status s = pl_context_bind(it, invoke_nodes);
    pl_integrity_reseal(it); /* a failed node leaves the records as the interpreter made them */
    return s;
}

pl_status pl_interp_invoke_subgraph(pl_interp *it, uint32_t subgraph)
{
    uint32_t saved = it->current_subgraph;
    PL_TRY(pl_interp_select_subgraph(it, subgraph));
    pl_status s = pl_interp_invoke(it);
    pl_subgraph_select(it, saved);
    return s;
}

uint32_t pl_interp_subgraph_count(const pl_interp *it)
{
    return it->subgraph_count;
}

uint32_t pl_interp_selected_subgraph(const pl_interp *it)
{
    return it->current_subgraph;
}

pl_status pl_interp_select_subgraph(pl_interp *it, uint32_t k)
{
    if (k >= it->subgraph_count)
        return pl_error_set(it->err, PL_ERR_ARG, "subgraph %u out of range (%u subgraphs)",
                            (unsigned)k, (unsigned)it->subgraph_count);
    if (it->depth > 0)
        return pl_error_set(it->err, PL_ERR_STATE, "select_subgraph: the interpreter is busy");
    pl_subgraph_select(it, k);
    return PL_OK;
}

static pl_status reset_subgraph(pl_interp *it)
{
    for (uint32_t i = 0; i < it->tensor_count; i++) {
        pl_tensor t;
        if (!(it->tensors[i].flags & PL_EVAL_VARIABLE))
            continue;
        pl_context_eval(it, (int32_t)i, &t);
        memset(t.data, pl_alloc_variable_fill(it, i), t.bytes);
    }
    for (uint32_t n = 0; n < it->node_count; n++) {
        const pl_registration *reg = it->regs[it->nodes[n].opcode].reg;
        if (reg->reset == NULL)
            continue;
        pl_node node;
        pl_context_node(it, n, &node);
        enter_node(it, n);
        pl_status s = reg->reset(it->ctx, &node);
        if (s != PL_OK)
            return node_failed(it, n, s, "reset failed");
    }
    it->current_node = -1;
    return PL_OK;
}

/* As TFLM's Reset: kernels' reset, variable tensors and resource variables back to their
** initial bytes. A CALL_ONCE that has run stays done (TFLM's keeps has_run). */
static pl_status reset_all(pl_interp *it)
{
    PL_TRY(each_subgraph(it, reset_subgraph));
    pl_resource_reset(it);
    return PL_OK;
}

pl_status pl_interp_reset(pl_interp *it)
{
    if (!it->allocated)
        return pl_error_set(it->err, PL_ERR_STATE, "reset: call allocate first");
    PL_TRY(pl_integrity_guard(it));
    pl_status s = pl_context_bind(it, reset_all);
    pl_integrity_reseal(it);
    return s;
}

static pl_status free_subgraph(pl_interp *it)
{
    for (uint32_t n = 0; n < it->node_count; n++) {
        const pl_registration *reg = it->regs[it->nodes[n].opcode].reg;
        if (reg == NULL || reg->free == NULL || it->nodes[n].op_data == PL_NO_OFFSET)
            continue;
        pl_node node;
        pl_context_node(it, n, &node);
        (*reg->free)(it->ctx, &node); /* the kernel's callback, not libc's free */
    }
    return PL_OK;
}

static pl_status free_all(pl_interp *it)
{
    return each_subgraph(it, free_subgraph);
}

void pl_interp_destroy(pl_interp *it)
{
    if (it == NULL || it->node_records == NULL || it->regs == NULL)
        return;
    pl_context_bind(it, free_all);
}

const pl_error *pl_interp_error(const pl_interp *it)
{
    return it->err;
}

void pl_interp_set_poll(pl_interp *it, int (*poll)(void *poll_ctx), void *poll_ctx)
{
    it->err->poll = poll;
    it->err->poll_ctx = poll_ctx;
}

pl_status pl_interp_set_node_views(pl_interp *it, pl_node *views, uint32_t count)
{
    if (!it->allocated)
        return pl_error_set(it->err, PL_ERR_STATE, "node views: call allocate first");
    if (views != NULL && count < it->all_nodes)
        return pl_error_set(it->err, PL_ERR_ARG, "node views: %u for %u nodes",
                            (unsigned)count, (unsigned)it->all_nodes);
    if (views != NULL)
        memset(views, 0, (size_t)count * sizeof *views);
    it->err->node_views = views;
    return PL_OK;
}

uint32_t pl_interp_node_total(const pl_interp *it)
{
    return it->allocated ? it->all_nodes : 0;
}

pl_status pl_interp_set_profiler(pl_interp *it, const pl_profiler *profiler)
{
    if (profiler != NULL && (profiler->timer == NULL || profiler->node_ns == NULL))
        return pl_error_set(it->err, PL_ERR_ARG, "profiler: timer and node_ns are required");
    PL_TRY(pl_integrity_guard(it)); /* never reseal damage */
    it->profiler = profiler;
    if (it->allocated)
        pl_integrity_seal(it);
    return PL_OK;
}
