/* program.c - TFLM's AllocateTensors as a list of arena operations.
**
** The order is TFLM's: the allocator objects (MicroAllocator::Create, or the wheel's
** RecordingMicroAllocator), the resource variables a firmware makes before the interpreter,
** StartModelAllocation (builtin data allocator, the scratch request buffer in the head,
** subgraph records, every subgraph's eval tensors, then every subgraph's node records), the
** operators' builtin data, every kernel's init, every kernel's prepare (each followed by
** FinishPrepareNodeAllocations), FinishModelAllocation (scratch handles, the planner's input
** in temp, variable tensors, the planner's scratch, the head), and the interpreter's
** input/output tensors. The PLAN event's buffer count and the final head size are filled in
** by the caller once the plan is known (tflm.c). */
#include "tflm/program.h"

#include <string.h>

#include "runtime/state.h"
#include "tflm/kernels.h"

void pl_tflm_program_emit(pl_tflm_program *p, pl_tflm_op op, uint32_t size, uint32_t align,
                          uint8_t cat, uint32_t count)
{
    if (p->event_count < p->event_cap) {
        pl_tflm_event *e = &p->events[p->event_count];
        e->op = (uint8_t)op;
        e->cat = cat;
        e->align = (uint8_t)align;
        e->flags = 0;
        e->size = size;
        e->count = count;
    }
    p->event_count++;
}

void pl_tflm_program_temp(pl_tflm_program *p, uint32_t size, uint32_t align, uint32_t read)
{
    pl_tflm_program_emit(p, PL_TFLM_TEMP, size, align, PL_TFLM_CAT_NONE, read);
}

void pl_tflm_program_request(pl_tflm_program *p, uint32_t bytes)
{
    if (p->request_count < p->request_cap)
        p->requests[p->request_count] = (pl_tflm_request){bytes, p->node, p->subgraph};
    p->request_count++;
}

static void tail(pl_tflm_program *p, uint32_t size, pl_tflm_rec r, uint8_t cat, uint32_t count)
{
    pl_tflm_program_emit(p, PL_TFLM_TAIL, size, r.align, cat, count);
}

void pl_tflm_program_flag(pl_tflm_program *p, uint8_t flags)
{
    if (p->event_count > 0 && p->event_count <= p->event_cap)
        p->events[p->event_count - 1].flags = flags;
}

/* MicroAllocator::Create (a plain firmware) or RecordingMicroAllocator::Create (the wheel,
** a recording build): the arena allocator, the greedy planner, the allocator. */
static void allocator_objects(pl_tflm_program *p)
{
    const pl_tflm_abi *a = p->abi;
    tail(p, a->arena.size, a->arena, PL_TFLM_CAT_NONE, 1);
    pl_tflm_program_flag(p, PL_TFLM_EV_PLAIN_ONLY);
    tail(p, a->rec_arena.size, a->rec_arena, PL_TFLM_CAT_NONE, 1);
    pl_tflm_program_flag(p, PL_TFLM_EV_RECORDING_ONLY);
    tail(p, a->planner.size, a->planner, PL_TFLM_CAT_NONE, 1);
    tail(p, a->allocator.size, a->allocator, PL_TFLM_CAT_NONE, 1);
    pl_tflm_program_flag(p, PL_TFLM_EV_PLAIN_ONLY);
    tail(p, a->rec_allocator.size, a->rec_allocator, PL_TFLM_CAT_NONE, 1);
    pl_tflm_program_flag(p, PL_TFLM_EV_RECORDING_ONLY);
    if (p->resource_vars > 0) { /* MicroResourceVariables::Create, through the allocator */
        pl_tflm_rec r = {0, PL_TFLM_ALIGN};
        tail(p, a->resource_vars, r, PL_CAT_PERSISTENT_BUFFER, 1);
        tail(p, a->resource_var * p->resource_vars, r, PL_CAT_PERSISTENT_BUFFER, 1);
    }
}

static uint32_t tensor_count(const pl_interp *it, uint32_t k)
{
    pl_subgraph sg;
    pl_model_subgraph(&it->model, k, &sg);
    return sg.tensors.n;
}

static uint32_t operator_count(const pl_interp *it, uint32_t k)
{
    pl_subgraph sg;
    pl_model_subgraph(&it->model, k, &sg);
    return sg.operators.n;
}

