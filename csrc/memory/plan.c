/* plan.c - the planner interface: validation, scratch, dispatch, the lower bound. */
#include "picolite/pl_plan.h"

#include <string.h>

#include "memory/planners.h"

/* Scratch starts with a 64-bit offset per buffer; 8 bytes of slack let it be aligned. */
#define SCRATCH_SLACK 8

static const char *const names[PL_PLANNER_COUNT] = {"greedy", "bestfit", "linear", "optimal"};

const char *pl_planner_name(pl_planner planner)
{
    return (unsigned)planner < PL_PLANNER_COUNT ? names[planner] : NULL;
}

pl_status pl_planner_from_name(const char *name, pl_planner *out, pl_error *err)
{
    for (int i = 0; name != NULL && i < PL_PLANNER_COUNT; i++) {
        if (strcmp(name, names[i]) == 0) {
            *out = (pl_planner)i;
            return PL_OK;
        }
    }
    return pl_error_set(err, PL_ERR_ARG,
                        "unknown planner '%s' (known: greedy, bestfit, linear, optimal)",
                        name != NULL ? name : "(null)");
}

/* A device build may keep TFLM's greedy planner alone (offline plans still apply): the host
** planners are then never referenced, so not linked. */
#ifdef PL_GREEDY_ONLY
#define HOST_PLANNERS 0
#else
#define HOST_PLANNERS 1
#endif

static size_t planner_scratch(pl_planner planner, uint32_t count)
{
    if (!HOST_PLANNERS)
        return pl_greedy_scratch_size(count);
    switch (planner) {
    case PL_PLANNER_GREEDY: return pl_greedy_scratch_size(count);
    case PL_PLANNER_BESTFIT: return pl_bestfit_scratch_size(count);
    case PL_PLANNER_LINEAR: return pl_linear_scratch_size(count);
    default: return pl_optimal_scratch_size(count);
    }
}

size_t pl_plan_scratch_size(pl_planner planner, uint32_t count)
{
    size_t own = planner_scratch(planner, count);
    size_t offsets = pl_plan_array_bytes(count, sizeof(uint64_t));
    if (own == SIZE_MAX || offsets > SIZE_MAX - SCRATCH_SLACK - own)
        return SIZE_MAX;
    return SCRATCH_SLACK + offsets + own;
}

static pl_status check_lifetimes(const pl_plan_buffer *bufs, uint32_t count, pl_error *err)
{
    for (uint32_t i = 0; i < count; i++) {
        const pl_plan_buffer *b = &bufs[i];
        if (b->first < 0 || b->first > b->last)
            return pl_error_set(err, PL_ERR_ARG,
                                "plan buffer %u: bad lifetime [%d, %d] (need 0 <= first <= last)",
                                i, b->first, b->last);
        if (b->offline_offset < -1)
            return pl_error_set(err, PL_ERR_ARG, "plan buffer %u: bad offline offset %d", i,
                                b->offline_offset);
    }
    return PL_OK;
}

/* Offline buffers are placed as given, so two of them sharing bytes and a node is a bad
** plan that no planner could repair. */
static pl_status check_offline(const pl_plan_buffer *bufs, uint32_t count, pl_error *err)
{
    for (uint32_t i = 0; i < count; i++) {
        const pl_plan_buffer *a = &bufs[i];
        for (uint32_t j = i + 1; a->offline_offset >= 0 && a->size > 0 && j < count; j++) {
            const pl_plan_buffer *b = &bufs[j];
            if (b->offline_offset < 0 || b->size == 0 || !pl_plan_overlap_in_time(a, b))
                continue;
            uint64_t a0 = (uint64_t)a->offline_offset, b0 = (uint64_t)b->offline_offset;
            if (a0 < b0 + b->size && b0 < a0 + a->size)
                return pl_error_set(err, PL_ERR_ARG,
                                    "offline buffers %u [%u, +%u) and %u [%u, +%u) overlap "
                                    "in time and space", i, (unsigned)a0, a->size, j,
                                    (unsigned)b0, b->size);
        }
    }
    return PL_OK;
}

static void run_planner(pl_planner planner, const pl_plan_buffer *bufs, uint32_t count,
                        uint64_t *off, void *rest, pl_plan_poll *poll)
{
    if (!HOST_PLANNERS) {
        pl_greedy_plan(bufs, count, off, rest, poll);
        return;
    }
    switch (planner) {
    case PL_PLANNER_GREEDY: pl_greedy_plan(bufs, count, off, rest, poll); break;
    case PL_PLANNER_BESTFIT: pl_bestfit_plan(bufs, count, off, rest, poll); break;
    case PL_PLANNER_LINEAR: pl_linear_plan(bufs, count, off, rest, poll); break;
    default: pl_optimal_plan(bufs, count, off, rest, poll); break;
    }
}

pl_status pl_plan_compute(pl_planner planner, pl_plan_buffer *bufs, uint32_t count,
                          void *scratch, size_t scratch_size, uint32_t *total, pl_error *err)
{
    return pl_plan_compute_polled(planner, bufs, count, scratch, scratch_size, total, NULL,
                                  NULL, err);
}

