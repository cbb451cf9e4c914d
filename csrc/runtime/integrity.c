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

#ifdef PL_NO_INTEGRITY
/* Firmware built without the seal (state.h's no-op seal and guard): saying so beats a check
** that passes without looking. */
pl_status pl_integrity_check(const pl_interp *it, pl_error *err)
{
    if (it == NULL)
        return PL_ERR_ARG;
    return pl_error_set(err, PL_ERR_UNSUPPORTED,
                        "integrity check: the arena seal is not in this build (PL_NO_INTEGRITY)");
}
#else

#define PL_INTEGRITY_MAGIC 0x706c6974u /* "plit" */
/* The per-record sums only name the damage: a build without messages neither takes them nor
** compares them (a damaged tail fails the check all the same). */
#ifdef PL_NO_MESSAGES
#define NAME_RECORDS 0
#else
#define NAME_RECORDS 1
#endif
#define FNV_START 14695981039346656037u
#define FNV_PRIME 1099511628211u
#define LANES 4

/* FNV-1a over 64-bit words in LANES lanes, so that the multiplies of neighbouring words
** overlap instead of waiting on each other; a word's lane is its place
** in its range modulo LANES (a sum's ranges have fixed lengths, so the last block is simply
** zero-padded), and the lanes are folded once, after every range of a sum is fed. Each step
** is a bijection of its lane: changing one word always changes its lane. */
typedef struct {
    uint64_t lane[LANES];
} hasher;

/* Odd, so each step stays a bijection; one per lane, so that compilers keep four scalar
** multiplies (one shared constant is turned into a slower vector shift-and-add chain). */
static const uint64_t LANE_PRIME[LANES] = {FNV_PRIME, FNV_PRIME + 2u, FNV_PRIME + 4u,
                                           FNV_PRIME + 6u};

static uint64_t word_at(const uint8_t *b)
{
    uint64_t w;
    memcpy(&w, b, sizeof w); /* the range need not be 8-byte aligned */
    return w;
}

/* Word by word, each lane's running sum in a register: a block copied into an array and read
** back a word at a time stalled on store forwarding (2.5 bytes a cycle, 95 us of
** EfficientNet-B0 int8's 1.26 ms invoke for its 280 KB tail checked and sealed again). A
** 64-bit host takes the four lanes side by side, a 32-bit one a smaller loop over them (its
** 64-bit multiplies are instruction sequences, and firmware pays for code size). */
static void feed(hasher *restrict s, const uint8_t *restrict b, size_t n)
{
    uint64_t pad[LANES];
    size_t i = 0;
#if UINTPTR_MAX > 0xFFFFFFFFu
    _Static_assert(LANES == 4, "the host's loop names four lanes");
    uint64_t l0 = s->lane[0], l1 = s->lane[1], l2 = s->lane[2], l3 = s->lane[3];
    for (; n - i >= sizeof pad; i += sizeof pad) {
        l0 = (l0 ^ word_at(b + i)) * LANE_PRIME[0];
        l1 = (l1 ^ word_at(b + i + 8)) * LANE_PRIME[1];
        l2 = (l2 ^ word_at(b + i + 16)) * LANE_PRIME[2];
        l3 = (l3 ^ word_at(b + i + 24)) * LANE_PRIME[3];
    }
    s->lane[0] = l0, s->lane[1] = l1, s->lane[2] = l2, s->lane[3] = l3;
#endif
    for (; i < n; i += sizeof pad) {
        const uint8_t *block = b + i;
        if (n - i < sizeof pad) { /* the last block zero-padded */
            memset(pad, 0, sizeof pad);
            memcpy(pad, b + i, n - i);
            block = (const uint8_t *)pad;
        }
        for (size_t k = 0; k < LANES; k++)
            s->lane[k] = (s->lane[k] ^ word_at(block + 8 * k)) * LANE_PRIME[k];
    }
}

static uint32_t hash_end(const hasher *s)
{
    uint64_t h = FNV_START;
    for (size_t k = 0; k < LANES; k++)
        h = (h ^ s->lane[k]) * FNV_PRIME;
    return (uint32_t)(h ^ (h >> 32));
}

/* What changes between seals: the node being run (set before any use) and the current
** subgraph's selection (checked by selection_ok). The record is summed as whole blocks with
** these fields' 32-bit words masked to zero (RECORD_KEEP, a table the compiler computes). */
#define IN(f, k) (offsetof(pl_interp, f) <= 4u * (k) && \
                  4u * (k) < offsetof(pl_interp, f) + sizeof(((pl_interp *)0)->f))
#define UNSEALED(k) (IN(ctx_slot_, k) || IN(tensors_slot_, k) || IN(nodes_slot_, k) || \
                     IN(sg_record_, k) || IN(current_node, k) || IN(tensor_count, k) || \
                     IN(node_count, k) || IN(current_subgraph, k) || IN(depth, k))
#define KEEP(k) (UNSEALED(k) ? 0u : 0xFFFFFFFFu)
#define KEEP4(k) KEEP(k), KEEP((k) + 1), KEEP((k) + 2), KEEP((k) + 3)
#define KEEP16(k) KEEP4(k), KEEP4((k) + 4), KEEP4((k) + 8), KEEP4((k) + 12)
#define RECORD_WORDS (sizeof(pl_interp) / sizeof(uint32_t))

