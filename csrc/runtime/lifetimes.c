/* lifetimes.c - buffer lifetimes on TFLM's "allocation scope" clock, over every subgraph.
**
** TFLM's AllocationInfoBuilder::MarkAllocationLifetimes: a subgraph's inputs are created
** and used at the scope it starts in; each node opens a new scope, where its outputs are
** created; a control-flow node (IF, WHILE, CALL_ONCE) then walks each subgraph it may
** invoke, each in a scope of its own, before its inputs and outputs are marked used, so a
** node's tensors live across everything its subgraphs do. Scratch buffers live from their
** node's scope to the end of its subgraphs. A subgraph's outputs are used at its last scope.
** A subgraph reached twice (WHILE's cond, a shared branch) keeps its first creation and
** its latest use. For one subgraph this is: inputs at 0, node i at i + 1. */
#include "state.h"

/* Node visits the walk may make: a model whose subgraphs call each other in a deep tree
** would otherwise take exponential time to plan. */
#define MAX_SCOPES (1 << 24)
#define ALL UINT32_MAX

typedef struct walk {
    const pl_interp *it;
    int32_t *first;
    int32_t *last;
    uint32_t target;  /* the one index recomputed, or ALL: every index, slot = index */
    uint8_t *on_path; /* per subgraph; NULL when recomputing an allocated model */
    pl_error *err;
    int32_t scope;
    uint32_t depth;
    bool from_zero; /* walking from subgraph 0: what it reaches gets the reached flag */
} walk;

static void mark(walk *w, uint32_t index, bool create, bool use)
{
    uint32_t slot = index;
    if (w->target != ALL) {
        if (index != w->target)
            return;
        slot = 0;
    }
    if (create && w->first[slot] < 0)
        w->first[slot] = w->scope;
    if (use)
        w->last[slot] = w->scope;
}

static void mark_list(walk *w, pl_vec tensors, uint32_t base, bool create, bool use)
{
    for (uint32_t k = 0; k < tensors.n; k++) {
        int32_t t = pl_vec_i32(tensors, k);
        if (t >= 0)
            mark(w, base + (uint32_t)t, create, use);
    }
}

/* Scratch requests carry their node's global index: a resized model prepares a subgraph
** that control flow invokes in the middle of its caller's, so requests of one subgraph need
** not be contiguous. */
static void mark_scratch(walk *w, uint32_t sg, uint32_t node, int32_t start)
{
    const pl_interp *it = w->it;
    int32_t global = (int32_t)(pl_subgraph_rec(it, sg).node_base + node);
    for (uint32_t s = 0; s < it->scratch_count; s++) {
        if (it->scratch[s].node != global)
            continue;
        int32_t now = w->scope;
        w->scope = start;
        mark(w, it->all_tensors + s, true, false);
        w->scope = now;
        mark(w, it->all_tensors + s, false, true);
    }
}

static pl_status walk_subgraph(walk *w, uint32_t k);

static pl_status walk_callees(walk *w, const pl_subgraph *sg, uint32_t k, uint32_t n)
{
#ifdef PL_SINGLE_SUBGRAPH
    (void)w, (void)sg, (void)k, (void)n;
    return PL_OK; /* one subgraph (pl_alloc_start): nothing for control flow to invoke */
#endif
    int32_t callee[2];
    uint32_t count;
    pl_subgraph_callees(&w->it->model, sg, n, callee, &count);
    for (uint32_t c = 0; c < count; c++) {
        uint32_t target = (uint32_t)callee[c]; /* verified in range */
        if (w->on_path != NULL && w->on_path[target])
            return pl_error_set(w->err, PL_ERR_MODEL, "subgraph %u node %u: control flow "
                                "invokes subgraph %u, which is already running (recursion)",
                                (unsigned)k, (unsigned)n, (unsigned)target);
        w->scope++;
        PL_TRY(walk_subgraph(w, target));
    }
    return PL_OK;
}