pl_status pl_plan_compute_polled(pl_planner planner, pl_plan_buffer *bufs, uint32_t count,
                                 void *scratch, size_t scratch_size, uint32_t *total,
                                 pl_plan_poll_fn poll_fn, void *poll_ctx, pl_error *err)
{
    if ((unsigned)planner >= PL_PLANNER_COUNT)
        return pl_error_set(err, PL_ERR_ARG, "unknown planner %d", (int)planner);
    if (!HOST_PLANNERS && planner != PL_PLANNER_GREEDY)
        return pl_error_set(err, PL_ERR_UNSUPPORTED,
                            "planner %s is not in this build (PL_GREEDY_ONLY)", names[planner]);
    if ((bufs == NULL && count > 0) || total == NULL)
        return pl_error_set(err, PL_ERR_ARG, "plan: NULL %s", total == NULL ? "total" : "buffers");
    PL_TRY(check_lifetimes(bufs, count, err));
    PL_TRY(check_offline(bufs, count, err));
    size_t need = pl_plan_scratch_size(planner, count);
    if (scratch == NULL || scratch_size < need)
        return pl_error_set(err, PL_ERR_ARG,
                            "planner %s needs %zu bytes of scratch for %u buffers, got %zu",
                            names[planner], need, count, scratch == NULL ? 0 : scratch_size);
    size_t pad = (size_t)(-(uintptr_t)scratch & (SCRATCH_SLACK - 1));
    uint64_t *off = (uint64_t *)(void *)((uint8_t *)scratch + pad);
    pl_plan_poll poll = {poll_fn, poll_ctx, PL_PLAN_POLL_EVERY, 0};
    run_planner(planner, bufs, count, off, off + count, &poll);
    if (poll.stopped)
        return pl_error_set(err, PL_ERR_STATE, "plan interrupted: the host's poll asked the "
                            "%s planner to stop (%u buffers)", names[planner], count);
    uint64_t head = pl_plan_total(bufs, count, off);
    if (head > UINT32_MAX)
        return pl_error_set(err, PL_ERR_ARG, "plan: %s head of %llu bytes exceeds 4 GiB",
                            names[planner], (unsigned long long)head);
    for (uint32_t i = 0; i < count; i++)
        bufs[i].offset = (uint32_t)off[i];
    *total = (uint32_t)head;
    return PL_OK;
}

uint64_t pl_plan_lower_bound(const pl_plan_buffer *bufs, uint32_t count)
{
    /* The live sum only rises where a buffer starts, so those nodes are enough. */
    uint64_t best = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t live = 0;
        for (uint32_t j = 0; j < count; j++)
            if (bufs[j].first <= bufs[i].first && bufs[i].first <= bufs[j].last)
                live += bufs[j].size;
        if (live > best)
            best = live;
    }
    return best;
}

size_t pl_plan_lower_bound_scratch_size(uint32_t count)
{
    return pl_plan_array_bytes(count, 2 * sizeof(uint32_t));
}

static int starts_before(const void *ctx, uint32_t a, uint32_t b)
{
    const pl_plan_buffer *bufs = ctx;
    return bufs[a].first != bufs[b].first ? bufs[a].first < bufs[b].first : a < b;
}

static int ends_before(const void *ctx, uint32_t a, uint32_t b)
{
    const pl_plan_buffer *bufs = ctx;
    return bufs[a].last != bufs[b].last ? bufs[a].last < bufs[b].last : a < b;
}

/* A sweep over node indices: at each buffer's first node, drop those ended before it. */
uint64_t pl_plan_lower_bound_sorted(const pl_plan_buffer *bufs, uint32_t count, void *scratch)
{
    uint32_t *starts = scratch, *ends = starts + count;
    for (uint32_t i = 0; i < count; i++)
        starts[i] = ends[i] = i;
    pl_plan_sort(starts, count, starts_before, bufs);
    pl_plan_sort(ends, count, ends_before, bufs);
    uint64_t live = 0, best = 0;
    uint32_t e = 0;
    for (uint32_t i = 0; i < count; i++) {
        const pl_plan_buffer *b = &bufs[starts[i]];
        while (e < count && bufs[ends[e]].last < b->first)
            live -= bufs[ends[e++]].size;
        live += b->size;
        if (live > best)
            best = live;
    }
    return best;
}

/* {===== helpers shared by the planners */

int pl_plan_tick(pl_plan_poll *poll)
{
    if (poll->stopped || poll->fn == NULL || --poll->left > 0)
        return poll->stopped;
    poll->left = PL_PLAN_POLL_EVERY;
    poll->stopped = poll->fn(poll->ctx) != 0;
    return poll->stopped;
}

size_t pl_plan_array_bytes(uint32_t count, size_t per)
{
    return per != 0 && count > SIZE_MAX / per ? SIZE_MAX : count * per;
}

uint64_t pl_plan_total(const pl_plan_buffer *bufs, uint32_t n, const uint64_t *off)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        if (off[i] + bufs[i].size > total)
            total = off[i] + bufs[i].size;
    return total;
}

int pl_plan_overlap_in_time(const pl_plan_buffer *a, const pl_plan_buffer *b)
{
    return a->first <= b->last && b->first <= a->last;
}

static void sift_down(uint32_t *ids, uint32_t root, uint32_t n, pl_plan_before_fn before,
                      const void *ctx)
{
    for (;;) {
        if ((uint64_t)root * 2 + 1 >= n)
            return;
        uint32_t child = root * 2 + 1;
        /* A max-heap under "before": the element that goes last sits at the root. */
        if (child + 1 < n && before(ctx, ids[child], ids[child + 1]))
            child++;
        if (!before(ctx, ids[root], ids[child]))
            return;
        uint32_t t = ids[root];
        ids[root] = ids[child];
        ids[child] = t;
        root = child;
    }
}

void pl_plan_sort(uint32_t *ids, uint32_t n, pl_plan_before_fn before, const void *ctx)
{
    for (uint32_t i = n / 2; i-- > 0;)
        sift_down(ids, i, n, before, ctx);
    for (uint32_t end = n; end-- > 1;) {
        uint32_t t = ids[0];
        ids[0] = ids[end];
        ids[end] = t;
        sift_down(ids, 0, end, before, ctx);
    }
}

/* }===== */