/* StartModelAllocation: the records of every subgraph. */
static void start(pl_tflm_program *p)
{
    const pl_tflm_abi *a = p->abi;
    const pl_interp *it = p->it;
    tail(p, a->builtin_alloc.size, a->builtin_alloc, PL_TFLM_CAT_NONE, 1);
    pl_tflm_program_emit(p, PL_TFLM_HEAD, a->scratch_request.size * PL_TFLM_MAX_SCRATCH_PER_OP,
                         a->scratch_request.align, PL_TFLM_CAT_NONE, 0);
    tail(p, a->subgraph.size * it->subgraph_count, a->subgraph, PL_TFLM_CAT_NONE, 1);
    for (uint32_t k = 0; k < it->subgraph_count; k++) {
        uint32_t n = tensor_count(it, k);
        tail(p, a->eval_tensor.size * n, a->eval_tensor, PL_CAT_EVAL_TENSOR, n);
    }
    for (uint32_t k = 0; k < it->subgraph_count; k++) {
        uint32_t n = operator_count(it, k);
        tail(p, a->node.size * n, a->node, PL_CAT_NODE, n);
    }
}

static pl_status node_of(pl_tflm_program *p, uint32_t k, uint32_t i, pl_tflm_node *n,
                         const pl_tflm_kernel **kernel)
{
    pl_opcode_view oc;
    memset(n, 0, sizeof *n);
    n->p = p;
    n->model = &p->it->model;
    n->subgraph = k;
    n->index = i;
    pl_model_subgraph(n->model, k, &n->sg);
    pl_model_operator(n->model, &n->sg, i, &n->op);
    pl_model_opcode(n->model, n->op.opcode_index, &oc);
    n->builtin = oc.builtin_code;
    n->custom = oc.custom_code;
    n->version = oc.version;
    p->subgraph = (int32_t)k;
    p->node = (int32_t)i;
    *kernel = pl_tflm_kernel_find(p, oc.builtin_code, oc.custom_code);
    if (*kernel != NULL)
        return PL_OK;
    if (oc.builtin_code == PL_BUILTIN_CUSTOM)
        return pl_error_set(p->err, PL_ERR_UNSUPPORTED, "TFLM registers no custom operator "
                            "'%.*s' (subgraph %u node %u): a TFLM firmware cannot run this "
                            "model (target 'picolite' sizes picolite's own arena)",
                            (int)oc.custom_code.n, (const char *)oc.custom_code.p,
                            (unsigned)k, (unsigned)i);
    return pl_error_set(p->err, PL_ERR_UNSUPPORTED, "TFLM has no kernel for %s (subgraph %u "
                        "node %u): a TFLM firmware cannot run this model (target 'picolite' "
                        "sizes picolite's own arena)", pl_model_builtin_name(oc.builtin_code),
                        (unsigned)k, (unsigned)i);
}

static pl_status refused(pl_tflm_program *p, const pl_tflm_node *n)
{
    const char *name = pl_model_builtin_name(n->builtin);
    int len = (int)strlen(name);
    if (n->builtin == PL_BUILTIN_CUSTOM) {
        name = (const char *)n->custom.p;
        len = (int)n->custom.n;
    }
    return pl_error_set(p->err, PL_ERR_UNSUPPORTED, "TFLM's %.*s kernel fails on this model "
                        "(subgraph %u node %u: %s): a TFLM firmware cannot run it (target "
                        "'picolite' sizes picolite's own arena)", len, name,
                        (unsigned)n->subgraph, (unsigned)n->index, p->refusal);
}

/* The three passes over every operator: builtin data, init, prepare. */
static pl_status operators(pl_tflm_program *p, int pass)
{
    const pl_tflm_abi *a = p->abi;
    uint32_t requests = 0;
    for (uint32_t k = 0; k < p->it->subgraph_count; k++) {
        for (uint32_t i = 0, count = operator_count(p->it, k); i < count; i++) {
            pl_tflm_node n;
            const pl_tflm_kernel *kernel;
            PL_TRY(node_of(p, k, i, &n, &kernel));
            pl_tflm_rec params = kernel->params[a->wheel ? 1 : 0];
            if (pass == 0 && params.size > 0)
                tail(p, params.size, params, PL_TFLM_CAT_NONE, 1);
            if (pass == 1 && kernel->init != NULL)
                kernel->init(&n);
            if (pass != 2)
                continue;
            pl_tflm_accept(&n);
            if (p->refused)
                return refused(p, &n);
            if (kernel->prepare != NULL)
                kernel->prepare(&n);
            requests = p->request_count;
            pl_tflm_program_emit(p, PL_TFLM_NODE_DONE,
                                 a->scratch_request.size * (requests + PL_TFLM_MAX_SCRATCH_PER_OP),
                                 a->scratch_request.align, PL_TFLM_CAT_NONE, 0);
        }
    }
    p->subgraph = p->node = -1;
    return PL_OK;
}

