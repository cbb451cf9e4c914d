/* allocator.c - the model allocation phases: start, per-node finish, plan, finish.
**
** The lifetimes given to the planner follow TFLM's AllocationInfoBuilder: time 0 is "before
** the first node", node i runs at time i + 1; subgraph inputs and outputs are created at 0,
** outputs live to the last time, scratch buffers live during their node. Sizes are rounded
** up to 16 as TFLM does, so the same buffer list goes to the planner. */
#include "state.h"

#include <stdarg.h>
#include <string.h>

#include "base/fmt.h"
#include "memory/planners.h"

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
    uint64_t n = 1;
    for (uint32_t i = 0; i < v.shape.n; i++)
        n *= (uint64_t)pl_vec_i32(v.shape, i); /* the verifier bounded the product */
    n = pl_type_bytes(v.type, n);
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

static void start_nodes(pl_interp *it)
{
    for (uint32_t i = 0; i < it->node_count; i++) {
        pl_op_view op;
        pl_model_operator(&it->model, &it->sg, i, &op);
        it->nodes[i].opcode = (uint16_t)op.opcode_index;
        it->nodes[i].op_data = PL_NO_OFFSET;
        it->nodes[i].reserved = 0;
    }
}

/* Where each subgraph's records start; the totals checked against 32 bits. */
static pl_status count_records(pl_interp *it)
{
    uint64_t tensors = 0, nodes = 0;
    for (uint32_t k = 0; k < it->subgraph_count; k++) {
        if (it->subgraphs != NULL)
            it->subgraphs[k] = (pl_subgraph_record){(uint32_t)tensors, (uint32_t)nodes, 0, 0};
        tensors += pl_subgraph_tensor_count(it, k);
        nodes += pl_subgraph_node_count(it, k);
    }
    if (tensors > UINT32_MAX / sizeof(pl_eval_record) || nodes > UINT32_MAX / 8u)
        return pl_error_set(it->err, PL_ERR_UNSUPPORTED, "model: %llu tensors and %llu "
                            "operators in all subgraphs", (unsigned long long)tensors,
                            (unsigned long long)nodes);
    it->all_tensors = (uint32_t)tensors;
    it->all_nodes = (uint32_t)nodes;
    return PL_OK;
}

