/* fit.c - first fit and best fit among the placed buffers that share a node with the next.
**
** The planners' list walks (TFLM's greedy, TFLite's best fit) visit every placed buffer in
** offset order and skip those not live at the same time: O(n) per buffer. Here an index of
** all buffers by (lifetime class, first use) finds the time-overlapping ones directly: class
** c holds the lifetimes last - first of bit length c, so a buffer of class c that overlaps
** [first, last] starts in [first - (2^c - 1), last], one binary search and one run per class.
** The hits leave a min-heap in offset order and go through the walk's own arithmetic, so the
** offsets are the walk's. While few buffers are placed, and when most live at once (heaps of
** most placed buffers cost more than the walk itself), the walk itself goes over an
** offset-ordered array instead (enum mode). Equal offsets may come in any order in both: the first fit is the
** lowest offset free of every hit, and two hits at one offset open no gap between them, so
** neither answer depends on their order. */
#include "memory/planners.h"

#include <string.h>

/* A device build with TFLM's planner alone plans a model's few hundred buffers: the
** offset-ordered list is enough there, and the index and the heaps stay out of the firmware. */
#ifdef PL_GREEDY_ONLY
#define LIST_ONLY 1
#else
#define LIST_ONLY 0
#endif

/* Walks of up to this many placed buffers cost less than the index's searches. */
#define LIST_AFTER 128u

/* The bit length of v, in five halving steps: the sorts and the cost estimate call it often. */
static uint32_t class_bits(uint32_t v)
{
    uint32_t c = 0;
    for (uint32_t shift = 16; shift > 0; shift >>= 1) {
        if (v >> shift) {
            v >>= shift;
            c += shift;
        }
    }
    return c + v;
}

/* Lifetimes are last - first < 2^31: bit lengths 0..31. */
static uint32_t class_of(const pl_plan_buffer *b)
{
    return class_bits((uint32_t)b->last - (uint32_t)b->first);
}

static int by_class(const void *ctx, uint32_t a, uint32_t b)
{
    const pl_plan_buffer *bufs = ctx;
    uint32_t ca = class_of(&bufs[a]), cb = class_of(&bufs[b]);
    if (ca != cb)
        return ca < cb;
    return bufs[a].first != bufs[b].first ? bufs[a].first < bufs[b].first : a < b;
}

void pl_fit_index(pl_fit *f, const pl_plan_buffer *bufs, uint32_t n, uint32_t *index)
{
    f->bufs = bufs;
    f->index = index;
    if (LIST_ONLY)
        return;
    for (uint32_t i = 0; i < n; i++)
        index[i] = i;
    pl_plan_sort(index, n, by_class, bufs);
    uint32_t k = 0;
    for (uint32_t c = 0; c <= PL_FIT_CLASSES; c++) {
        while (k < n && class_of(&bufs[index[k]]) < c)
            k++;
        f->start[c] = k;
    }
}

/* The first entry of index[lo, hi) that starts at or after from (first uses are >= 0). */
static uint32_t seek(const pl_fit *f, uint32_t lo, uint32_t hi, uint32_t from)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((uint32_t)f->bufs[f->index[mid]].first < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Collects into out the buffers live at a node of q's, placed ones only when off is given
** (off[i] != PL_FIT_UNPLACED), zero-size ones only when points; returns their count. */
uint32_t pl_fit_overlapping(const pl_fit *f, uint32_t q, const uint64_t *off, int points,
                            uint32_t *out)
{
    const pl_plan_buffer *b = &f->bufs[q];
    uint32_t k = 0;
    for (uint32_t c = 0; c < PL_FIT_CLASSES; c++) {
        uint32_t end = f->start[c + 1];
        uint32_t reach = ((uint32_t)1 << c) - 1, first = (uint32_t)b->first;
        uint32_t from = first > reach ? first - reach : 0;
        for (uint32_t e = seek(f, f->start[c], end, from); e < end; e++) {
            uint32_t id = f->index[e];
            const pl_plan_buffer *p = &f->bufs[id];
            if (p->first > b->last)
                break;
            if (p->last >= b->first && (p->size > 0 || points) &&
                (off == NULL || off[id] != PL_FIT_UNPLACED))
                out[k++] = id;
        }
    }
    return k;
}

/* {===== a min-heap of buffer ids by offset */

static void sift(uint32_t *h, uint32_t root, uint32_t n, const uint64_t *off)
{
    for (;;) {
        if (root >= n / 2)
            return;
        uint32_t child = 2 * root + 1;
        if (child + 1 < n && off[h[child + 1]] < off[h[child]])
            child++;
        if (off[h[root]] <= off[h[child]])
            return;
        uint32_t t = h[root];
        h[root] = h[child];
        h[child] = t;
        root = child;
    }
}

static void heapify(uint32_t *h, uint32_t n, const uint64_t *off)
{
    for (uint32_t i = n / 2; i-- > 0;)
        sift(h, i, n, off);
}

/* Removes and returns the lowest-offset id; n is the heap size before the call. */
static uint32_t pop(uint32_t *h, uint32_t n, const uint64_t *off)
{
    uint32_t top = h[0];
    h[0] = h[n - 1];
    sift(h, 0, n - 1, off);
    return top;
}

/* }===== */

/* {===== the walk over placed buffers in offset order, both rules */

typedef struct walk {
    uint64_t current; /* the highest end so far */
    uint64_t best;    /* the gap taken, UINT64_MAX while none */
    uint64_t room;    /* its size */
    uint32_t size;
    int best_fit;
} walk;

/* TFLM's first fit takes the first gap of at least size above every earlier end;
** SimpleMemoryArena::Allocate the smallest (the lowest of equals), and a gap of exactly size
** cannot be beaten. True once the answer is known. */
static int step(walk *w, uint64_t at, uint64_t end)
{
    if (at >= w->current && at - w->current >= w->size && at - w->current < w->room) {
        w->best = w->current;
        w->room = at - w->current;
        if (!w->best_fit || w->room == w->size)
            return 1;
    }
    w->current = end > w->current ? end : w->current;
    return 0;
}

/* The gap, else the end of the list. */
static uint64_t answer(const walk *w)
{
    return w->best != UINT64_MAX ? w->best : w->current;
}

/* }===== */

/* How the placed buffers are searched: a list while few are placed, then the index, then
** the list again for good if the index costs more (hits_or_list). */
typedef enum mode { EARLY_LIST, INDEX, LIST } mode;

typedef struct placer {
    const pl_fit *f;
    uint64_t *off;
    uint32_t *work;   /* the hits of one buffer, or the offset-ordered list */
    int points;       /* empty buffers count (TFLM's list) */
    mode by;
    uint32_t listed;  /* entries of the list */
    uint64_t spent;   /* heap work done so far, in entry moves */
    uint64_t walked;  /* what walking the whole list would have cost */
} placer;

/* Keeps the list in offset order (equal offsets in any order: see the top). */
static void list_add(placer *pl, uint32_t id)
{
    uint32_t lo = 0, hi = pl->listed;
    if (pl->f->bufs[id].size == 0 && !pl->points)
        return;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pl->off[pl->work[mid]] <= pl->off[id])
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&pl->work[lo + 1], &pl->work[lo], (pl->listed++ - lo) * sizeof *pl->work);
    pl->work[lo] = id;
}

