/* allocator.c - the model allocation phases: start, per-node finish, plan, finish.
**
** The lifetimes given to the planner follow TFLM's AllocationInfoBuilder: time 0 is "before
** the first node", node i runs at time i + 1; subgraph inputs and outputs are created at 0,
** outputs live to the last time, scratch buffers live during their node. Sizes are rounded
** up to 16 as TFLM does, so the same buffer list goes to the planner. */
#include "state.h"

#include <string.h>

#define OFFLINE_METADATA "OfflineMemoryAllocation"

static size_t align_up(size_t n, size_t a)
{
    return (n + a - 1) & ~(a - 1);
}

pl_status pl_alloc_tail(pl_interp *it, pl_category cat, size_t bytes, size_t align,
                        void **out)
{
    size_t before = pl_arena_tail_size(it->arena);
    PL_TRY(pl_arena_alloc_tail(it->arena, bytes, align, out, it->err));
    uint32_t *c = it->rec.cat[cat];
    c[0] += (uint32_t)(pl_arena_tail_size(it->arena) - before);
    c[1] += (uint32_t)bytes;
    c[2]++;
    return PL_OK;
}

size_t pl_alloc_tensor_bytes(const pl_interp *it, uint32_t index)
{
    if (it->tensors != NULL) { /* the current shape, which a resize may have changed */
        pl_tensor t;
        pl_context_eval(it, (int32_t)index, &t);
        return t.bytes > UINT32_MAX ? 0 : t.bytes;
    }
    pl_tensor_view v;
    pl_model_tensor(&it->model, &it->sg, index, &v);
    uint64_t n = pl_type_size(v.type);
    for (uint32_t i = 0; i < v.shape.n; i++)
        n *= (uint64_t)pl_vec_i32(v.shape, i); /* the verifier bounded the product */
    return n > UINT32_MAX ? 0 : (size_t)n;
}

static bool in_vec(pl_vec v, int32_t t)
{
    for (uint32_t k = 0; k < v.n; k++)
        if (pl_vec_i32(v, k) == t)
            return true;
    return false;
}

bool pl_alloc_is_io(const pl_interp *it, int32_t t)
{
    return in_vec(it->sg.inputs, t) || in_vec(it->sg.outputs, t);
}

static void start_tensor(pl_interp *it, uint32_t i)
{
    pl_tensor_view v;
    pl_buffer_view b;
    pl_eval_record *r = &it->tensors[i];
    pl_model_tensor(&it->model, &it->sg, i, &v);
    pl_model_buffer(&it->model, v.buffer, &b);
    memset(r, 0, sizeof *r);
    r->type = (uint8_t)v.type;
    r->ndims = (uint8_t)v.shape.n;
    r->shape = v.shape.n > 0 ? (uint32_t)(v.shape.p - it->model.buf) : 0;
    r->data = PL_NO_OFFSET;
    if (v.is_variable)
        r->flags |= PL_EVAL_VARIABLE;
    if (b.data.n > 0 && !v.is_variable) {
        r->loc = PL_LOC_MODEL;
        r->data = (uint32_t)(b.data.p - it->model.buf);
        r->flags |= PL_EVAL_CONSTANT;
    }
}

