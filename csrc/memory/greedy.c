/* greedy.c - TFLM's GreedyMemoryPlanner, reproduced offset for offset.
**
** Order: offline buffers first in given order, then the online ones by size descending.
** TFLM fills the online ones into its sort array from the back and bubble-sorts them with a
** strict comparison, so equal sizes end up in reverse given order: that is the tie rule here.
** Each online buffer then walks the placed buffers in offset order (equal offsets in
** placement order), skips those not live at the same time, and takes the first gap that
** fits after the highest end seen so far; at the end of the list it goes after that end. */
#include "memory/planners.h"

typedef struct list {
    uint32_t *id;   /* entry -> buffer */
    uint32_t *next; /* entry -> next entry in offset order, NONE at the end */
    uint32_t head;  /* entry with the lowest offset */
} list;

#define NONE UINT32_MAX

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

/* TFLM's first fit: the lowest offset after every earlier live buffer with room for want. */
static uint64_t first_fit(const pl_plan_buffer *bufs, const uint64_t *off, const list *l,
                          uint32_t want)
{
    uint64_t candidate = 0;
    for (uint32_t e = l->head; e != NONE; e = l->next[e]) {
        const pl_plan_buffer *b = &bufs[l->id[e]];
        if (!pl_plan_overlap_in_time(b, &bufs[want]))
            continue;
        /* Is there room between the highest end so far and this buffer? */
        if (off[l->id[e]] >= candidate && off[l->id[e]] - candidate >= bufs[want].size)
            return candidate;
        if (off[l->id[e]] + b->size > candidate)
            candidate = off[l->id[e]] + b->size;
    }
    return candidate;
}

/* Inserts entry e after every entry at an offset <= its own, as TFLM's list does. */
static void insert(list *l, const uint64_t *off, uint32_t e)
{
    uint64_t at = off[l->id[e]];
    if (off[l->id[l->head]] > at) {
        l->next[e] = l->head;
        l->head = e;
        return;
    }
    uint32_t cur = l->head;
    while (l->next[cur] != NONE && off[l->id[l->next[cur]]] <= at)
        cur = l->next[cur];
    l->next[e] = l->next[cur];
    l->next[cur] = e;
}

void pl_greedy_plan(const pl_plan_buffer *bufs, uint32_t n, uint64_t *off, void *scratch,
                    pl_plan_poll *poll)
{
    if (n == 0)
        return;
    uint32_t *order = scratch;
    list l = {order + n, order + 2 * n, 0};
    for (uint32_t i = 0; i < n; i++) {
        order[i] = i;
        off[i] = bufs[i].offline_offset >= 0 ? (uint64_t)bufs[i].offline_offset : 0;
    }
    pl_plan_sort(order, n, before, bufs);
    l.id[0] = order[0];
    l.next[0] = NONE;
    for (uint32_t e = 1; e < n && !pl_plan_tick(poll); e++) {
        uint32_t want = order[e];
        if (bufs[want].offline_offset < 0)
            off[want] = first_fit(bufs, off, &l, want);
        l.id[e] = want;
        insert(&l, off, e);
    }
}
