/* greedy.c - TFLM's GreedyMemoryPlanner, reproduced offset for offset.
**
** Order: offline buffers first in given order, then the online ones by size descending.
** TFLM fills the online ones into its sort array from the back and bubble-sorts them with a
** strict comparison, so equal sizes end up in reverse given order: that is the tie rule here.
** Each online buffer then walks the placed buffers in offset order, skips those not live at
** the same time, and takes the first gap that fits after the highest end seen so far; at the
** end of the list it goes after that end. An empty placed buffer is a point in that walk: it
** splits a gap. fit.c finds the same offset without walking the buffers of other times.
** The scratch stays TFLM's 12 bytes per buffer (8 are used), so the arena figures do not move
** with the algorithm. */
#include "memory/planners.h"

size_t pl_greedy_scratch_size(uint32_t count)
{
    return pl_plan_array_bytes(count, 3 * sizeof(uint32_t));
}

/* Offline first (by index), then size descending, equal sizes by index descending. */
static int before(const void *ctx, uint32_t a, uint32_t b)
{
    const pl_plan_buffer *bufs = ctx;
    int a_off = bufs[a].offline_offset >= 0, b_off = bufs[b].offline_offset >= 0;
    if (a_off || b_off)
        return a_off && b_off ? a < b : a_off;
    if (bufs[a].size != bufs[b].size)
        return bufs[a].size > bufs[b].size;
    return a > b;
}

void pl_greedy_plan(const pl_plan_buffer *bufs, uint32_t n, uint64_t *off, void *scratch,
                    pl_plan_poll *poll)
{
    uint32_t *order = scratch;
    pl_fit fit;
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    pl_plan_sort(order, n, before, bufs);
    pl_fit_index(&fit, bufs, n, order + n);
    pl_fit_place(&fit, n, order, order, off, PL_FIT_FIRST_POINTS, poll);
}
