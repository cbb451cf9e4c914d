/* integrity.c - the arena records' seal: a magic number and checksums, checked at invoke.
**
** The interpreter keeps its records in the caller's arena, which the caller can still write
** (a host buffer wrapped as the arena, a stray pointer on a device). A damaged record would
** send a kernel to a wild address; a check before each top-level invoke and reset turns that
** into an error naming what was overwritten. The seal is taken after allocate, invoke and
** reset (kernels may update their own op data while running) and lives in the host's error
** record (it->err), so it costs the arena nothing. The variable tensors at the bottom of the
** tail are the host's to write, so they are left out. The current subgraph's selection
** (pl_subgraph_select) changes between seals, so it is checked for consistency with the
** sealed records instead of summed. A check hashes the tail once (FNV-1a over 64-bit words in
** four lanes, see feed); the per-region sums only name the damage once the tail differs. */
#include "state.h"

#include <stddef.h>
#include <string.h>

#define PL_INTEGRITY_MAGIC 0x706c6974u /* "plit" */
#define FNV_START 2166136261u
#define FNV32_PRIME 16777619u
#define FNV64_PRIME 1099511628211u
#define LANES 4

/* FNV-1a over 64-bit words dealt round-robin to LANES lanes, so that the multiplies of
** neighbouring words overlap instead of waiting on each other; the lanes are folded once,
** after every range of a sum is fed. Each step is a bijection of its lane: changing one
** word always changes its lane. */
typedef struct {
    uint64_t lane[LANES];
    size_t next; /* the lane the next word goes to */
} hasher;

static hasher hash_start(void)
{
    hasher s = {{FNV_START, FNV_START + 1u, FNV_START + 2u, FNV_START + 3u}, 0};
    return s;
}

static void word(hasher *s, uint64_t w)
{
    s->lane[s->next] = (s->lane[s->next] ^ w) * FNV64_PRIME;
    s->next = (s->next + 1) % LANES;
}

