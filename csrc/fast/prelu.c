/* prelu.c - PRELU's fast path, float32 with alpha repeating along the input's last axes
** (alpha [C], [1,1,C], [W,C], [H,W,C], a scalar or the input's shape): a flat loop over rows
** of alpha's period instead of the portable kernel's broadcast walk. A short period is
** repeated in the host block (a row of at least ROW floats) when alpha is a constant;
** other alphas and shapes, int8 and uint8 keep the portable kernel. */
#include <stdint.h>
#include <string.h>

#include "fast/fast.h"
#include "fast/isa_pick.h"
#include "fast/prelu.h"
#include "kernels/activation/prelu_fast.h"

enum { ROW = 64 }; /* floats per row at least, when alpha is repeated */

typedef struct prelu_plan {
    size_t count, period; /* output elements; alpha's period (a row) */
    const float *rep;     /* alpha repeated to the period, NULL: alpha in place */
} prelu_plan;

/* Four lanes in the compilers' vector extension (SSE2 on x86-64, Advanced SIMD on arm64;
** the fast paths build only with GCC and Clang): the product, x >= 0 (ordered, so false for a
** NaN) and x's NaN test on every lane, then a bitwise select of x, the product or x quieted
** (pl_prelu_f32_one's rule: the product's NaN is not left to the operands' order). A plain
** loop is not vectorized: the compilers keep the comparison's branch (it may trap). */
typedef float f32x4 __attribute__((vector_size(16)));
typedef int32_t i32x4 __attribute__((vector_size(16)));

static void row_c(const float *in, const float *alpha, size_t m, float *out)
{
    const f32x4 zero = {0.0f, 0.0f, 0.0f, 0.0f};
    const i32x4 quiet = {PL_PRELU_QUIET_BIT, PL_PRELU_QUIET_BIT, PL_PRELU_QUIET_BIT,
                         PL_PRELU_QUIET_BIT};
    size_t j = 0;
    for (; j + 4 <= m; j += 4) {
        f32x4 x, a;
        i32x4 xb, yb;
        memcpy(&x, in + j, sizeof x);
        memcpy(&a, alpha + j, sizeof a);
        f32x4 y = x * a;
        i32x4 keep = x >= zero, nan = x != x;
        memcpy(&xb, &x, sizeof xb);
        memcpy(&yb, &y, sizeof yb);
        i32x4 r = (keep & xb) | (nan & (xb | quiet)) | (~(keep | nan) & yb);
        memcpy(out + j, &r, sizeof r);
    }
    for (; j < m; j++)
        out[j] = pl_prelu_f32_one(in[j], alpha[j]);
}

void pl_prelu_rows_c(const float *in, const float *alpha, size_t period, size_t n, float *out)
{
    for (size_t i = 0; i < n; i += period)
        row_c(in + i, alpha, n - i < period ? n - i : period, out + i);
}

pl_prelu_rows_fn pl_prelu_rows_for(pl_isa isa)
{
    PL_FAST_PICK(isa, pl_prelu_rows_avx2, pl_prelu_rows_avx2, pl_prelu_rows_c,
                 pl_prelu_rows_c, pl_prelu_rows_c);
    return pl_prelu_rows_c;
}

/* alpha's element count when it repeats along in's last axes (its dims, past leading 1s,
** are in's last dims), else 0. */
static size_t period_of(const pl_tensor *in, const pl_tensor *alpha)
{
    int32_t first = 0;
    while (first < alpha->ndims && alpha->dims[first] == 1)
        first++;
    int32_t tail = alpha->ndims - first;
    if (tail > in->ndims)
        return 0;
    size_t n = 1;
    for (int32_t k = 0; k < tail; k++) {
        if (alpha->dims[first + k] != in->dims[in->ndims - tail + k])
            return 0;
        n *= (size_t)alpha->dims[first + k];
    }
    return n;
}

static bool same_dims(const pl_tensor *a, const pl_tensor *b)
{
    return a->ndims == b->ndims &&
           memcmp(a->dims, b->dims, sizeof(int32_t) * (size_t)a->ndims) == 0;
}

/* Sets up the node's block; false: the portable kernel runs it. */
static bool plan(pl_context *ctx, const pl_node *node)
{
    pl_tensor in, alpha, out;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        pl_fast_eval_constant(ctx, node, pl_node_input(node, 1), &alpha) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK || in.type != PL_FLOAT32 ||
        !same_dims(&in, &out))
        return false;
    prelu_plan pl = {pl_tensor_count(&out), period_of(&in, &alpha), NULL};
    if (pl.period == 0 || pl.count == 0)
        return false;
    bool repeat = pl.period < ROW && pl.period < pl.count;
    if (repeat && (!alpha.is_constant || alpha.data == NULL))
        return false; /* a short alpha computed at invoke: the walk is as good */
    size_t times = repeat ? (ROW + pl.period - 1) / pl.period : 0;
    size_t head = pl_fast_align64(sizeof pl);
    uint8_t *block = pl_fast_block_new(node, head + times * pl.period * sizeof(float));
    if (block == NULL)
        return false;
    if (repeat) {
        float *rep = (float *)(block + head);
        for (size_t t = 0; t < times; t++)
            memcpy(rep + t * pl.period, alpha.data, pl.period * sizeof(float));
        pl.rep = rep;
        pl.period *= times;
    }
    memcpy(block, &pl, sizeof pl);
    pl_fast_claim_folds(node, 1, 1); /* invoke reads alpha through the fold too */
    return true;
}

pl_status pl_fast_prelu_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

/* Elements per task, in whole rows of alpha (each element on its own: the same bytes). */
enum { PRELU_TASK = 4096 };

typedef struct prelu_job {
    pl_prelu_rows_fn rows;
    const float *in, *alpha;
    float *out;
    size_t period, count, span;
} prelu_job;

static void prelu_span(void *arg, int32_t worker, int32_t task)
{
    (void)worker;
    const prelu_job *j = arg;
    size_t at = (size_t)task * j->span;
    j->rows(j->in + at, j->alpha, j->period, j->count - at < j->span ? j->count - at : j->span,
            j->out + at);
}

pl_status pl_fast_prelu_invoke(pl_context *ctx, pl_node *node)
{
    const prelu_plan *pl = pl_fast_block(node);
    if (pl == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    pl_tensor in, alpha, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(pl_fast_eval_constant(ctx, node, pl_node_input(node, 1), &alpha));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    if (pl_tensor_count(&out) != pl->count || pl_tensor_count(&in) != pl->count)
        return ctx->fail(ctx, PL_ERR_STATE, "shapes changed since prepare");
    prelu_job j = {pl_prelu_rows_for(pl_fast_isa_of(node)), in.data,
                   pl->rep != NULL ? pl->rep : alpha.data, out.data, pl->period, pl->count,
                   pl->period * (PRELU_TASK > pl->period ? PRELU_TASK / pl->period : 1)};
    pl_fast_parallel(node, (int32_t)((pl->count + j.span - 1) / j.span), (double)pl->count * 2,
                     prelu_span, &j);
    return PL_OK;
}