/* Hits cost k log k heap moves where a walk of the list reads every placed buffer; once the
** heaps have cost a quarter of what the walks would have (a heap move costs several list
** reads: an indirect load and an unpredictable branch; many buffers live at once), the placed
** buffers go into one offset-ordered list for the rest of the plan. */
static uint32_t hits_or_list(placer *pl, uint32_t n, uint32_t q, uint32_t placed)
{
    uint32_t k = pl_fit_overlapping(pl->f, q, pl->off, pl->points, pl->work);
    pl->spent += (uint64_t)k * class_bits(k);
    pl->walked += placed;
    if (4 * pl->spent <= pl->walked) {
        heapify(pl->work, k, pl->off);
        return k;
    }
    pl->by = LIST;
    for (uint32_t i = 0; i < n; i++)
        if (pl->off[i] != PL_FIT_UNPLACED)
            list_add(pl, i);
    return 0;
}

/* Walks the list, passing over the buffers of other times. */
static uint64_t fit_by_list(const placer *pl, const pl_plan_buffer *b, walk *w)
{
    const pl_plan_buffer *bufs = pl->f->bufs;
    for (uint32_t e = 0; e < pl->listed; e++) {
        uint32_t p = pl->work[e];
        if (bufs[p].first <= b->last && b->first <= bufs[p].last &&
            step(w, pl->off[p], pl->off[p] + bufs[p].size))
            break;
    }
    return answer(w);
}

/* Walks the k hits out of the heap. */
static uint64_t fit_by_heap(const placer *pl, uint32_t k, walk *w)
{
    for (; k > 0; k--) {
        uint32_t p = pop(pl->work, k, pl->off);
        if (step(w, pl->off[p], pl->off[p] + pl->f->bufs[p].size))
            break;
    }
    return answer(w);
}

/* The offset of online, non-empty buffer q, placed after placed others. */
static uint64_t fit(placer *pl, uint32_t n, uint32_t q, uint32_t placed, int best_fit)
{
    const pl_plan_buffer *b = &pl->f->bufs[q];
    walk w = {0, UINT64_MAX, UINT64_MAX, b->size, best_fit};
    if (!LIST_ONLY && pl->by == EARLY_LIST && placed >= LIST_AFTER) {
        pl->by = INDEX; /* the list's entries are left behind: work holds hits from now on */
        pl->listed = 0;
    }
    if (!LIST_ONLY && pl->by == INDEX) {
        uint32_t k = hits_or_list(pl, n, q, placed);
        if (pl->by == INDEX)
            return fit_by_heap(pl, k, &w);
    }
    return fit_by_list(pl, b, &w);
}

void pl_fit_place(const pl_fit *f, uint32_t n, const uint32_t *order, uint32_t *work,
                  uint64_t *off, pl_fit_rule rule, pl_plan_poll *poll)
{
    placer pl = {f, off, work, rule == PL_FIT_FIRST_POINTS, LIST_ONLY ? LIST : EARLY_LIST, 0,
                 0, 0};
    for (uint32_t i = 0; i < n; i++)
        off[i] = PL_FIT_UNPLACED;
    for (uint32_t i = 0; i < n && !pl_plan_tick(poll); i++) {
        uint32_t id = order[i];
        const pl_plan_buffer *b = &f->bufs[id];
        if (b->offline_offset >= 0)
            off[id] = (uint64_t)b->offline_offset;
        else if (b->size == 0)
            off[id] = 0; /* what both walks give an empty buffer */
        else
            off[id] = fit(&pl, n, id, i, rule == PL_FIT_BEST);
        if (pl.by != INDEX)
            list_add(&pl, id);
    }
}
