/* allocation_info.c - TFLM's AllocationInfo, its lifetimes (AllocationInfoBuilder) and the
** greedy plan.
**
** Scopes: subgraph 0's inputs are created and used at scope 0; each operator opens a scope
** where its outputs are created, then each subgraph it may invoke is walked from a scope of
** its own, then its inputs and outputs are used at the scope reached and its scratch
** requests live from the operator's scope to there; a subgraph's outputs are created and
** used at its last scope. Times are shifted by one for picolite's planner, which takes no
** negative time: TFLM's -1 (never reached) becomes 0, overlapping only its like. */
#include "tflm/allocation_info.h"

#include <string.h>

#include "memory/planners.h"
#include "runtime/state.h"
#include "tflm/kernels.h"
#include "tflm/ops.h"

typedef struct walk {
    const pl_tflm_program *p;
    int32_t *first;  /* every tensor (global index), then every request */
    int32_t *last;
    uint32_t *base;  /* each subgraph's first global tensor index */
    uint32_t all;    /* tensors of all subgraphs: where requests start */
    int32_t scope;
    uint32_t depth;
    pl_error *err;
} walk;

static void mark(walk *w, uint32_t slot, bool create, bool use)
{
    if (create && w->first[slot] == -1)
        w->first[slot] = w->scope;
    if (use)
        w->last[slot] = w->scope;
}

static void mark_list(walk *w, pl_vec list, uint32_t base, bool create, bool use)
{
    for (uint32_t i = 0; i < list.n; i++) {
        int32_t t = pl_vec_i32(list, i);
        if (t >= 0)
            mark(w, base + (uint32_t)t, create, use);
    }
}

static void mark_requests(walk *w, uint32_t k, uint32_t node, int32_t start)
{
    for (uint32_t r = 0; r < w->p->request_count; r++) {
        const pl_tflm_request *q = &w->p->requests[r];
        if (q->node != (int32_t)node || q->subgraph != (int32_t)k)
            continue;
        if (w->first[w->all + r] == -1)
            w->first[w->all + r] = start;
        w->last[w->all + r] = w->scope;
    }
}

static pl_status walk_subgraph(walk *w, uint32_t k);

static pl_status walk_node(walk *w, const pl_subgraph *sg, uint32_t k, uint32_t i)
{
    pl_op_view op;
    int32_t callee[2];
    uint32_t callees;
    uint32_t base = w->base[k];
    w->scope++;
    pl_model_operator(&w->p->it->model, sg, i, &op);
    mark_list(w, op.outputs, base, true, false);
    int32_t start = w->scope;
    pl_subgraph_callees(&w->p->it->model, sg, i, callee, &callees);
    for (uint32_t c = 0; c < callees; c++) {
        w->scope++;
        PL_TRY(walk_subgraph(w, (uint32_t)callee[c]));
    }
    mark_list(w, op.inputs, base, false, true);
    mark_list(w, op.outputs, base, false, true);
    mark_requests(w, k, i, start);
    return PL_OK;
}

static pl_status walk_subgraph(walk *w, uint32_t k)
{
    pl_subgraph sg;
    if (w->depth >= PL_MAX_SUBGRAPH_DEPTH)
        return pl_error_set(w->err, PL_ERR_UNSUPPORTED, "TFLM arena: control flow nested "
                            "deeper than %d subgraphs", PL_MAX_SUBGRAPH_DEPTH);
    pl_model_subgraph(&w->p->it->model, k, &sg);
    w->depth++;
    mark_list(w, sg.inputs, w->base[k], true, true);
    for (uint32_t i = 0; i < sg.operators.n; i++)
        PL_TRY(walk_node(w, &sg, k, i));
    mark_list(w, sg.outputs, w->base[k], true, true);
    w->depth--;
    return PL_OK;
}

static uint32_t all_tensors(const pl_interp *it)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < it->subgraph_count; k++) {
        pl_subgraph sg;
        pl_model_subgraph(&it->model, k, &sg);
        n += sg.tensors.n;
    }
    return n;
}

size_t pl_tflm_plan_scratch_size(const pl_tflm_program *p)
{
    size_t slots = (size_t)all_tensors(p->it) + p->request_count;
    size_t planner = pl_plan_scratch_size(PL_PLANNER_GREEDY, (uint32_t)slots);
    return 2 * slots * sizeof(int32_t) + p->it->subgraph_count * sizeof(uint32_t) +
           slots * sizeof(pl_plan_buffer) + planner + 32;
}

/* The offline plan's offsets (one per tensor of every subgraph), or an empty view. */
static pl_vec offline_offsets(const pl_interp *it)
{
    pl_bytes b = pl_model_metadata_find(&it->model, "OfflineMemoryAllocation");
    pl_vec v = {NULL, 0};
    if (b.n >= 12) {
        v.p = b.p + 12;
        v.n = (b.n - 12) / 4;
    }
    return v;
}