pl_status pl_alloc_start(pl_interp *it)
{
    size_t tbytes = (size_t)it->tensor_count * sizeof *it->tensors;
    size_t nbytes = (size_t)it->node_count * sizeof *it->nodes;
    size_t rbytes = (size_t)it->opcode_count * sizeof *it->regs;
    PL_TRY(pl_alloc_tail(it, PL_CAT_EVAL_TENSOR, tbytes, _Alignof(pl_eval_record),
                         (void **)&it->tensors));
    PL_TRY(pl_alloc_tail(it, PL_CAT_NODE, nbytes, _Alignof(pl_node_record),
                         (void **)&it->nodes));
    PL_TRY(pl_alloc_tail(it, PL_CAT_NODE, rbytes, _Alignof(const pl_registration *),
                         (void **)&it->regs));
    /* counted per tensor and per node, as TFLM counts them */
    it->rec.cat[PL_CAT_EVAL_TENSOR][2] = it->tensor_count;
    it->rec.cat[PL_CAT_NODE][2] = it->node_count;
    for (uint32_t i = 0; i < it->tensor_count; i++)
        start_tensor(it, i);
    pl_shapes_apply_requests(it);
    for (uint32_t i = 0; i < it->opcode_count; i++)
        it->regs[i] = NULL;
    for (uint32_t i = 0; i < it->node_count; i++) {
        pl_op_view op;
        pl_model_operator(&it->model, &it->sg, i, &op);
        it->nodes[i].opcode = (uint16_t)op.opcode_index;
        it->nodes[i].op_data = PL_NO_OFFSET;
        it->nodes[i].reserved = 0;
    }
    return PL_OK;
}

/* The node's scratch requests join the earlier ones at the bottom of the head, where they
** stay until finish moves them to the tail (TFLM keeps them in the head the same way). */
pl_status pl_alloc_finish_node(pl_interp *it)
{
    pl_scratch_record moved[PL_MAX_SCRATCH_PER_NODE]; /* temp is about to be released */
    uint32_t n = it->pending_count;
    if (n > 0)
        memcpy(moved, it->pending, n * sizeof *moved);
    pl_arena_reset_temp(it->arena);
    it->pending = NULL;
    it->pending_count = 0;
    if (n == 0)
        return PL_OK;
    uint32_t total = it->scratch_count + n;
    PL_TRY(pl_arena_resize_head(it->arena, total * sizeof(pl_scratch_record), it->err));
    it->scratch = (pl_scratch_record *)(void *)pl_arena_base(it->arena);
    memcpy(&it->scratch[it->scratch_count], moved, n * sizeof *moved);
    it->scratch_count = total;
    return PL_OK;
}

static bool needs_planning(const pl_interp *it, uint32_t i, const int32_t *first)
{
    const pl_eval_record *r = &it->tensors[i];
    return r->loc == PL_LOC_NONE && !(r->flags & PL_EVAL_VARIABLE) && first[i] >= 0 &&
           pl_alloc_tensor_bytes(it, i) > 0;
}

/* TFLM's lifetime marking for one tensor of subgraph 0 (see the file comment);
** first stays -1 for a tensor no node and no subgraph input/output touches. */
static void lifetime_of(const pl_interp *it, int32_t t, int32_t *first, int32_t *last)
{
    int32_t f = -1, l = -1, end = (int32_t)it->node_count;
    bool output = in_vec(it->sg.outputs, t);
    if (output || in_vec(it->sg.inputs, t))
        f = l = 0;
    for (uint32_t n = 0; n < it->node_count; n++) {
        pl_op_view op;
        pl_model_operator(&it->model, &it->sg, n, &op);
        for (uint32_t k = 0; k < op.outputs.n; k++)
            if (pl_vec_i32(op.outputs, k) == t)
                f = l = (int32_t)n + 1;
        for (uint32_t k = 0; k < op.inputs.n; k++)
            if (pl_vec_i32(op.inputs, k) == t)
                l = (int32_t)n + 1;
    }
    if (f >= 0 && (output || it->opt.preserve_all_tensors))
        l = end;
    *first = f;
    *last = l;
}

/* A tensor a node reads must get data from somewhere: a constant, a variable, a subgraph
** input or an earlier node's output. Otherwise it would reach the kernel without data. */
static pl_status mark_lifetimes(pl_interp *it, int32_t *first, int32_t *last)
{
    for (uint32_t i = 0; i < it->tensor_count; i++) {
        lifetime_of(it, (int32_t)i, &first[i], &last[i]);
        if (first[i] < 0 && last[i] >= 0 && it->tensors[i].loc == PL_LOC_NONE &&
            !(it->tensors[i].flags & PL_EVAL_VARIABLE) && pl_alloc_tensor_bytes(it, i) > 0)
            return pl_error_set(it->err, PL_ERR_MODEL,
                                "tensor %u is read by node %d but is not a constant, a "
                                "variable, a subgraph input or any node's output",
                                (unsigned)i, last[i] - 1);
    }
    return PL_OK;
}

