/* integrity.c - the tail records' seal: a magic number and checksums, checked at invoke.
**
** The interpreter keeps its records in the caller's arena, which the caller can still write
** (a host buffer wrapped as the arena, a stray pointer on a device). A damaged record would
** send a kernel to a wild address; a check before each invoke turns that into an error
** naming what was overwritten. The seal is taken after allocate, invoke and reset (kernels
** may update their own op data while running); the variable tensors at the bottom of the
** tail are the host's to write, so they are left out. FNV-1a: cheap next to any kernel. */
#include "state.h"

#include <string.h>

#define PL_INTEGRITY_MAGIC 0x706c6974u /* "plit" */

static uint32_t fnv(uint32_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

/* The interpreter record without what invoke rewrites before use (the node being run) and
** the seal itself; pl_interp_set_profiler reseals. */
static uint32_t record_sum(const pl_interp *it)
{
    pl_interp copy;
    memcpy(&copy, it, sizeof copy);
    copy.current_node = 0;
    memset(&copy.seal, 0, sizeof copy.seal);
    copy.seal.lo = it->seal.lo;
    copy.seal.hi = it->seal.hi;
    return fnv(2166136261u, &copy, sizeof copy);
}

/* The sealed tail range minus the interpreter record, which record_sum covers. */
static uint32_t tail_sum(const pl_interp *it)
{
    const uint8_t *lo = it->seal.lo, *hi = it->seal.hi, *me = (const uint8_t *)it;
    uint32_t h = 2166136261u;
    if ((size_t)(me - lo) <= (size_t)(hi - lo) && (size_t)(hi - me) >= sizeof *it) {
        h = fnv(h, lo, (size_t)(me - lo));
        return fnv(h, me + sizeof *it, (size_t)(hi - me) - sizeof *it);
    }
    return fnv(h, lo, (size_t)(hi - lo));
}

/* Where the sealed tail begins: above the variable tensors, which the host may write. */
static const uint8_t *sealed_low(const pl_interp *it)
{
    uint8_t *base = pl_arena_base(it->arena);
    size_t cap = pl_arena_capacity(it->arena);
    size_t lo = cap - pl_arena_tail_size(it->arena);
    for (uint32_t i = 0; i < it->tensor_count; i++) {
        const pl_eval_record *r = &it->tensors[i];
        if (!(r->flags & PL_EVAL_VARIABLE) || r->loc != PL_LOC_ARENA || r->data < lo)
            continue;
        size_t end = (size_t)r->data + pl_alloc_tensor_bytes(it, i);
        if (end > lo && end <= cap)
            lo = end;
    }
    return base + lo;
}

void pl_integrity_seal(pl_interp *it)
{
    it->seal.lo = sealed_low(it);
    it->seal.hi = pl_arena_base(it->arena) + pl_arena_capacity(it->arena);
    it->seal.tensors = fnv(2166136261u, it->tensors, it->tensor_count * sizeof *it->tensors);
    it->seal.nodes = fnv(fnv(2166136261u, it->nodes, it->node_count * sizeof *it->nodes),
                         it->regs, it->opcode_count * sizeof *it->regs);
    it->seal.tail = tail_sum(it);
    it->seal.magic = PL_INTEGRITY_MAGIC;
    it->seal.record = record_sum(it);
}

static pl_status damaged(pl_error *err, const char *what)
{
    return pl_error_set(err, PL_ERR_STATE, "arena damaged: %s in the arena's tail "
                        "overwritten since the last allocate/invoke/reset (the arena's memory "
                        "was written from outside the interpreter); create a new "
                        "interpreter", what);
}

pl_status pl_integrity_check(const pl_interp *it, pl_error *err)
{
    if (it == NULL)
        return PL_ERR_ARG;
    if (!it->allocated && it->seal.magic != PL_INTEGRITY_MAGIC)
        return PL_OK; /* nothing sealed yet: allocate has not succeeded */
    if (it->seal.magic != PL_INTEGRITY_MAGIC || it->seal.record != record_sum(it))
        return damaged(err, "the interpreter record (magic number or checksum)");
    if (it->seal.tensors != fnv(2166136261u, it->tensors,
                                it->tensor_count * sizeof *it->tensors))
        return damaged(err, "the eval tensor records");
    if (it->seal.nodes != fnv(fnv(2166136261u, it->nodes, it->node_count * sizeof *it->nodes),
                              it->regs, it->opcode_count * sizeof *it->regs))
        return damaged(err, "the node records");
    if (it->seal.tail != tail_sum(it))
        return damaged(err, "the op data, persistent buffers or arena record");
    return PL_OK;
}