/* An offline plan's offset for a tensor (global index), or -1 (none). */
static int32_t offline_offset(const pl_interp *it, uint32_t global)
{
    pl_bytes b = pl_model_metadata_find(&it->model, "OfflineMemoryAllocation");
    if (b.n < 12 || (uint64_t)global * 4u + 16u > b.n)
        return -1;
    return (int32_t)pl_le32(b.p + 12 + 4u * global);
}

/* AllocateVariables: every variable tensor an offline plan does not place. */
static void variables(pl_tflm_program *p)
{
    const pl_interp *it = p->it;
    pl_tflm_rec r = {0, PL_TFLM_ALIGN};
    uint32_t global = 0;
    for (uint32_t k = 0; k < it->subgraph_count; k++) {
        pl_tflm_node n;
        memset(&n, 0, sizeof n);
        n.p = p;
        n.model = &it->model;
        n.subgraph = k;
        pl_model_subgraph(n.model, k, &n.sg);
        for (uint32_t i = 0; i < n.sg.tensors.n; i++, global++) {
            pl_tflm_tensor t;
            pl_tflm_tensor_of(&n, (int32_t)i, &t);
            if (t.variable && offline_offset(it, global) == -1)
                tail(p, (uint32_t)t.bytes, r, PL_CAT_VARIABLE, 1);
        }
    }
}

static uint32_t all_tensors(const pl_interp *it)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < it->subgraph_count; k++)
        n += tensor_count(it, k);
    return n;
}

/* FinishModelAllocation and CommitStaticMemoryPlan. */
static void finish(pl_tflm_program *p)
{
    const pl_tflm_abi *a = p->abi;
    uint32_t requests = p->request_count;
    if (requests > 0)
        tail(p, a->scratch_handle.size * requests, a->scratch_handle, PL_TFLM_CAT_NONE, 1);
    uint32_t offsets = a->word * p->it->subgraph_count;
    uint32_t info = a->alloc_info.size * (all_tensors(p->it) + requests);
    pl_tflm_program_temp(p, offsets, a->word, offsets);
    pl_tflm_program_temp(p, info, a->alloc_info.align, info);
    variables(p);
    p->planned_events = p->event_count;
    pl_tflm_program_emit(p, PL_TFLM_PLAN, 0, PL_TFLM_ALIGN, PL_TFLM_CAT_NONE, 0);
    pl_tflm_program_emit(p, PL_TFLM_FREE, 0, 0, PL_TFLM_CAT_NONE, 3);
    pl_tflm_program_emit(p, PL_TFLM_RESET, 0, 0, PL_TFLM_CAT_NONE, 0);
    pl_tflm_program_emit(p, PL_TFLM_HEAD, 0, 1, PL_TFLM_CAT_NONE, 0);
    pl_tflm_program_emit(p, PL_TFLM_HEAD, 0, PL_TFLM_ALIGN, PL_TFLM_CAT_NONE, 0);
}

/* MicroAllocator::AllocatePersistentTfLiteTensor for the interpreter's inputs or outputs. */
static void io_tensors(pl_tflm_program *p, pl_vec list)
{
    const pl_tflm_abi *a = p->abi;
    pl_tflm_rec r = {0, PL_TFLM_ALIGN};
    pl_tflm_node n;
    memset(&n, 0, sizeof n);
    n.p = p;
    n.model = &p->it->model;
    pl_model_subgraph(n.model, 0, &n.sg);
    tail(p, a->word * list.n, r, PL_CAT_PERSISTENT_BUFFER, 1);
    for (uint32_t i = 0; i < list.n; i++) {
        pl_tflm_tensor t;
        pl_tflm_tensor_of(&n, pl_vec_i32(list, i), &t);
        tail(p, a->tensor.size, a->tensor, PL_CAT_TENSOR, 1);
        if (t.channels == 0)
            continue;
        tail(p, a->quant.size, a->quant, PL_CAT_TENSOR_QUANT, 1);
        pl_tflm_rec ints = {0, 4};
        tail(p, 4u + 4u * t.channels, ints, PL_CAT_TENSOR_QUANT, 1);
    }
}

pl_status pl_tflm_program_build(pl_tflm_program *p)
{
    pl_subgraph sg0;
    p->event_count = 0;
    p->request_count = 0;
    p->subgraph = p->node = -1;
    p->refused = false;
    allocator_objects(p);
    start(p);
    PL_TRY(operators(p, 0));
    PL_TRY(operators(p, 1));
    PL_TRY(operators(p, 2));
    finish(p);
    pl_model_subgraph(&p->it->model, 0, &sg0);
    io_tensors(p, sg0.inputs);
    io_tensors(p, sg0.outputs);
    return PL_OK;
}