/* Offline offsets from the model's metadata, or an empty view when it has none. An offline
** plan shares memory between tensors, so preserve-all-tensors (every tensor kept) skips it. */
static pl_status offline_offsets(const pl_interp *it, pl_vec *out, pl_error *err)
{
    pl_bytes b = pl_model_metadata_find(&it->model, OFFLINE_METADATA);
    out->p = NULL;
    out->n = 0;
    if (b.n == 0 || it->opt.preserve_all_tensors)
        return PL_OK;
    if (b.n < 12 || b.n % 4 != 0)
        return pl_error_set(err, PL_ERR_MODEL,
                            "metadata %s: %u bytes, expected 3 + n int32 values",
                            OFFLINE_METADATA, (unsigned)b.n);
    uint32_t n = pl_le32(b.p + 8);
    if ((uint64_t)n * 4u + 12u != b.n || n < it->tensor_count)
        return pl_error_set(err, PL_ERR_MODEL,
                            "metadata %s: %u offsets in %u bytes for %u tensors",
                            OFFLINE_METADATA, (unsigned)n, (unsigned)b.n,
                            (unsigned)it->tensor_count);
    out->p = b.p + 12;
    out->n = it->tensor_count; /* subgraph 0's tensors come first */
    return PL_OK;
}

typedef struct plan_work {
    int32_t *first;
    int32_t *last;
    pl_plan_buffer *bufs;
    uint32_t count;
} plan_work;

static void collect_buffers(pl_interp *it, plan_work *w, pl_vec offline)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < it->tensor_count; i++) {
        if (!needs_planning(it, i, w->first))
            continue;
        pl_plan_buffer *b = &w->bufs[n++];
        int32_t fixed = offline.n > 0 ? pl_vec_i32(offline, i) : -1;
        b->size = (uint32_t)align_up(pl_alloc_tensor_bytes(it, i), PL_ARENA_ALIGN);
        b->first = w->first[i];
        b->last = w->last[i];
        b->offline_offset = fixed < 0 ? -1 : fixed;
        b->flags = pl_alloc_is_io(it, (int32_t)i) ? PL_PLAN_IO : 0;
        b->offset = 0;
    }
    for (uint32_t s = 0; s < it->scratch_count; s++) {
        pl_plan_buffer *b = &w->bufs[n++];
        b->size = (uint32_t)align_up(it->scratch[s].bytes, PL_ARENA_ALIGN);
        b->first = b->last = it->scratch[s].node + 1;
        b->offline_offset = -1;
        b->flags = 0;
        b->offset = 0;
    }
    w->count = n;
}

static void commit_offsets(pl_interp *it, const plan_work *w)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < it->tensor_count; i++) {
        if (!needs_planning(it, i, w->first))
            continue;
        it->tensors[i].loc = PL_LOC_ARENA;
        it->tensors[i].data = w->bufs[n++].offset;
        it->tensors[i].flags |= PL_EVAL_PLANNED;
    }
    for (uint32_t s = 0; s < it->scratch_count; s++)
        it->scratch[s].offset = w->bufs[n++].offset;
}

static pl_status temp(pl_interp *it, size_t bytes, size_t align, void **out)
{
    return pl_arena_alloc_temp(it->arena, bytes == 0 ? 1 : bytes, align, out, it->err);
}

