/* softmax.c - SOFTMAX's fast path. int8 and int16 input: the exps of the possible
** differences to the row maximum computed once at prepare into the host block (256 for
** int8; for int16 up to 65536, as many as differ before the scaled difference clamps), then
** the portable kernel's own row arithmetic reading them (pl_softmax_s8_exps,
** pl_softmax_s16_exps), so the bits are the reference's: int8 to int8 and int16 by gathers
** on AVX2 and AVX-512 (softmax16.h; int8 to int16 in the portable row). float32:
** the vector exp of exp.h, bit for bit pl_fmath_expf, in the portable kernel's steps. */
#include "fast/exp.h"
#include "fast/fast.h"
#include "fast/isa_pick.h"
#include "fast/softmax16.h"
#include "kernels/activation/softmax_fast.h"

/* The host block: this header, then the int8 or int16 exps it points to. */
typedef struct softmax_plan {
    const pl_exp_kernels *f32; /* float32 */
    const int32_t *exps8;      /* int8 input: PL_SOFTMAX_EXPS */
    const int16_t *exps16;     /* int16: n16, then a 0 (padding for the gathers) */
    int32_t n16;
    pl_softmax16_rows rows16; /* int16 with vectors, NULL: the portable row */
    pl_softmax8_rows rows8;   /* int8 to int8 with vectors, NULL: the portable row */
    size_t depth, outer;      /* rows of depth values */
    size_t in_bytes, out_bytes; /* an element's */
} softmax_plan;

/* The vector int16 rows for isa, NULL for none. */
static pl_softmax16_rows rows16_for(pl_isa isa)
{
    PL_FAST_PICK(isa, pl_softmax16_avx512, pl_softmax16_avx2, (pl_softmax16_rows)NULL,
                 (pl_softmax16_rows)NULL, (pl_softmax16_rows)NULL);
    return NULL;
}

/* The vector int8 rows for isa, NULL for none. */
static pl_softmax8_rows rows8_for(pl_isa isa)
{
    PL_FAST_PICK(isa, pl_softmax8_avx2, pl_softmax8_avx2, (pl_softmax8_rows)NULL,
                 (pl_softmax8_rows)NULL, (pl_softmax8_rows)NULL);
    return NULL;
}

/* The vector rows when every exp is >= 0 (then their int32 products fit). */
static pl_softmax16_rows rows16_if_positive(pl_isa isa, const int16_t *exps, int32_t n)
{
    for (int32_t d = 0; d < n; d++)
        if (exps[d] < 0)
            return NULL;
    return rows16_for(isa);
}

/* A block of the header and bytes of exps after it (NULL when the host gives none). */
static softmax_plan *new_plan(const pl_node *node, size_t bytes)
{
    softmax_plan *pl = pl_fast_block_new(node, pl_fast_align64(sizeof *pl) + bytes);
    if (pl != NULL)
        *pl = (softmax_plan){.f32 = NULL};
    return pl;
}

static void *after(softmax_plan *pl)
{
    return (char *)pl + pl_fast_align64(sizeof *pl);
}

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_softmax_op *d = node->user_data;
    pl_tensor in, out;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK)
        return false;
    const pl_exp_kernels *k = pl_exp_for(pl_fast_isa_of(node));
    softmax_plan *pl = NULL;
    if (in.type == PL_FLOAT32 && k != NULL && (pl = new_plan(node, 0)) != NULL) {
        pl->f32 = k;
    } else if (in.type == PL_INT8 && (out.type == PL_INT8 || out.type == PL_INT16) &&
               (pl = new_plan(node, sizeof(int32_t) * PL_SOFTMAX_EXPS)) != NULL) {
        pl_softmax_exp_table(&d->p, after(pl));
        pl->exps8 = after(pl);
        pl->rows8 = out.type == PL_INT8 ? rows8_for(pl_fast_isa_of(node)) : NULL;
    } else if (in.type == PL_INT16 && out.type == PL_INT16) {
        int32_t n = pl_softmax_s16_exp_count(&d->p);
        if ((pl = new_plan(node, sizeof(int16_t) * ((size_t)n + 1))) == NULL)
            return false;
        int16_t *exps = after(pl);
        pl_softmax_s16_exp_table(&d->p, exps, n);
        exps[n] = 0;
        pl->exps16 = exps;
        pl->n16 = n;
        /* CMSIS-NN's wrapping last steps: the portable row (over the table) only */
        pl->rows16 = d->p.wraps ? NULL : rows16_if_positive(pl_fast_isa_of(node), exps, n);
    }
    if (pl == NULL)
        return false;
    pl->depth = in.ndims > 0 ? (size_t)in.dims[in.ndims - 1] : 1;
    pl->outer = pl->depth == 0 ? 0 : pl_tensor_count(&in) / pl->depth;
    pl->in_bytes = (size_t)pl_type_bytes(in.type, 1);
    pl->out_bytes = (size_t)pl_type_bytes(out.type, 1);
    return true;
}

pl_status pl_fast_softmax_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

/* Rows per task: about four tasks a worker (rows are independent: any split, the same
** bytes), and what an element weighs (an exp, or a gather and a rescale). */
enum { ROW_WORK = 30 };

typedef struct softmax_job {
    const softmax_plan *pl;
    const pl_softmax_params *p;
    const void *in;
    void *out;
} softmax_job;

/* Rows [at, at + count) by the node's kernel. */
static void rows_span(void *arg, int32_t worker, size_t at, size_t count)
{
    (void)worker;
    const softmax_job *j = arg;
    const softmax_plan *pl = j->pl;
    const size_t depth = pl->depth;
    const void *in = (const char *)j->in + at * depth * pl->in_bytes;
    void *out = (char *)j->out + at * depth * pl->out_bytes;
    if (pl->f32 != NULL)
        pl->f32->softmax(j->p->beta, in, out, count, depth);
    else if (pl->rows16 != NULL)
        pl->rows16(j->p, pl->exps16, pl->n16, in, out, count, depth);
    else if (pl->exps16 != NULL)
        pl_softmax_s16_exps(j->p, pl->exps16, pl->n16, in, out, count, depth);
    else if (pl->rows8 != NULL)
        pl->rows8(pl->exps8, in, out, count, depth);
    else if (pl->out_bytes == 1)
        pl_softmax_s8_exps(j->p, pl->exps8, in, out, count, depth);
    else
        pl_softmax_s8_s16_exps(j->p, pl->exps8, in, out, count, depth);
}

pl_status pl_fast_softmax_invoke(pl_context *ctx, pl_node *node)
{
    const softmax_plan *pl = pl_fast_block(node);
    if (pl == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const pl_softmax_op *d = node->user_data;
    const size_t outer = pl->outer;
    if (outer == 0)
        return PL_OK;
    softmax_job job = {pl, &d->p, pl_fast_data(ctx, pl_node_input(node, 0)),
                       pl_fast_data(ctx, pl_node_output(node, 0))};
    const size_t workers = (size_t)pl_fast_threads_of(node);
    size_t span = (outer + 4 * workers - 1) / (4 * workers);
    pl_fast_spans(node, outer, span, (double)(outer * pl->depth) * ROW_WORK, rows_span, &job);
    return PL_OK;
}
