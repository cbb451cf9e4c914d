/* linear.c - no reuse: the upper bound every other planner is measured against.
** Online buffers follow one another in given order, after the end of the offline plan. */
#include "memory/planners.h"

size_t pl_linear_scratch_size(uint32_t count)
{
    (void)count;
    return 0;
}

/* Linear time: nothing to poll. */
void pl_linear_plan(const pl_plan_buffer *bufs, uint32_t n, uint64_t *off, void *scratch,
                    pl_plan_poll *poll)
{
    (void)scratch;
    (void)poll;
    uint64_t next = 0;
    for (uint32_t i = 0; i < n; i++) {
        off[i] = bufs[i].offline_offset >= 0 ? (uint64_t)bufs[i].offline_offset : 0;
        if (bufs[i].offline_offset >= 0 && off[i] + bufs[i].size > next)
            next = off[i] + bufs[i].size;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (bufs[i].offline_offset < 0) {
            off[i] = next;
            next += bufs[i].size;
        }
    }
}