/* Eval tensor and node records of every subgraph (TFLM allocates the same per subgraph),
** the per-subgraph records when there are several, the registration slots. */
pl_status pl_alloc_start(pl_interp *it)
{
#ifdef PL_SINGLE_SUBGRAPH
    if (it->subgraph_count > 1)
        return pl_error_set(it->err, PL_ERR_UNSUPPORTED, "the model has %u subgraphs: more than "
                            "one is not in this build (PL_SINGLE_SUBGRAPH)",
                            (unsigned)it->subgraph_count);
#endif
    if (it->subgraph_count > 1)
        PL_TRY(pl_alloc_tail(it, PL_CAT_NODE, it->subgraph_count * sizeof *it->subgraphs,
                             _Alignof(pl_subgraph_record), (void **)&it->subgraphs));
    PL_TRY(count_records(it));
    size_t tbytes = (size_t)it->all_tensors * sizeof *it->tensors;
    size_t nbytes = (size_t)it->all_nodes * sizeof *it->nodes;
    size_t rbytes = (size_t)it->opcode_count * sizeof *it->regs;
    PL_TRY(pl_alloc_tail(it, PL_CAT_EVAL_TENSOR, tbytes, _Alignof(pl_eval_record),
                         (void **)&it->tensor_records));
    PL_TRY(pl_alloc_tail(it, PL_CAT_NODE, nbytes, _Alignof(pl_node_record),
                         (void **)&it->node_records));
    PL_TRY(pl_alloc_tail(it, PL_CAT_NODE, rbytes, _Alignof(pl_reg_slot),
                         (void **)&it->regs));
    /* counted per tensor and per node, as TFLM counts them */
    it->rec.cat[PL_CAT_EVAL_TENSOR][2] = it->all_tensors;
    it->rec.cat[PL_CAT_NODE][2] = it->all_nodes;
    for (uint32_t i = 0; i < it->opcode_count; i++)
        it->regs[i].reg = NULL;
    for (uint32_t k = it->subgraph_count; k-- > 0;) {
        pl_subgraph_select(it, k);
        for (uint32_t i = 0; i < it->tensor_count; i++)
            start_tensor(it, i);
        start_nodes(it);
    }
    PL_TRY(pl_shapes_apply_requests(it)); /* subgraph 0's inputs: the loop ends on it */
    return pl_resource_start(it);
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

/* Tensors of the current subgraph the planner places: TFLM plans every non-constant,
** non-variable tensor with bytes; picolite leaves out those nothing creates or reads in the
** subgraphs it walks (TFLM gives them lifetime -1 and space of their own). */
static bool needs_planning(const pl_interp *it, uint32_t i, const int32_t *first)
{
    const pl_eval_record *r = &it->tensors[i];
    return r->loc == PL_LOC_NONE && !(r->flags & PL_EVAL_VARIABLE) && first[i] >= 0 &&
           pl_alloc_tensor_bytes(it, i) > 0;
}

/* A tensor a node reads must get data from somewhere: a constant, a variable, a subgraph
** input or an earlier node's output. Otherwise it would reach the kernel without data. */
static pl_status check_sources(pl_interp *it, const int32_t *first, const int32_t *last)
{
    for (uint32_t i = 0; i < it->tensor_count; i++) {
        if (first[i] < 0 && last[i] >= 0 && it->tensors[i].loc == PL_LOC_NONE &&
            !(it->tensors[i].flags & PL_EVAL_VARIABLE) && pl_alloc_tensor_bytes(it, i) > 0)
            return pl_error_set(it->err, PL_ERR_MODEL,
                                "subgraph %u: tensor %u is read by a node but is not a "
                                "constant, a variable, a subgraph input or any node's output",
                                (unsigned)it->current_subgraph, (unsigned)i);
    }
    return PL_OK;
}

/* Whether any tensor of any subgraph took a shape other than the model's (a resize, or the
** placeholder shapes a converter writes after a dynamic dim). */
static bool shapes_changed(const pl_interp *it)
{
    for (uint32_t i = 0; it->tensor_records != NULL && i < it->all_tensors; i++)
        if (it->tensor_records[i].flags & PL_EVAL_OWN_SHAPE)
            return true;
    return false;
}

/* An offline plan is file data, checked like the rest of the model; a device build without
** the verifier (PL_NO_VERIFIER) trusts the plan the host checked at export. */
#ifdef PL_NO_VERIFIER
#define CHECK_PLANS 0
#else
#define CHECK_PLANS 1
#endif

/* PL_ERR_MODEL naming the metadata and tensor g (global index), then why (printf-style). */
#ifdef PL_NO_MESSAGES
#define offline_fail(it, g, ...) \
    ((void)(g), (void)sizeof(pl_error_unused(__VA_ARGS__)), \
     pl_error_status_inline((it)->err, PL_ERR_MODEL))
#else
static pl_status offline_fail(const pl_interp *it, uint32_t g, const char *fmt, ...)
{
    char why[PL_ERROR_CAPACITY / 2];
    va_list ap;
    uint32_t k = 0;
    va_start(ap, fmt);
    pl_fmt_v(why, sizeof why, fmt, ap);
    va_end(ap);
    while (k + 1 < it->subgraph_count && pl_subgraph_rec(it, k + 1).tensor_base <= g)
        k++;
    return pl_error_set(it->err, PL_ERR_MODEL, "metadata %s: tensor %u of subgraph %u %s",
                        OFFLINE_METADATA, (unsigned)(g - pl_subgraph_rec(it, k).tensor_base),
                        (unsigned)k, why);
}
#endif

/* Offline offsets from the model's metadata, or an empty view when it has none: one per
** tensor of every subgraph, in subgraph order, as TFLM reads them. An offline plan shares
** memory between tensors, so preserve-all-tensors (every tensor kept) skips it; so does a
** model whose shapes changed (the offsets were planned for the model's own sizes). A model
** with a dynamic dim that keeps its own shapes keeps its plan, as TFLM does. */
static pl_status offline_offsets(const pl_interp *it, pl_vec *out, pl_error *err)
{
    pl_bytes b = pl_model_metadata_find(&it->model, OFFLINE_METADATA);
    out->p = NULL;
    out->n = 0;
    if (b.n == 0 || it->preserve_all_tensors || shapes_changed(it))
        return PL_OK;
    if (b.n < 12 || b.n % 4 != 0)
        return pl_error_set(err, PL_ERR_MODEL,
                            "metadata %s: %u bytes, expected 3 + n int32 values",
                            OFFLINE_METADATA, (unsigned)b.n);
    uint32_t n = pl_le32(b.p + 8);
    if ((uint64_t)n * 4u + 12u != b.n || n < it->all_tensors)
        return pl_error_set(err, PL_ERR_MODEL,
                            "metadata %s: %u offsets in %u bytes for %u tensors",
                            OFFLINE_METADATA, (unsigned)n, (unsigned)b.n,
                            (unsigned)it->all_tensors);
    out->p = b.p + 12;
    out->n = it->all_tensors;
    return PL_OK;
}

typedef struct plan_work {
    int32_t *first; /* global: every subgraph's tensors, then the scratch buffers */
    int32_t *last;
    pl_plan_buffer *bufs; /* the planned ones alone; NULL: collect only counts them */
    uint32_t count;
} plan_work;

/* A planned tensor's offline offset: -1 (the device plans it) or a multiple of its element
** size (4 for a STRING's int32 header), since a device may fault on a misaligned load. */
static pl_status check_fixed_offset(const pl_interp *it, uint32_t base, uint32_t i,
                                    int32_t fixed)
{
    pl_type type = (pl_type)it->tensors[i].type;
    size_t align = type == PL_STRING ? 4u : pl_type_size(type);
    if (!CHECK_PLANS || fixed == -1 || (fixed >= 0 && (size_t)fixed % (align | !align) == 0))
        return PL_OK;
    return offline_fail(it, base + i, "(%s) has offset %d, not -1 or a multiple of its "
                        "element size %zu (a misaligned load may fault on a device)",
                        pl_type_name(type), (int)fixed, align);
}

static pl_status collect_tensors(pl_interp *it, plan_work *w, pl_vec offline, uint32_t base)
{
    for (uint32_t i = 0; i < it->tensor_count; i++) {
        if (!needs_planning(it, i, w->first + base))
            continue;
        if (w->bufs == NULL) { /* counting */
            w->count++;
            continue;
        }
        pl_plan_buffer *b = &w->bufs[w->count++];
        int32_t fixed = offline.n > 0 ? pl_vec_i32(offline, base + i) : -1;
        PL_TRY(check_fixed_offset(it, base, i, fixed));
        b->size = (uint32_t)align_up(pl_alloc_tensor_bytes(it, i), PL_ARENA_ALIGN);
        b->first = w->first[base + i];
        b->last = w->last[base + i];
        b->offline_offset = fixed < 0 ? -1 : fixed;
        b->flags = pl_alloc_is_io(it, (int32_t)i) ? PL_PLAN_IO : 0;
        b->offset = base + i; /* the global tensor index until the plan sets the offset */
    }
    return PL_OK;
}

static pl_status collect_buffers(pl_interp *it, plan_work *w, pl_vec offline)
{
    w->count = 0;
    for (uint32_t k = 0; k < it->subgraph_count; k++) {
        uint32_t base = pl_subgraph_rec(it, k).tensor_base;
        pl_subgraph_select(it, k);
        PL_TRY(check_sources(it, w->first + base, w->last + base));
        PL_TRY(collect_tensors(it, w, offline, base));
    }
    for (uint32_t s = 0; s < it->scratch_count; s++) {
        if (w->bufs == NULL) { /* counting */
            w->count++;
            continue;
        }
        pl_plan_buffer *b = &w->bufs[w->count++];
        b->size = (uint32_t)align_up(it->scratch[s].bytes, PL_ARENA_ALIGN);
        b->first = w->first[it->all_tensors + s];
        b->last = w->last[it->all_tensors + s];
        b->offline_offset = -1;
        b->flags = 0;
        b->offset = 0;
    }
    pl_subgraph_select(it, 0);
    return PL_OK;
}

/* The fixed buffers as a whole: each inside twice the bytes all planned buffers take end to
** end (room for any gaps a plan leaves; a hostile offset must not make the host reserve a
** gigabyte), and no two live at once sharing bytes (TFLM would let them overwrite each other,
** which no planner can repair). A tensor's buffer holds its global index as its offset. */
static pl_status check_fixed(const pl_interp *it, const plan_work *w)
{
    uint64_t total = 0;
    for (uint32_t n = 0; n < w->count; n++)
        total += w->bufs[n].size;
    for (uint32_t n = 0; n < w->count; n++) {
        const pl_plan_buffer *a = &w->bufs[n];
        uint64_t a0 = (uint64_t)a->offline_offset;
        if (a->offline_offset < 0)
            continue;
        if (a0 + a->size > 2u * total)
            return offline_fail(it, a->offset, "at offset %d (+%u bytes) ends past twice "
                                "the %llu bytes of all planned buffers", (int)a0,
                                (unsigned)a->size, (unsigned long long)total);
        for (uint32_t m = n + 1; m < w->count; m++) {
            const pl_plan_buffer *b = &w->bufs[m];
            uint64_t b0 = (uint64_t)b->offline_offset;
            if (b->offline_offset >= 0 && a->size > 0 && b->size > 0 &&
                pl_plan_overlap_in_time(a, b) && a0 < b0 + b->size && b0 < a0 + a->size)
                return offline_fail(it, a->offset, "at [%d, +%u) overlaps global tensor %u "
                                    "at [%d, +%u) while both are live", (int)a0,
                                    (unsigned)a->size, (unsigned)b->offset, (int)b0,
                                    (unsigned)b->size);
        }
    }
    return PL_OK;
}

static void commit_offsets(pl_interp *it, const plan_work *w)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < it->subgraph_count; k++) {
        uint32_t base = pl_subgraph_rec(it, k).tensor_base;
        pl_subgraph_select(it, k);
        for (uint32_t i = 0; i < it->tensor_count; i++) {
            if (!needs_planning(it, i, w->first + base))
                continue;
            it->tensors[i].loc = PL_LOC_ARENA;
            it->tensors[i].data = w->bufs[n++].offset;
            it->tensors[i].flags |= PL_EVAL_PLANNED;
        }
    }
    pl_subgraph_select(it, 0);
    for (uint32_t s = 0; s < it->scratch_count; s++)
        it->scratch[s].offset = w->bufs[n++].offset;
}

