/* logistic_tanh.c - LOGISTIC, TANH and GELU's fast path: for float32 the vector exp, tanh
** and GELU of exp.h, bit for bit pl_logistic_f32, pl_tanh_f32 and pl_gelu_f32 (the host
** block holds the kernel); on int8 and uint8 the portable kernel's own table (LOGISTIC and
** TANH: or its tabulated arithmetic) read by lut8.c's vector lookup; int16 keeps the portable
** kernel. */
#include "fast/exp.h"
#include "fast/fast.h"
#include "fast/lut8.h"
#include "kernels/activation/gelu_fast.h"

/* A float node's block: its kernel, and pl_fast_table_unread's state. */
typedef struct lanes_plan {
    uint8_t kind; /* PL_LANES_BLOCK */
    uint8_t unread;
    pl_fast_lanes_fn *fn;
    size_t count; /* the node's elements */
} lanes_plan;

/* The float kernel fn (none: false) into the node's block, and a note that the output is fn
** of the input (an elementwise node of both then computes fn itself: pl_fast_lanes_of). */
static bool plan(pl_context *ctx, const pl_node *node, pl_fast_lanes_fn *fn)
{
    pl_tensor in, out;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK)
        return false;
    pl_fast_table_drop(node, out.index);
    if (fn == NULL || in.type != PL_FLOAT32 || out.type != PL_FLOAT32)
        return false;
    lanes_plan *block = pl_fast_block_new(node, sizeof *block);
    if (block == NULL)
        return false;
    *block = (lanes_plan){PL_LANES_BLOCK, 0, fn, pl_tensor_count(&in)};
    if (!in.is_variable && !out.is_variable)
        pl_fast_lanes_note(ctx, node, out.index, in.index, block->fn);
    return true;
}

static bool is_byte(pl_context *ctx, const pl_node *node)
{
    pl_tensor in;
    return ctx->get_eval(ctx, pl_node_input(node, 0), &in) == PL_OK &&
           (in.type == PL_INT8 || in.type == PL_UINT8);
}

static bool plan_logistic(pl_context *ctx, const pl_node *node)
{
    const pl_exp_kernels *k = pl_exp_for(pl_fast_isa_of(node));
    return plan(ctx, node, k != NULL ? k->logistic : NULL);
}

static bool plan_tanh(pl_context *ctx, const pl_node *node)
{
    const pl_exp_kernels *k = pl_exp_for(pl_fast_isa_of(node));
    return plan(ctx, node, k != NULL ? k->tanhf : NULL);
}

static bool plan_gelu(pl_context *ctx, const pl_node *node)
{
    bool approximate = pl_table_i8(&node->options, PL_GELU_APPROXIMATE, 0) != 0;
    return plan(ctx, node, pl_fast_gelu_for(pl_fast_isa_of(node), approximate));
}

pl_status pl_fast_logistic_prepare(pl_context *ctx, pl_node *node)
{
    return is_byte(ctx, node) ? pl_fast_lut8_prepare(ctx, node)
                              : pl_fast_prepare(ctx, node, plan_logistic);
}

pl_status pl_fast_tanh_prepare(pl_context *ctx, pl_node *node)
{
    return is_byte(ctx, node) ? pl_fast_lut8_prepare(ctx, node)
                              : pl_fast_prepare(ctx, node, plan_tanh);
}

pl_status pl_fast_gelu_prepare(pl_context *ctx, pl_node *node)
{
    return is_byte(ctx, node) ? pl_fast_lut8_prepare(ctx, node)
                              : pl_fast_prepare(ctx, node, plan_gelu);
}

/* Float elements per task at most (each element on its own: any split gives the same
** bytes), and what one element's exp costs in multiply-adds (about 30 double operations). */
enum { LANES_TASK = 8192, EXP_WORK = 30 };

/* Elements per task: LANES_TASK, or fewer so that each worker has about four tasks (a 6x6x672
** logistic was 3 tasks: 2 threads ran 2 against 1, 1.14-1.34x one thread's speed). */
static size_t lanes_span_of(const pl_node *node, size_t n)
{
    const size_t workers = (size_t)pl_fast_reg_of(node)->owner->thread_count;
    size_t span = (n + 4 * workers - 1) / (4 * workers);
    span = (span + 63) / 64 * 64;
    return span < LANES_TASK ? span : LANES_TASK;
}

typedef struct lanes_job {
    pl_fast_lanes_fn *fn;
    const float *in;
    float *out;
} lanes_job;

static void lanes_span(void *arg, int32_t worker, size_t at, size_t count)
{
    (void)worker;
    const lanes_job *j = arg;
    j->fn(j->in + at, j->out + at, count);
}

pl_status pl_fast_logistic_tanh_invoke(pl_context *ctx, pl_node *node)
{
    void *block = pl_fast_block(node);
    if (block == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    if (*(const uint8_t *)block == PL_LUT8_BLOCK) /* lut8's plan: a table of the 8-bit types */
        return pl_fast_lut8_invoke_block(ctx, node, block);
    lanes_plan *lp = block;
    const int32_t out_index = pl_node_output(node, 0);
    float *out = pl_fast_data(ctx, out_index);
    const size_t n = lp->count;
    if (pl_fast_table_unread(ctx, node, &lp->unread, out_index, out, n * sizeof(float)))
        return PL_OK; /* every reader computes it from the input (pl_fast_table_claim) */
    lanes_job job = {lp->fn, pl_fast_data(ctx, pl_node_input(node, 0)), out};
    pl_fast_spans(node, n, lanes_span_of(node, n), (double)n * EXP_WORK, lanes_span, &job);
    return PL_OK;
}
