/* join_split.c - the fast path of the copies along an axis, any element type: CONCATENATION
** and PACK join their inputs, SPLIT, SPLIT_V and UNPACK split their input. The portable
** kernels copy a memcpy per tensor and outer index; here one pass per tensor puts its runs
** into their places in the joined tensor (or takes them out), runs under 256 bytes as inline
** moves (runs.h's pl_fast_copy_runs, which SLICE's, STRIDED_SLICE's and TRANSPOSE's gathers
** use too). A memcpy call costs about 12 cycles whatever its size: four 48x88x1 int8 inputs
** (runs of one byte) took 46 us, now 4.7; channel concatenations of 8 to 32 bytes a run, as
** in U-Nets, 22 -> 5.6 us. A copy: the portable kernels' bytes. */
#include <string.h>

#include "fast/fast.h"
#include "fast/runs.h"
#include "kernels/shape/join_split_fast.h"

enum { OP_CONCATENATION = 2, OP_SPLIT = 49, OP_PACK = 83, OP_UNPACK = 88 };
enum { MAX_UNITS = PL_CONCATENATION_MAX_INPUTS > PL_SPLIT_MAX_OUTPUTS
                       ? PL_CONCATENATION_MAX_INPUTS : PL_SPLIT_MAX_OUTPUTS };

typedef struct join_split_plan {
    bool join;               /* units -> joined (else joined -> units) */
    int32_t joined;          /* the joined tensor's index */
    uint32_t n;              /* units: the joins' inputs, the splits' outputs */
    size_t outer;            /* runs per unit */
    size_t stride;           /* joined bytes per outer index */
    size_t run[MAX_UNITS];   /* bytes of unit k per outer index */
} join_split_plan;

static int32_t unit_index(const pl_node *node, bool join, uint32_t k)
{
    return join ? pl_node_input(node, k) : pl_node_output(node, k);
}

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_join_split_op *d = node->user_data;
    const int32_t code = node->builtin_code;
    join_split_plan p = {.join = code == OP_CONCATENATION || code == OP_PACK, .outer = 1};
    p.n = p.join ? node->inputs.n : node->outputs.n;
    p.joined = p.join ? pl_node_output(node, 0) : pl_node_input(node, code == OP_SPLIT);
    pl_tensor t;
    if (p.n > MAX_UNITS || ctx->get_eval(ctx, p.joined, &t) != PL_OK || d->axis < 0 ||
        d->axis >= t.ndims)
        return false;
    for (int32_t a = 0; a < d->axis; a++)
        p.outer *= (size_t)t.dims[a];
    const size_t esize = pl_type_size(t.type);
    if (p.outer == 0 || esize == 0)
        return false;
    for (uint32_t k = 0; k < p.n; k++) {
        if (ctx->get_eval(ctx, unit_index(node, p.join, k), &t) != PL_OK)
            return false;
        p.run[k] = pl_tensor_count(&t) / p.outer * esize;
        p.stride += p.run[k];
    }
    if (p.stride == 0) /* nothing to copy */
        return false;
    return pl_fast_block_put(node, &p, sizeof p);
}

pl_status pl_fast_join_split_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

/* Outer indices a task copies: about this many bytes of the joined tensor. */
enum { TASK_BYTES = 16384 };

typedef struct join_split_job {
    const join_split_plan *p;
    uint8_t *joined;
    uint8_t *const *unit;
} join_split_job;

/* Outer indices [at, at + count) of every unit. */
static void copy_span(void *arg, int32_t worker, size_t at, size_t count)
{
    (void)worker;
    const join_split_job *j = arg;
    const join_split_plan *p = j->p;
    uint8_t *joined = j->joined + at * p->stride;
    for (uint32_t k = 0; k < p->n; joined += p->run[k], k++) {
        if (p->run[k] == 0)
            continue;
        uint8_t *unit = j->unit[k] + at * p->run[k];
        if (p->join)
            pl_fast_copy_runs(joined, (int64_t)p->stride, unit, (int64_t)p->run[k], p->run[k],
                              count);
        else
            pl_fast_copy_runs(unit, (int64_t)p->run[k], joined, (int64_t)p->stride, p->run[k],
                              count);
    }
}

pl_status pl_fast_join_split_invoke(pl_context *ctx, pl_node *node)
{
    const join_split_plan *p = pl_fast_block(node);
    uint8_t *joined = p == NULL ? NULL : pl_fast_data(ctx, p->joined);
    if (joined == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    uint8_t *unit[MAX_UNITS];
    for (uint32_t k = 0; k < p->n; k++) {
        unit[k] = pl_fast_data(ctx, unit_index(node, p->join, k));
        if (unit[k] == NULL && p->run[k] > 0)
            return pl_fast_reg_of(node)->base->invoke(ctx, node);
    }
    /* in spans of outer indices split over the threads, as any large copy (fold.c) */
    join_split_job j = {p, joined, unit};
    const size_t span = p->stride >= TASK_BYTES ? 1 : TASK_BYTES / p->stride;
    pl_fast_spans(node, p->outer, span, (double)(p->outer * p->stride) / 4, copy_span, &j);
    return PL_OK;
}
