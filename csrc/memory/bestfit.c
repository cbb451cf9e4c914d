/* bestfit.c - TFLite's ArenaPlanner order with SimpleMemoryArena::Allocate's best fit.
**
** Order (ArenaPlanner::CreateTensorAllocationVector): model inputs/outputs (PL_PLAN_IO)
** first in given order, then size descending, equal sizes by first use ascending, then by
** index (TFLite leaves that last tie to std::sort; picolite fixes it). Offline buffers go
** before all of them at their fixed offsets. Each buffer then takes, among the gaps below
** the time-overlapping buffers walked in offset order, the smallest one it fits in, else
** the end. Sizes are used as given: the runtime already rounds them to 16. */
#include "memory/planners.h"

size_t pl_bestfit_scratch_size(uint32_t count)
{
    return pl_plan_array_bytes(count, 2 * sizeof(uint32_t));
}

static int before(const void *ctx, uint32_t a, uint32_t b)
{
    const pl_plan_buffer *bufs = ctx;
    int a_off = bufs[a].offline_offset >= 0, b_off = bufs[b].offline_offset >= 0;
    if (a_off || b_off)
        return a_off && b_off ? a < b : a_off;
    int a_io = (bufs[a].flags & PL_PLAN_IO) != 0, b_io = (bufs[b].flags & PL_PLAN_IO) != 0;
    if (a_io || b_io)
        return a_io && b_io ? a < b : a_io;
    if (bufs[a].size != bufs[b].size)
        return bufs[a].size > bufs[b].size;
    if (bufs[a].first != bufs[b].first)
        return bufs[a].first < bufs[b].first;
    return a < b;
}

/* SimpleMemoryArena::Allocate's gap search over the placed buffers (offset order). */
static uint64_t best_gap(const pl_plan_buffer *bufs, const uint64_t *off, const uint32_t *placed,
                         uint32_t count, uint32_t want)
{
    uint64_t best = UINT64_MAX, best_fit = UINT64_MAX, current = 0;
    uint32_t size = bufs[want].size;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t p = placed[k];
        if (!pl_plan_overlap_in_time(&bufs[p], &bufs[want]))
            continue;
        /* A gap that fits and is tighter than the best so far? */
        if (current + size <= off[p] && off[p] - current < best_fit) {
            best = current;
            best_fit = off[p] - current;
        }
        if (off[p] + bufs[p].size > current)
            current = off[p] + bufs[p].size;
    }
    return best != UINT64_MAX ? best : current;
}

/* Keeps placed sorted by offset; a new buffer goes before any at the same offset. */
static void insert(const uint64_t *off, uint32_t *placed, uint32_t count, uint32_t id)
{
    uint32_t k = count;
    while (k > 0 && off[placed[k - 1]] >= off[id]) {
        placed[k] = placed[k - 1];
        k--;
    }
    placed[k] = id;
}

void pl_bestfit_place(const pl_plan_buffer *bufs, uint32_t n, const uint32_t *order,
                      uint64_t *off, uint32_t *placed, pl_plan_poll *poll)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < n && !pl_plan_tick(poll); i++) {
        uint32_t id = order[i];
        if (bufs[id].offline_offset >= 0)
            off[id] = (uint64_t)bufs[id].offline_offset;
        else if (bufs[id].size == 0)
            off[id] = 0; /* TFLite gives empty tensors offset 0 and no place in the list */
        else
            off[id] = best_gap(bufs, off, placed, count, id);
        if (bufs[id].size > 0)
            insert(off, placed, count++, id);
    }
}

void pl_bestfit_plan(const pl_plan_buffer *bufs, uint32_t n, uint64_t *off, void *scratch,
                     pl_plan_poll *poll)
{
    uint32_t *order = scratch;
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    pl_plan_sort(order, n, before, bufs);
    pl_bestfit_place(bufs, n, order, off, order + n, poll);
}
