/* bestfit.c - TFLite's ArenaPlanner order with SimpleMemoryArena::Allocate's best fit.
**
** Order (ArenaPlanner::CreateTensorAllocationVector): model inputs/outputs (PL_PLAN_IO)
** first in given order, then size descending, equal sizes by first use ascending, then by
** index (TFLite leaves that last tie to std::sort; picolite fixes it). Offline buffers go
** before all of them at their fixed offsets. Each buffer then takes, among the gaps below
** the time-overlapping buffers walked in offset order, the smallest one it fits in, else
** the end (fit.c, without walking the buffers of other times). Sizes are used as given:
** the runtime already rounds them to 16. Empty buffers get offset 0 and never split a gap. */
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

void pl_bestfit_plan(const pl_plan_buffer *bufs, uint32_t n, uint64_t *off, void *scratch,
                     pl_plan_poll *poll)
{
    uint32_t *order = scratch;
    pl_fit fit;
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    pl_plan_sort(order, n, before, bufs);
    pl_fit_index(&fit, bufs, n, order + n);
    pl_fit_place(&fit, n, order, order, off, PL_FIT_BEST, poll);
}
