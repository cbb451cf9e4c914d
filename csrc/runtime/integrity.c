/* integrity.c - the tail records' seal: a magic number and checksums, checked at invoke.
**
** The interpreter keeps its records in the caller's arena, which the caller can still write
** (a host buffer wrapped as the arena, a stray pointer on a device). A damaged record would
** send a kernel to a wild address; a check before each invoke turns that into an error
** naming what was overwritten. The seal is taken after allocate, invoke and reset (kernels
** may update their own op data while running); the variable tensors at the bottom of the
** tail are the host's to write, so they are left out. The sealed range is kept as distances
** from the record, so nothing outside the checked record is trusted to find it. FNV-1a:
** cheap next to any kernel. */
#include "state.h"

#include <string.h>

#define PL_INTEGRITY_MAGIC 0x706c6974u /* "plit" */
#define FNV_START 2166136261u

static uint32_t fnv(uint32_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

/* The interpreter record without the node being run (invoke sets it before any use) and
** without the seal itself. */
static uint32_t record_sum(const pl_interp *it)
{
    pl_interp copy;
    memcpy(&copy, it, sizeof copy);
    copy.current_node = 0;
    memset(&copy.seal, 0, sizeof copy.seal);
    return fnv(FNV_START, &copy, sizeof copy);
}

static uint32_t records_sum(const pl_interp *it)
{
    uint32_t h = fnv(FNV_START, it->tensors, it->tensor_count * sizeof *it->tensors);
    h = fnv(h, it->nodes, it->node_count * sizeof *it->nodes);
    return fnv(h, it->regs, it->opcode_count * sizeof *it->regs);
}

/* The sealed range around the record, the record itself left out (record_sum covers it). */
static uint32_t tail_sum(const pl_interp *it)
{
    const uint8_t *me = (const uint8_t *)it;
    uint32_t h = fnv(FNV_START, me - it->seal_below, it->seal_below);
    return fnv(h, me + sizeof *it, it->seal_above - sizeof *it);
}

/* Where the sealed tail begins: above the variable tensors, which the host may write. */
static size_t sealed_low(const pl_interp *it)
{
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
    return lo;
}

void pl_integrity_seal(pl_interp *it)
{
    const uint8_t *base = pl_arena_base(it->arena), *me = (const uint8_t *)it;
    it->seal_below = (uint32_t)(me - (base + sealed_low(it)));
    it->seal_above = (uint32_t)(base + pl_arena_capacity(it->arena) - me);
    it->seal.records = records_sum(it);
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
    if (it->seal.records != records_sum(it))
        return damaged(err, "the eval tensor or node records");
    if (it->seal.tail != tail_sum(it))
        return damaged(err, "the op data, persistent buffers or arena record");
    return PL_OK;
}