/* The last 1..7 bytes of a range as one word. The ranges of one sum have fixed lengths, so a
** short end is simply zero-padded; most are one 32-bit field. */
static uint64_t tail_word(const uint8_t *b, size_t n)
{
    uint64_t v = 0;
    size_t i = 0;
    if (n >= sizeof(uint32_t)) {
        uint32_t half;
        memcpy(&half, b, sizeof half);
        v = half;
        i = sizeof half;
    }
    for (; i < n; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}


static void feed(hasher *s, const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t w[LANES];
    size_t i = 0;
    for (; s->next != 0 && n - i >= sizeof w[0]; i += sizeof w[0]) {
        memcpy(w, b + i, sizeof w[0]); /* the range need not be 8-byte aligned */
        word(s, w[0]);
    }
    uint64_t lane[LANES]; /* a local copy: the bytes read may alias *s */
    memcpy(lane, s->lane, sizeof lane);
    for (; n - i >= sizeof w; i += sizeof w) {
        memcpy(w, b + i, sizeof w);
        for (size_t k = 0; k < LANES; k++)
            lane[k] = (lane[k] ^ w[k]) * FNV64_PRIME;
    }
    memcpy(s->lane, lane, sizeof lane);
    for (; n - i >= sizeof w[0]; i += sizeof w[0]) {
        memcpy(w, b + i, sizeof w[0]);
        word(s, w[0]);
    }
    if (i < n) /* built in a register: a short store then a wide load would stall */
        word(s, tail_word(b + i, n - i));
}

static uint32_t hash_end(const hasher *s)
{
    uint64_t h = s->lane[0];
    for (size_t k = 1; k < LANES; k++)
        h = (h ^ s->lane[k]) * FNV64_PRIME;
    return (uint32_t)(h ^ (h >> 32));
}

#define FIELD(f) {offsetof(pl_interp, f), sizeof(((pl_interp *)0)->f)}

/* What changes between seals: the node being run (set before any use) and the current
** subgraph's selection (checked by selection_ok). In declaration order, so by offset. */
static const struct {
    size_t at, n;
} unsealed[] = {
    FIELD(ctx_slot_), FIELD(tensors_slot_), FIELD(nodes_slot_), FIELD(sg_record_),
    FIELD(current_node), FIELD(tensor_count), FIELD(node_count), FIELD(current_subgraph),
    FIELD(depth),
};

/* The interpreter record without the unsealed fields (no copy: invoke's stack stays small). */
static uint32_t record_sum(const pl_interp *it)
{
    const uint8_t *me = (const uint8_t *)it;
    hasher s = hash_start();
    size_t at = 0;
    for (size_t k = 0; k < sizeof unsealed / sizeof unsealed[0]; k++) {
        feed(&s, me + at, unsealed[k].at - at);
        at = unsealed[k].at + unsealed[k].n;
    }
    feed(&s, me + at, sizeof *it - at);
    return hash_end(&s);
}

static uint32_t array_sum(const void *p, size_t count, size_t size)
{
    hasher s = hash_start();
    if (p != NULL)
        feed(&s, p, count * size);
    return hash_end(&s);
}

static uint32_t subgraphs_sum(const pl_interp *it)
{
    return array_sum(it->subgraphs, it->subgraphs != NULL ? it->subgraph_count : 0,
                     sizeof *it->subgraphs);
}

static bool vec_same(pl_vec a, pl_vec b)
{
    return a.p == b.p && a.n == b.n;
}

/* Between calls the selection is what pl_subgraph_select makes of current_subgraph. */
static bool selection_ok(const pl_interp *it)
{
    if (it->ctx != NULL || it->depth != 0 || it->current_subgraph >= it->subgraph_count)
        return false;
    pl_subgraph sg;
    pl_model_subgraph(&it->model, it->current_subgraph, &sg);
    pl_subgraph_record r = pl_subgraph_rec(it, it->current_subgraph);
    return vec_same(sg.tensors, it->sg.tensors) && vec_same(sg.inputs, it->sg.inputs) &&
           vec_same(sg.outputs, it->sg.outputs) && vec_same(sg.operators, it->sg.operators) &&
           it->tensor_count == sg.tensors.n && it->node_count == sg.operators.n &&
           r.tensor_base <= it->all_tensors && r.node_base <= it->all_nodes &&
           it->tensors == it->tensor_records + r.tensor_base &&
           it->nodes == it->node_records + r.node_base;
}

/* The sealed range, the record itself left out (record_sum covers it). The range is kept as
** distances from the record, so that nothing in the arena is trusted to find it. */
static uint32_t tail_sum(const pl_interp *it, const pl_seal *seal)
{
    const uint8_t *me = (const uint8_t *)it;
    hasher s = hash_start();
    feed(&s, me - seal->below, seal->below);
    feed(&s, me + sizeof *it, seal->above - sizeof *it);
    return hash_end(&s);
}

/* Where the sealed tail begins: above every subgraph's variable tensors in the tail, which
** the host may write (the record lies above them: it is the tail's first allocation). */
static size_t sealed_low(pl_interp *it)
{
    size_t cap = pl_arena_capacity(it->arena);
    size_t lo = cap - pl_arena_tail_size(it->arena);
    uint32_t saved = it->current_subgraph;
    for (uint32_t k = 0; k < it->subgraph_count; k++) {
        pl_subgraph_select(it, k);
        for (uint32_t i = 0; i < it->tensor_count; i++) {
            const pl_eval_record *r = &it->tensors[i];
            if (!(r->flags & PL_EVAL_VARIABLE) || r->loc != PL_LOC_ARENA || r->data < lo)
                continue;
            size_t end = (size_t)r->data + pl_alloc_tensor_bytes(it, i);
            if (end > lo && end <= cap)
                lo = end;
        }
    }
    pl_subgraph_select(it, saved);
    return lo;
}

void pl_integrity_seal(pl_interp *it)
{
    pl_seal *seal = &it->err->seal;
    const uint8_t *base = pl_arena_base(it->arena), *me = (const uint8_t *)it;
    seal->owner = it;
    seal->below = (size_t)(me - (base + sealed_low(it)));
    seal->above = (size_t)(base + pl_arena_capacity(it->arena) - me);
    seal->tensors = array_sum(it->tensor_records, it->all_tensors, sizeof *it->tensor_records);
    seal->nodes = array_sum(it->node_records, it->all_nodes, sizeof *it->node_records);
    seal->subgraphs = subgraphs_sum(it);
    seal->scratch = array_sum(it->scratch, it->scratch_count, sizeof *it->scratch);
    seal->regs = array_sum(it->regs, it->opcode_count, sizeof *it->regs);
    seal->magic = PL_INTEGRITY_MAGIC;
    pl_integrity_reseal(it);
}

/* Invoke and reset change only op data and persistent buffers (kernel state): the sealed
** range and the records' sums stay, the record and the tail are summed again. */
void pl_integrity_reseal(pl_interp *it)
{
    pl_seal *seal = &it->err->seal;
    seal->record = record_sum(it);
    seal->tail = tail_sum(it, seal);
}

static pl_status damaged(pl_error *err, const char *what)
{
    return pl_error_set(err, PL_ERR_STATE, "arena damaged: %s in the arena's tail "
                        "overwritten since the last allocate/invoke/reset (the arena's memory "
                        "was written from outside the interpreter); create a new "
                        "interpreter", what);
}

/* Which records differ, once the tail as a whole does (NULL: none of them). */
static const char *damaged_record(const pl_interp *it, const pl_seal *seal)
{
    if (seal->tensors !=
        array_sum(it->tensor_records, it->all_tensors, sizeof *it->tensor_records))
        return "the eval tensor records";
    if (seal->nodes != array_sum(it->node_records, it->all_nodes, sizeof *it->node_records))
        return "the node records";
    if (seal->subgraphs != subgraphs_sum(it))
        return "the subgraph records";
    if (seal->scratch != array_sum(it->scratch, it->scratch_count, sizeof *it->scratch))
        return "the scratch buffer records";
    if (seal->regs != array_sum(it->regs, it->opcode_count, sizeof *it->regs))
        return "the registration table";
    return NULL;
}

static bool host_record_ok(const pl_interp *it)
{
    return it->err != NULL && (uintptr_t)it->err % _Alignof(pl_error) == 0;
}

pl_status pl_integrity_check(const pl_interp *it, pl_error *err)
{
    if (it == NULL)
        return PL_ERR_ARG;
    if (!host_record_ok(it))
        return damaged(err, "the interpreter record (its pointer to the host's record)");
    const pl_seal *seal = &it->err->seal;
    if (!it->allocated && seal->owner != it)
        return PL_OK; /* nothing sealed yet: allocate has not succeeded */
    if (seal->owner != it || seal->magic != PL_INTEGRITY_MAGIC ||
        seal->record != record_sum(it))
        return damaged(err, "the interpreter record (checksum)");
    bool tail_ok = seal->tail == tail_sum(it, seal);
    const char *region = tail_ok ? NULL : damaged_record(it, seal);
    if (region != NULL)
        return damaged(err, region);
    if (!selection_ok(it))
        return damaged(err, "the interpreter record (the current subgraph's selection)");
    return tail_ok ? PL_OK : damaged(err, "the op data, persistent buffers or arena record");
}