/* Plans the head in temp and returns its size; offsets land in the records. */
static pl_status plan(pl_interp *it, uint32_t *head)
{
    plan_work w;
    pl_vec offline;
    size_t tcount = it->tensor_count;
    pl_planner planner = it->opt.preserve_all_tensors ? PL_PLANNER_LINEAR : it->opt.planner;
    PL_TRY(offline_offsets(it, &offline, it->err));
    PL_TRY(temp(it, tcount * sizeof(int32_t), _Alignof(int32_t), (void **)&w.first));
    PL_TRY(temp(it, tcount * sizeof(int32_t), _Alignof(int32_t), (void **)&w.last));
    PL_TRY(mark_lifetimes(it, w.first, w.last));
    PL_TRY(temp(it, (tcount + it->scratch_count) * sizeof(pl_plan_buffer),
                _Alignof(pl_plan_buffer), (void **)&w.bufs));
    collect_buffers(it, &w, offline);
    size_t need = pl_plan_scratch_size(planner, w.count);
    void *scratch;
    PL_TRY(temp(it, need, PL_ARENA_ALIGN, &scratch));
    PL_TRY(pl_plan_compute(planner, w.bufs, w.count, scratch, need, head, it->err));
    it->rec.lower_bound = (uint32_t)pl_plan_lower_bound(w.bufs, w.count);
    it->rec.planner = (uint8_t)planner;
    it->plan_count = w.count;
    it->rec.head_tensors = 0;
    it->rec.head_scratch = 0;
    for (uint32_t i = 0; i < w.count; i++) {
        if (i < w.count - it->scratch_count) {
            uint32_t end = w.bufs[i].offset + w.bufs[i].size; /* <= the checked total */
            it->rec.head_tensors = end > it->rec.head_tensors ? end : it->rec.head_tensors;
        } else {
            it->rec.head_scratch += w.bufs[i].size;
        }
    }
    commit_offsets(it, &w);
    return PL_OK;
}

static pl_status move_scratch_to_tail(pl_interp *it)
{
    if (it->scratch_count == 0)
        return PL_OK;
    pl_scratch_record *tail;
    size_t bytes = it->scratch_count * sizeof *tail;
    PL_TRY(pl_alloc_tail(it, PL_CAT_PERSISTENT_BUFFER, bytes, _Alignof(pl_scratch_record),
                         (void **)&tail));
    memcpy(tail, it->scratch, bytes);
    it->scratch = tail;
    return PL_OK;
}

int pl_alloc_variable_fill(const pl_interp *it, uint32_t index)
{
    pl_tensor_view v;
    pl_model_tensor(&it->model, &it->sg, index, &v);
    if (v.type != PL_INT8 || v.zero_point.n == 0)
        return 0;
    return (int)(uint8_t)(int8_t)pl_vec_i64(v.zero_point, 0);
}

static pl_status allocate_variables(pl_interp *it)
{
    for (uint32_t i = 0; i < it->tensor_count; i++) {
        pl_eval_record *r = &it->tensors[i];
        if (!(r->flags & PL_EVAL_VARIABLE))
            continue;
        size_t bytes = pl_alloc_tensor_bytes(it, i);
        void *p;
        PL_TRY(pl_alloc_tail(it, PL_CAT_VARIABLE, bytes, PL_ARENA_ALIGN, &p));
        memset(p, pl_alloc_variable_fill(it, i), bytes);
        r->loc = PL_LOC_ARENA;
        r->data = pl_arena_offset(it->arena, p);
    }
    return PL_OK;
}

pl_status pl_alloc_finish(pl_interp *it)
{
    uint32_t head = 0;
    PL_TRY(move_scratch_to_tail(it));
    PL_TRY(plan(it, &head));
    pl_arena_reset_temp(it->arena);
    PL_TRY(pl_arena_resize_head(it->arena, head, it->err));
    PL_TRY(allocate_variables(it));
    return PL_OK;
}

int32_t pl_alloc_offline_offset(const pl_interp *it, uint32_t index)
{
    pl_vec offline;
    if (offline_offsets(it, &offline, NULL) != PL_OK || index >= offline.n)
        return -1;
    int32_t v = pl_vec_i32(offline, index);
    return v < 0 ? -1 : v;
}

bool pl_alloc_lifetime(const pl_interp *it, uint32_t index, int32_t *first, int32_t *last)
{
    if (!(it->tensors[index].flags & PL_EVAL_PLANNED))
        return false;
    lifetime_of(it, (int32_t)index, first, last);
    return true;
}
