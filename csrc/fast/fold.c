/* fold.c - DEQUANTIZE of a constant, computed once: float16 or int8 weights that a model
** dequantizes at every invoke (MediaPipe's, TensorFlow's float16 quantization). Prepare runs
** the portable kernel's invoke with its output redirected to host memory, so the values are
** the portable kernel's bits; the fast paths after it (CONV_2D, DEPTHWISE_CONV_2D,
** FULLY_CONNECTED, TRANSPOSE_CONV, UNIDIRECTIONAL_SEQUENCE_LSTM, PRELU's alpha) find them
** through pl_fast_eval_constant and pack them as they pack a model constant. Invoke writes
** the output in the arena, by a copy split over the threads, unless nobody would read it:
** every node input naming it claimed the folded values (pl_fast_fold_claim) and no one else
** may look (ctx->reader_count: not a subgraph output, not every tensor preserved; a user
** cannot read an intermediate whose memory is shared). That copy was a tenth of a float16
** face-detection model's time on two threads. The arena, the plan and the node's op data
** are the portable kernel's. Kept
** portable: a variable output (dequantized once by the portable kernel, then
** updated in place) and models with more than one subgraph (folds are found by tensor index,
** and a kernel does not see its subgraph). A DEQUANTIZE of a computed tensor takes quant.c's
** vector loop instead. */
#include <string.h>

#include "fast/fast.h"
#include "fast/quant.h"

/* A context whose get_eval gives one tensor the data of a host block. */
typedef struct redirect {
    pl_context ctx; /* first: the kernel is handed this */
    pl_context *base;
    int32_t index;
    void *data;
} redirect;

static pl_status redirected_eval(pl_context *ctx, int32_t index, pl_tensor *out)
{
    const redirect *r = (const redirect *)ctx;
    PL_TRY(r->base->get_eval(r->base, index, out));
    if (index == r->index)
        out->data = r->data;
    return PL_OK;
}

/* Folds are found by tensor index, which names one tensor only in a one-subgraph model (a
** test harness's context has no model: no folds). */
static bool one_subgraph(const pl_context *ctx)
{
    return ctx->subgraph_count == 1;
}

/* Sets up the folded values; false: the portable kernel runs the node. */
static bool plan(pl_context *ctx, pl_node *node)
{
    pl_tensor in, out;
    if (!one_subgraph(ctx) || ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK || in.index < 0 ||
        out.index < 0 || !in.is_constant || in.data == NULL || out.is_variable ||
        out.type != PL_FLOAT32 || out.bytes == 0)
        return false;
    void *values = pl_fast_fold_new(node, out.index, out.bytes);
    if (values == NULL)
        return false;
    redirect r = {*ctx, ctx, out.index, values};
    r.ctx.get_eval = redirected_eval;
    /* the block only marks the node as folded */
    uint8_t *mark = NULL;
    if (pl_fast_reg_of(node)->base->invoke(&r.ctx, node) != PL_OK ||
        (mark = pl_fast_block_new(node, 1)) == NULL) {
        pl_fast_fold_drop(node, out.index);
        return false;
    }
    *mark = PL_DEQUANTIZE_FOLDED; /* the first invoke settles COPIED or UNREAD */
    return true;
}

pl_status pl_fast_dequantize_prepare(pl_context *ctx, pl_node *node)
{
    PL_TRY(pl_fast_reg_of(node)->base->prepare(ctx, node));
    if (!plan(ctx, node)) {
        pl_fast_block_drop(node);
        pl_fast_fold_drop(node, pl_node_output(node, 0)); /* none stays from a former prepare */
        pl_fast_dequantize_runtime_plan(ctx, node);
    }
    return PL_OK;
}

/* Bytes per task of the copy (each its own bytes: any split copies the same). */
enum { COPY_TASK = 65536 };

typedef struct copy_job {
    uint8_t *dst;
    const uint8_t *src;
} copy_job;

static void copy_span(void *arg, int32_t worker, size_t at, size_t count)
{
    (void)worker;
    const copy_job *j = arg;
    memcpy(j->dst + at, j->src + at, count);
}

/* Whether every reader of the output claimed the folded values (asked at invoke: the
** readers' prepares come after this node's, and the plan after them all). */
static bool unread(pl_context *ctx, const pl_node *node, int32_t index)
{
    return pl_fast_every_reader_claimed(ctx, pl_fast_fold_claims(node, index), index);
}

pl_status pl_fast_dequantize_invoke(pl_context *ctx, pl_node *node)
{
    uint8_t *block = pl_fast_block(node);
    if (block == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    if (*block == PL_DEQUANTIZE_RUNTIME)
        return pl_fast_dequantize_runtime_invoke(ctx, node);
    pl_tensor out;
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    const void *values = pl_fast_fold(node, out.index, out.bytes);
    if (values == NULL)
        return ctx->fail(ctx, PL_ERR_STATE, "DEQUANTIZE: the folded values are gone");
    if (*block == PL_DEQUANTIZE_FOLDED)
        *block = unread(ctx, node, out.index) ? PL_DEQUANTIZE_UNREAD : PL_DEQUANTIZE_COPIED;
    pl_fast_resolver *r = pl_fast_reg_of(node)->owner;
    if (*block == PL_DEQUANTIZE_UNREAD) {
        r->unread_folds++;
        if (r->poison_unread)
            memset(out.data, 0xFF, out.bytes);
        return PL_OK;
    }
    /* in spans split over the threads, as any large copy (2 threads: 37 of a 580 us
    ** face-detection-like invoke on the caller alone) */
    copy_job j = {out.data, values};
    pl_fast_spans(node, out.bytes, COPY_TASK, (double)out.bytes / 4, copy_span, &j);
    return PL_OK;
}

void pl_fast_use_fold(const pl_context *ctx, const pl_node *node, pl_tensor *t)
{
    if (t->is_constant || t->index < 0 || !one_subgraph(ctx))
        return;
    const void *values = pl_fast_fold(node, t->index, t->bytes);
    if (values != NULL) {
        t->data = (void *)(uintptr_t)values;
        t->is_constant = true;
    }
}

pl_status pl_fast_eval_constant(pl_context *ctx, const pl_node *node, int32_t index,
                                pl_tensor *out)
{
    PL_TRY(ctx->get_eval(ctx, index, out));
    pl_fast_use_fold(ctx, node, out);
    return PL_OK;
}
