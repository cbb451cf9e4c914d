/* tflm.c - a TFLM target's arena figures: the program built, planned, replayed and searched.
**
** The smallest arena is found by bisection against the replay: every tail position TFLM
** computes only grows with the arena's size, and the head and temp positions do not depend
** on it, so success is monotonic in the size. */
#include "picolite/pl_tflm.h"

#include <string.h>

#include "runtime/state.h"
#include "tflm/allocation_info.h"
#include "tflm/program.h"
#include "tflm/sim.h"

/* The "large arena" of figures asked without a size: a multiple of 16, well inside the
** 2 GiB TFLM's planner can count in an int. */
#define LARGE_ARENA ((uint64_t)1 << 30)

#define VAR_HANDLE 142
#define VAR_HANDLE_SHARED_NAME 1

static bool same_string(pl_bytes a, pl_bytes b)
{
    return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

static pl_bytes shared_name(const pl_model *m, const pl_subgraph *sg, uint32_t i, bool *is)
{
    pl_op_view op;
    pl_opcode_view oc;
    pl_bytes name = {NULL, 0};
    pl_model_operator(m, sg, i, &op);
    pl_model_opcode(m, op.opcode_index, &oc);
    *is = oc.builtin_code == VAR_HANDLE;
    if (*is) {
        pl_vec v = pl_table_vec(&op.options, VAR_HANDLE_SHARED_NAME, 1);
        name.p = v.p;
        name.n = v.n;
    }
    return name;
}

/* Distinct shared names of the model's VAR_HANDLE operators: the variables the wheel (and a
** firmware following its example) makes room for. */
static bool seen_before(const pl_model *m, uint32_t k, uint32_t i, pl_bytes name)
{
    for (uint32_t k2 = 0; k2 <= k; k2++) {
        pl_subgraph sg;
        pl_model_subgraph(m, k2, &sg);
        for (uint32_t i2 = 0; i2 < (k2 == k ? i : sg.operators.n); i2++) {
            bool is;
            pl_bytes other = shared_name(m, &sg, i2, &is);
            if (is && same_string(other, name))
                return true;
        }
    }
    return false;
}

static uint32_t resource_variables(const pl_interp *it)
{
    uint32_t count = 0;
    for (uint32_t k = 0; k < it->subgraph_count; k++) {
        pl_subgraph sg;
        pl_model_subgraph(&it->model, k, &sg);
        for (uint32_t i = 0; i < sg.operators.n; i++) {
            bool is;
            pl_bytes name = shared_name(&it->model, &sg, i, &is);
            if (is && !seen_before(&it->model, k, i, name))
                count++;
        }
    }
    return count;
}

static pl_tflm_kernels kernels_of(pl_target target)
{
    switch (target) {
    case PL_TARGET_TFLM_CMSIS_NN: return PL_TFLM_CMSIS_NN_DSP;
    case PL_TARGET_TFLM_CMSIS_NN_MVE: return PL_TFLM_CMSIS_NN_MVE;
    case PL_TARGET_TFLM_CMSIS_NN_NODSP: return PL_TFLM_CMSIS_NN_NODSP;
    default: return PL_TFLM_REFERENCE;
    }
}

static pl_status start(const pl_interp *it, pl_target target, pl_tflm_program *p,
                       pl_error *err)
{
    memset(p, 0, sizeof *p);
    p->it = it;
    p->err = err;
    p->abi = pl_tflm_abi_of(target);
    if (p->abi == NULL)
        return pl_error_set(err, PL_ERR_ARG, "TFLM arena: target '%s' is not a TFLM target",
                            pl_target_name(target) != NULL ? pl_target_name(target) : "?");
    if (it == NULL || !it->allocated)
        return pl_error_set(err, PL_ERR_STATE, "TFLM arena: the interpreter is not allocated");
    p->kernels = kernels_of(target);
    p->resource_vars = resource_variables(it);
    return pl_tflm_program_build(p); /* capacity 0: counts */
}

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static size_t layout(const pl_tflm_program *p)
{
    return align8(p->event_count * sizeof(pl_tflm_event)) +
           align8(p->request_count * sizeof(pl_tflm_request)) + pl_tflm_plan_scratch_size(p) +
           8;
}

pl_status pl_tflm_arena_scratch_size(const pl_interp *it, pl_target target, size_t *size,
                                     pl_error *err)
{
    pl_tflm_program p;
    *size = 0;
    PL_TRY(start(it, target, &p, err));
    *size = layout(&p);
    return PL_OK;
}

static bool works(const pl_tflm_program *p, bool recording, uint64_t size)
{
    pl_tflm_sim s;
    pl_tflm_sim_run(p->events, p->event_count, recording, size, &s);
    return s.ok;
}

/* The smallest size in steps of step that works (hi works, lo does not). */
static uint64_t smallest(const pl_tflm_program *p, bool recording, uint64_t step)
{
    uint64_t lo = 0, hi = LARGE_ARENA / step;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (works(p, recording, mid * step))
            hi = mid;
        else
            lo = mid;
    }
    return hi * step;
}