static pl_status walk_node(walk *w, const pl_subgraph *sg, uint32_t k, uint32_t n)
{
    pl_op_view op;
    uint32_t base = pl_subgraph_rec(w->it, k).tensor_base;
    if (++w->scope >= MAX_SCOPES)
        return pl_error_set(w->err, PL_ERR_MODEL, "control flow: planning visits more than "
                            "%d nodes", MAX_SCOPES);
    pl_model_operator(&w->it->model, sg, n, &op);
    mark_list(w, op.outputs, base, true, false);
    int32_t start = w->scope;
    PL_TRY(walk_callees(w, sg, k, n));
    mark_list(w, op.inputs, base, false, true);
    mark_list(w, op.outputs, base, false, true);
    mark_scratch(w, k, n, start);
    return PL_OK;
}

static pl_status walk_subgraph(walk *w, uint32_t k)
{
    pl_subgraph sg;
    uint32_t base = pl_subgraph_rec(w->it, k).tensor_base;
    if (w->depth >= PL_MAX_SUBGRAPH_DEPTH)
        return pl_error_set(w->err, PL_ERR_MODEL, "subgraph %u: control flow nested deeper "
                            "than %d subgraphs", (unsigned)k, PL_MAX_SUBGRAPH_DEPTH);
    pl_model_subgraph(&w->it->model, k, &sg);
    if (w->on_path != NULL) {
        w->on_path[k] = 1;
        if (w->it->subgraphs != NULL && w->from_zero)
            w->it->subgraphs[k].reached = 1;
    }
    w->depth++;
    mark_list(w, sg.inputs, base, true, true);
    for (uint32_t n = 0; n < sg.operators.n; n++)
        PL_TRY(walk_node(w, &sg, k, n));
    mark_list(w, sg.outputs, base, true, true);
    w->depth--;
    if (w->on_path != NULL)
        w->on_path[k] = 0;
    return PL_OK;
}

/* Subgraph 0 from scope 0, then each subgraph it never reaches from a scope of its own.
** Only the walk from 0 sets reached flags, so a recomputation (pl_life_of, with the flags
** final) makes the same choices as the marking did. */
static pl_status walk_all(walk *w)
{
    w->from_zero = true;
    PL_TRY(walk_subgraph(w, 0));
    w->from_zero = false;
    for (uint32_t k = 1; k < w->it->subgraph_count; k++) {
        if (pl_subgraph_rec(w->it, k).reached)
            continue;
        w->scope++;
        PL_TRY(walk_subgraph(w, k));
    }
    return PL_OK;
}

/* With every tensor preserved, whatever is created lives to the end. */
static void preserve(walk *w, uint32_t slots)
{
    for (uint32_t i = 0; i < slots; i++)
        if (w->first[i] >= 0)
            w->last[i] = w->scope;
}

pl_status pl_life_mark(pl_interp *it, int32_t *first, int32_t *last, uint8_t *on_path)
{
    walk w = {it, first, last, ALL, on_path, it->err, 0, 0, false};
    uint32_t slots = it->all_tensors + it->scratch_count;
    for (uint32_t i = 0; i < slots; i++)
        first[i] = last[i] = -1;
    for (uint32_t k = 0; k < it->subgraph_count; k++) {
        on_path[k] = 0;
        if (it->subgraphs != NULL)
            it->subgraphs[k].reached = 0;
    }
    /* reached flags are set as the walk goes, so walk_all's check sees them */
    PL_TRY(walk_all(&w));
    if (it->preserve_all_tensors)
        preserve(&w, it->all_tensors);
    return PL_OK;
}

void pl_life_of(const pl_interp *it, uint32_t global, int32_t *first, int32_t *last)
{
    pl_error ignored;
    walk w = {it, first, last, global, NULL, &ignored, 0, 0, false};
    *first = *last = -1;
    walk_all(&w); /* an allocated model walked without error once */
    if (it->preserve_all_tensors && global < it->all_tensors)
        preserve(&w, 1);
}