static void add(pl_plan_buffer *b, uint64_t bytes, int32_t first, int32_t last, int32_t fixed)
{
    b->size = (uint32_t)((bytes + PL_TFLM_ALIGN - 1) & ~(uint64_t)(PL_TFLM_ALIGN - 1));
    b->first = first + 1;
    b->last = last + 1 < first + 1 ? first + 1 : last + 1;
    b->offline_offset = fixed;
    b->flags = 0;
    b->offset = 0;
}

/* Whether tensor t of the node's subgraph is a VAR_HANDLE's output: its prepare points the
** eval tensor at the operator's op data, so TFLM does not plan it. */
static bool var_handle_output(const pl_tflm_node *n, int32_t t)
{
    for (uint32_t i = 0; i < n->sg.operators.n; i++) {
        pl_op_view op;
        pl_opcode_view oc;
        pl_model_operator(n->model, &n->sg, i, &op);
        pl_model_opcode(n->model, op.opcode_index, &oc);
        if (oc.builtin_code == OP_VAR_HANDLE && op.outputs.n > 0 && pl_vec_i32(op.outputs, 0) == t)
            return true;
    }
    return false;
}

/* InitializeAllocationInfo's needs_allocating, in TFLM's order. */
static uint32_t collect(const pl_tflm_program *p, const walk *w, pl_plan_buffer *bufs)
{
    pl_vec offline = offline_offsets(p->it);
    uint32_t n = 0;
    for (uint32_t k = 0; k < p->it->subgraph_count; k++) {
        pl_tflm_node node;
        memset(&node, 0, sizeof node);
        node.p = (pl_tflm_program *)p;
        node.model = &p->it->model;
        node.subgraph = k;
        pl_model_subgraph(node.model, k, &node.sg);
        for (uint32_t i = 0; i < node.sg.tensors.n; i++) {
            pl_tflm_tensor t;
            uint32_t g = w->base[k] + i;
            int32_t fixed = g < offline.n ? pl_vec_i32(offline, g) : -1;
            pl_tflm_tensor_of(&node, (int32_t)i, &t);
            bool needs = t.data == NULL && !t.variable && t.bytes != 0 &&
                         !(t.type == PL_RESOURCE && var_handle_output(&node, (int32_t)i));
            if (t.variable && fixed != -1)
                needs = true;
            if (needs)
                add(&bufs[n++], t.bytes, w->first[g], w->last[g], fixed < 0 ? -1 : fixed);
        }
    }
    for (uint32_t r = 0; r < p->request_count; r++)
        add(&bufs[n++], p->requests[r].bytes, w->first[w->all + r], w->last[w->all + r], -1);
    return n;
}

static void summarize(const pl_plan_buffer *bufs, uint32_t n, uint32_t requests,
                      pl_tflm_plan *out)
{
    out->buffers = n;
    out->head_tensors = out->scratch_bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t end = bufs[i].offset + bufs[i].size;
        if (i + requests < n)
            out->head_tensors = end > out->head_tensors ? end : out->head_tensors;
        else
            out->scratch_bytes += bufs[i].size;
    }
    out->lower_bound = pl_plan_lower_bound(bufs, n);
}

pl_status pl_tflm_plan_run(const pl_tflm_program *p, void *scratch, size_t scratch_size,
                           pl_tflm_plan *out, pl_error *err)
{
    uint32_t all = all_tensors(p->it);
    uint32_t slots = all + p->request_count;
    uint8_t *s = (uint8_t *)(((uintptr_t)scratch + 7) & ~(uintptr_t)7);
    if (scratch_size < pl_tflm_plan_scratch_size(p))
        return pl_error_set(err, PL_ERR_ARG, "TFLM arena: plan scratch too small");
    walk w = {p, (int32_t *)(void *)s, (int32_t *)(void *)s + slots, NULL, all, 0, 0, err};
    w.base = (uint32_t *)(void *)(w.last + slots);
    pl_plan_buffer *bufs = (pl_plan_buffer *)(((uintptr_t)(w.base + p->it->subgraph_count) + 7) &
                                              ~(uintptr_t)7);
    uint8_t *rest = (uint8_t *)(bufs + slots);
    for (uint32_t i = 0; i < slots; i++)
        w.first[i] = w.last[i] = -1;
    for (uint32_t k = 0, b = 0; k < p->it->subgraph_count; k++) {
        pl_subgraph sg;
        pl_model_subgraph(&p->it->model, k, &sg);
        w.base[k] = b;
        b += sg.tensors.n;
    }
    PL_TRY(walk_subgraph(&w, 0));
    uint32_t n = collect(p, &w, bufs);
    uint32_t head = 0;
    size_t need = pl_plan_scratch_size(PL_PLANNER_GREEDY, n);
    PL_TRY(pl_plan_compute(PL_PLANNER_GREEDY, bufs, n, rest,
                           scratch_size - (size_t)(rest - (uint8_t *)scratch) < need
                               ? 0 : need, &head, err));
    out->head = head;
    summarize(bufs, n, p->request_count, out);
    return PL_OK;
}