static const uint32_t RECORD_KEEP[RECORD_WORDS] = {
    KEEP16(0), KEEP16(16), KEEP16(32), KEEP16(48), KEEP16(64), KEEP16(80), KEEP16(96),
};
#define RECORD_BLOCK (2 * LANES) /* 32-bit words per block of LANES 64-bit words */
_Static_assert(RECORD_WORDS == 112 && RECORD_WORDS % RECORD_BLOCK == 0,
               "RECORD_KEEP covers the record in whole blocks");

/* The interpreter record without the unsealed fields (no copy: invoke's stack stays small).
** The mask is read as the record is, so its words line up on either byte order. */
static uint32_t record_sum(const pl_interp *it)
{
    const uint8_t *me = (const uint8_t *)it, *keep = (const uint8_t *)RECORD_KEEP;
#if UINTPTR_MAX > 0xFFFFFFFFu /* as in feed */
    uint64_t l0 = 0, l1 = 0, l2 = 0, l3 = 0; /* any start will do: each step is a bijection */
    for (size_t at = 0; at < sizeof(pl_interp); at += LANES * sizeof(uint64_t)) {
        l0 = (l0 ^ (word_at(me + at) & word_at(keep + at))) * LANE_PRIME[0];
        l1 = (l1 ^ (word_at(me + at + 8) & word_at(keep + at + 8))) * LANE_PRIME[1];
        l2 = (l2 ^ (word_at(me + at + 16) & word_at(keep + at + 16))) * LANE_PRIME[2];
        l3 = (l3 ^ (word_at(me + at + 24) & word_at(keep + at + 24))) * LANE_PRIME[3];
    }
    const hasher s = {{l0, l1, l2, l3}};
#else
    hasher s = {{0}};
    for (size_t at = 0; at < sizeof(pl_interp); at += sizeof s.lane)
        for (size_t k = 0; k < LANES; k++)
            s.lane[k] = (s.lane[k] ^ (word_at(me + at + 8 * k) & word_at(keep + at + 8 * k))) *
                        LANE_PRIME[k];
#endif
    return hash_end(&s);
}

static uint32_t array_sum(const void *p, size_t count, size_t size)
{
    hasher s = {{0}}; /* any start will do: each step is a bijection */
    if (p != NULL)
        feed(&s, p, count * size);
    return hash_end(&s);
}

static uint32_t subgraphs_sum(const pl_interp *it)
{
    return array_sum(it->subgraphs, it->subgraphs != NULL ? it->subgraph_count : 0,
                     sizeof *it->subgraphs);
}

/* The record arrays' sums, in pl_seal's order: tensors, nodes, subgraphs, scratch, regs. */
#define REGIONS 5
static void region_sums(const pl_interp *it, uint32_t out[REGIONS])
{
    out[0] = array_sum(it->tensor_records, it->all_tensors, sizeof *it->tensor_records);
    out[1] = array_sum(it->node_records, it->all_nodes, sizeof *it->node_records);
    out[2] = subgraphs_sum(it);
    out[3] = array_sum(it->scratch, it->scratch_count, sizeof *it->scratch);
    out[4] = array_sum(it->regs, it->opcode_count, sizeof *it->regs);
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

/* feed, or the host's own hash of the tail (pl_interp_options.seal_feed: a vector one). */
static void feed_tail(const pl_interp *it, hasher *s, const uint8_t *b, size_t n)
{
    if (it->err->seal_feed != NULL)
        it->err->seal_feed(s->lane, b, n);
    else
        feed(s, b, n);
}

/* The sealed range, the record itself left out where the arena holds it (record_sum covers
** it). The range is kept in the host's record, so that nothing in the arena is trusted to
** find it. */
static uint32_t tail_sum(const pl_interp *it, const pl_seal *seal)
{
    const uint8_t *me = (const uint8_t *)it, *lo = seal->low, *hi = seal->high;
    hasher s = {{0}}; /* any start will do: each step is a bijection */
    if ((uintptr_t)me >= (uintptr_t)lo && (uintptr_t)me < (uintptr_t)hi) {
        feed_tail(it, &s, lo, (size_t)(me - lo));
        feed_tail(it, &s, me + sizeof *it, (size_t)(hi - (me + sizeof *it)));
    } else {
        feed_tail(it, &s, lo, (size_t)(hi - lo));
    }
    return hash_end(&s);
}

/* Where the sealed tail begins: above every subgraph's variable tensors in the tail, which
** the host may write (a record in the arena lies above them: it is the tail's first
** allocation). */
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
    const uint8_t *base = pl_arena_base(it->arena);
    seal->owner = it;
    seal->low = base + sealed_low(it);
    seal->high = base + pl_arena_capacity(it->arena);
    if (NAME_RECORDS) {
        uint32_t sums[REGIONS];
        region_sums(it, sums);
        seal->tensors = sums[0];
        seal->nodes = sums[1];
        seal->subgraphs = sums[2];
        seal->scratch = sums[3];
        seal->regs = sums[4];
    }
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
    static const char *const names[REGIONS] = {
        "the eval tensor records", "the node records", "the subgraph records",
        "the scratch buffer records", "the registration table",
    };
    const uint32_t sealed[REGIONS] = {seal->tensors, seal->nodes, seal->subgraphs,
                                      seal->scratch, seal->regs};
    uint32_t now[REGIONS];
    if (!NAME_RECORDS)
        return NULL;
    region_sums(it, now);
    for (size_t k = 0; k < REGIONS; k++)
        if (now[k] != sealed[k])
            return names[k];
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
#endif