static void fill_recording(const pl_tflm_program *p, const pl_tflm_plan *plan, uint64_t size,
                           pl_recording *out)
{
    pl_tflm_sim s;
    if (!works(p, true, size)) /* a plain firmware's arena may be too small to record */
        size = LARGE_ARENA + size % PL_TFLM_ALIGN;
    pl_tflm_sim_run(p->events, p->event_count, true, size, &s);
    *out = s.rec;
    out->head_tensors = plan->head_tensors;
    out->head_scratch = plan->scratch_bytes;
    out->lower_bound = plan->lower_bound;
    out->planner = PL_PLANNER_GREEDY;
    out->temp_high_water = (size_t)(s.temp_peak - s.head);
    out->peak = (size_t)smallest(p, true, 1);
}

/* The plan's results written into the program: the planner's buffer count and the head. */
static void patch(pl_tflm_program *p, const pl_tflm_plan *plan)
{
    p->events[p->planned_events].count = plan->buffers;
    p->events[p->planned_events + 4].size = plan->head;
}

pl_status pl_tflm_arena(const pl_interp *it, pl_target target, size_t arena_size,
                        void *scratch, size_t scratch_size, pl_tflm_arena_figures *out,
                        pl_error *err)
{
    pl_tflm_program p;
    pl_tflm_plan plan;
    pl_tflm_sim s;
    memset(out, 0, sizeof *out);
    PL_TRY(start(it, target, &p, err));
    if (scratch == NULL || scratch_size < layout(&p))
        return pl_error_set(err, PL_ERR_ARG, "TFLM arena: scratch of %zu bytes, %zu needed",
                            scratch_size, layout(&p));
    uint8_t *s8 = (uint8_t *)(((uintptr_t)scratch + 7) & ~(uintptr_t)7);
    p.events = (pl_tflm_event *)(void *)s8;
    p.event_cap = p.event_count;
    s8 += align8(p.event_count * sizeof(pl_tflm_event));
    p.requests = (pl_tflm_request *)(void *)s8;
    p.request_cap = p.request_count;
    s8 += align8(p.request_count * sizeof(pl_tflm_request));
    PL_TRY(pl_tflm_program_build(&p));
    PL_TRY(pl_tflm_plan_run(&p, s8, scratch_size - (size_t)(s8 - (uint8_t *)scratch), &plan,
                            err));
    patch(&p, &plan);
    bool recording = p.abi->wheel; /* the wheel's interpreter records; a firmware does not */
    if (!works(&p, recording, LARGE_ARENA))
        return pl_error_set(err, PL_ERR_UNSUPPORTED, "TFLM arena: TFLM's AllocateTensors "
                            "would fail for this model at any arena size");
    out->target = target;
    out->min_arena_bytes = (size_t)smallest(&p, recording, 1);
    out->min_arena_bytes_16 = (size_t)smallest(&p, recording, PL_TFLM_ALIGN);
    out->planned_buffers = plan.buffers;
    out->scratch_buffers = p.request_count;
    uint64_t size = arena_size != 0 ? arena_size : LARGE_ARENA;
    out->arena_size = arena_size;
    if (arena_size != 0 && arena_size < out->min_arena_bytes) {
        if (err != NULL) {
            err->required = out->min_arena_bytes;
            err->available = arena_size;
        }
        return pl_error_set(err, PL_ERR_ARENA, "TFLM (%s) needs an arena of %zu bytes, "
                            "%zu given", pl_target_name(target), out->min_arena_bytes,
                            arena_size);
    }
    pl_tflm_sim_run(p.events, p.event_count, recording, size, &s);
    out->head = (size_t)s.head;
    out->tail = (size_t)s.tail;
    out->arena_used_bytes = out->head + out->tail;
    fill_recording(&p, &plan, size, &out->recording);
    return PL_OK;
}