static pl_status temp(pl_interp *it, size_t bytes, size_t align, void **out)
{
    return pl_arena_alloc_temp(it->arena, bytes == 0 ? 1 : bytes, align, out, it->err);
}

static void record_plan(pl_interp *it, const plan_work *w, pl_planner planner)
{
    it->rec.lower_bound = (uint32_t)pl_plan_lower_bound(w->bufs, w->count);
    it->rec.planner = (uint8_t)planner;
    it->plan_count = w->count;
    it->rec.head_tensors = 0;
    it->rec.head_scratch = 0;
    for (uint32_t i = 0; i < w->count; i++) {
        if (i < w->count - it->scratch_count) {
            uint32_t end = w->bufs[i].offset + w->bufs[i].size; /* <= the checked total */
            it->rec.head_tensors = end > it->rec.head_tensors ? end : it->rec.head_tensors;
        } else {
            it->rec.head_scratch += w->bufs[i].size;
        }
    }
}

/* Plans the head in temp and returns its size; offsets land in the records. */
static pl_status plan(pl_interp *it, uint32_t *head)
{
    plan_work w;
    pl_vec offline;
    uint8_t *on_path;
    size_t slots = (size_t)it->all_tensors + it->scratch_count;
    pl_planner planner = it->preserve_all_tensors ? PL_PLANNER_LINEAR : (pl_planner)it->opt.planner;
    PL_TRY(offline_offsets(it, &offline, it->err));
    PL_TRY(temp(it, slots * sizeof(int32_t), _Alignof(int32_t), (void **)&w.first));
    PL_TRY(temp(it, slots * sizeof(int32_t), _Alignof(int32_t), (void **)&w.last));
    PL_TRY(temp(it, it->subgraph_count, 1, (void **)&on_path));
    PL_TRY(pl_life_mark(it, w.first, w.last, on_path));
    w.bufs = NULL; /* a first pass counts them: only planned buffers take temp */
    PL_TRY(collect_buffers(it, &w, offline));
    PL_TRY(temp(it, (size_t)w.count * sizeof(pl_plan_buffer), _Alignof(pl_plan_buffer),
                (void **)&w.bufs));
    PL_TRY(collect_buffers(it, &w, offline));
    if (CHECK_PLANS && offline.n > 0)
        PL_TRY(check_fixed(it, &w));
    size_t need = pl_plan_scratch_size(planner, w.count);
    void *scratch;
    PL_TRY(temp(it, need, PL_ARENA_ALIGN, &scratch));
    PL_TRY(pl_plan_compute(planner, w.bufs, w.count, scratch, need, head, it->err));
    record_plan(it, &w, planner);
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

static pl_status allocate_all_variables(pl_interp *it)
{
    for (uint32_t k = 0; k < it->subgraph_count; k++) {
        pl_subgraph_select(it, k);
        PL_TRY(allocate_variables(it));
    }
    pl_subgraph_select(it, 0);
    return PL_OK;
}

/* The head starts zeroed, as a device's arena in .bss does: what prepare left there (its
** temp records) or the memory held before is never an output, and a kernel that keeps state
** in an output (CIRCULAR_BUFFER's older slots) starts from zeros whatever the arena held. */
pl_status pl_alloc_finish(pl_interp *it)
{
    uint32_t head = 0;
    PL_TRY(move_scratch_to_tail(it));
    PL_TRY(plan(it, &head));
    pl_arena_reset_temp(it->arena);
    PL_TRY(pl_arena_resize_head(it->arena, head, it->err));
    if (!it->sizing) /* a sizing run's head may be gigabytes of memory never touched */
        memset(pl_arena_base(it->arena), 0, pl_arena_head_size(it->arena));
    return allocate_all_variables(it);
}

int32_t pl_alloc_offline_offset(const pl_interp *it, uint32_t index)
{
    pl_vec offline;
    uint32_t g = pl_subgraph_rec(it, it->current_subgraph).tensor_base + index;
    if (offline_offsets(it, &offline, NULL) != PL_OK || g >= offline.n)
        return -1;
    int32_t v = pl_vec_i32(offline, g);
    return v < 0 ? -1 : v;
}

bool pl_alloc_lifetime(const pl_interp *it, uint32_t index, int32_t *first, int32_t *last)
{
    if (!(it->tensors[index].flags & PL_EVAL_PLANNED))
        return false;
    pl_life_of(it, pl_subgraph_rec(it, it->current_subgraph).tensor_base + index, first, last);
    return true;
}
