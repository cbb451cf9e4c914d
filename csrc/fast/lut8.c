/* lut8.c - 8-bit activations whose output byte depends on the input byte alone (quantized
** HARD_SWISH, LEAKY_RELU, RELU, RELU6, RELU_N1_TO_1; LOGISTIC, TANH and GELU through
** logistic_tanh.c; int8 RSQRT, whose inputs below the zero point go to the portable kernel
** to be refused): prepare runs the portable arithmetic once on all 256 inputs into the host
** block (LOGISTIC and TANH: the portable kernel's table, or its int8 per-element arithmetic
** on all 256 bytes; GELU: its table), invoke looks each byte up, with vector shuffles where
** the CPU has them.
** The table holds the portable kernel's own results, so the bits are the reference's; the
** arena is not touched (TFLM computes all of these per element, int8 LOGISTIC and TANH
** included, and so does the portable kernel for those two). Float HARD_SWISH, LEAKY_RELU and
** the unary math whose portable step is one IEEE operation (FLOOR, CEIL, NEG, SQRT, RSQRT,
** SQUARE) run the elementwise table's vector loops of that arithmetic instead, float RELU,
** RELU6 and RELU_N1_TO_1 the portable loop itself. Every one of them runs in spans split over
** the threads. */
#include <math.h>
#include <string.h>

#include "fast/elementwise.h"
#include "fast/fast.h"
#include "fast/isa_pick.h"
#include "fast/lut8.h"
#include "kernels/activation/activations_fast.h"
#include "kernels/activation/gelu_fast.h"
#include "kernels/activation/logistic_tanh_fast.h"
#include "kernels/elementwise/math_fast.h"

enum { TABLE = 256 };

typedef struct lut8_plan {
    uint8_t kind; /* PL_LUT8_BLOCK */
    pl_lut8_fn lookup;
    void (*f32)(const float *in, float *out, size_t n); /* float HARD_SWISH: no table */
    void (*unary_f32)(pl_ew_unary op, float alpha, const float *in, float *out, size_t n);
    pl_ew_unary op; /* unary_f32's operation (float LEAKY_RELU and math) */
    float alpha;    /* LEAKY_RELU's */
    bool relu_f32;                                      /* float RELU family: no table */
    float lo, hi;                                       /* its bounds (pl_relu_f32's) */
    bool checks_least; /* int8 RSQRT: inputs below least go to the portable kernel */
    int32_t least;
    uint8_t table[TABLE];
    uint8_t unread; /* a table's: pl_fast_table_unread's state */
    size_t count; /* the node's elements */
} lut8_plan;

/* Whether lp runs float loops (else it looks 8-bit bytes up: the output's type the input's). */
static bool runs_f32(const lut8_plan *lp)
{
    return lp->f32 != NULL || lp->unary_f32 != NULL || lp->relu_f32;
}

static void lookup_scalar(const uint8_t table[256], const uint8_t *in, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = table[in[i]];
}

pl_lut8_fn pl_lut8_for(pl_isa isa)
{
    PL_FAST_PICK(isa, pl_fast_x86_has_vbmi() ? pl_lut8_avx512vbmi : lookup_scalar,
                 lookup_scalar, lookup_scalar, pl_lut8_neon, pl_lut8_neon);
    return lookup_scalar;
}

/* The portable kernel of node's operator on the 256 inputs of type t (index = input
** byte) in the context's arithmetic, false for operators and types without a table. *least:
** the least input the portable kernel accepts (int8 RSQRT refuses those below its zero
** point), INT32_MIN when it takes any. */
static bool fill(const pl_node *node, pl_type t, pl_arith arith, uint8_t *table,
                 int32_t *least)
{
    *least = INT32_MIN;
    const pl_activation_op *d = node->user_data;
    const pl_registration *base = pl_fast_reg_of(node)->base;
    uint8_t bytes[TABLE];
    for (int i = 0; i < TABLE; i++)
        bytes[i] = (uint8_t)i;
    const int8_t *s8 = (const int8_t *)bytes;
    int8_t *t8 = (int8_t *)table;
    bool u8 = t == PL_UINT8;
    if (t != PL_INT8 && !u8)
        return false;
    if (base == pl_hard_swish_registration()) {
        if (u8)
            pl_hard_swish_u8(&d->hs, bytes, table, TABLE);
        else
            pl_hard_swish_s8(&d->hs, s8, t8, TABLE);
    } else if (base == pl_leaky_relu_registration()) {
        if (u8)
            pl_leaky_relu_u8(&d->leaky, bytes, table, TABLE);
        else
            pl_leaky_relu_s8(&d->leaky, s8, t8, TABLE);
    } else if (base == pl_relu_registration() || base == pl_relu6_registration() ||
               base == pl_relu_n1_to_1_registration()) {
        if (u8)
            pl_relu_u8(&d->relu, bytes, table, TABLE);
        else
            pl_relu_s8(&d->relu, s8, t8, TABLE);
    } else if (base == pl_logistic_registration() || base == pl_tanh_registration()) {
        pl_logistic_tanh_table(node, t, arith, base == pl_tanh_registration(), table);
    } else if (base == pl_gelu_registration()) {
        pl_gelu_table(node, table);
    } else if (base == pl_rsqrt_registration() && !u8) {
        pl_math_rsqrt_s8_table(node, table, least);
    } else {
        return false;
    }
    return true;
}

/* The unary math operation whose registration is base; false for the others. */
static bool math_op(const pl_registration *base, pl_ew_unary *op)
{
    const struct {
        const pl_registration *(*reg)(void);
        pl_ew_unary op;
    } ops[] = {{pl_floor_registration, PL_EW_FLOOR}, {pl_ceil_registration, PL_EW_CEIL},
               {pl_neg_registration, PL_EW_NEG},     {pl_sqrt_registration, PL_EW_SQRT},
               {pl_rsqrt_registration, PL_EW_RSQRT}, {pl_square_registration, PL_EW_SQUARE}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (base == ops[i].reg())
            return *op = ops[i].op, true;
    return false;
}

/* Float HARD_SWISH, LEAKY_RELU and unary math: the elementwise table's loops; the RELU
** family: the portable loop with the portable kernel's bounds. */
static bool plan_f32(const pl_node *node, size_t count)
{
    const pl_ew *ew = pl_ew_for(pl_fast_isa_of(node));
    const pl_registration *base = pl_fast_reg_of(node)->base;
    lut8_plan lp = {0};
    if (base == pl_hard_swish_registration() && ew != NULL)
        lp.f32 = ew->hard_swish_f32;
    else if (base == pl_leaky_relu_registration() && ew != NULL)
        lp = (lut8_plan){.unary_f32 = ew->unary_f32, .op = PL_EW_LEAKY,
                         .alpha = ((const pl_activation_op *)node->user_data)->leaky.alpha};
    else if (ew != NULL && math_op(base, &lp.op))
        lp.unary_f32 = ew->unary_f32;
    else if (base == pl_relu_registration())
        lp = (lut8_plan){.relu_f32 = true, .lo = 0.0f, .hi = INFINITY};
    else if (base == pl_relu6_registration())
        lp = (lut8_plan){.relu_f32 = true, .lo = 0.0f, .hi = 6.0f};
    else if (base == pl_relu_n1_to_1_registration())
        lp = (lut8_plan){.relu_f32 = true, .lo = -1.0f, .hi = 1.0f};
    else
        return false;
    lp.kind = PL_LUT8_BLOCK;
    lp.count = count;
    lut8_plan *block = pl_fast_block_new(node, sizeof *block);
    if (block != NULL)
        *block = lp;
    return block != NULL;
}

static bool plan(pl_context *ctx, const pl_node *node)
{
    pl_tensor in, out;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &out) != PL_OK)
        return false;
    pl_fast_table_drop(node, out.index);
    if (in.type != out.type)
        return false;
    if (in.type == PL_FLOAT32) /* a vector loop of the portable arithmetic, not a table */
        return plan_f32(node, pl_tensor_count(&in));
    uint8_t table[TABLE];
    int32_t least;
    if (!fill(node, in.type, ctx->arith, table, &least))
        return false;
    lut8_plan *lp = pl_fast_block_new(node, sizeof *lp);
    if (lp == NULL)
        return false;
    *lp = (lut8_plan){.kind = PL_LUT8_BLOCK, .lookup = pl_lut8_for(pl_fast_isa_of(node)),
                      .checks_least = least != INT32_MIN, .least = least,
                      .count = pl_tensor_count(&in)};
    memcpy(lp->table, table, TABLE);
    /* the output is table[x] of the input (no other node writes either: not variables); a
    ** node that may refuse its input keeps its own lookup, so that it always checks */
    if (!in.is_variable && !out.is_variable && !lp->checks_least)
        pl_fast_table_note(ctx, node, out.index, in.index, table);
    return true;
}

pl_status pl_fast_lut8_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

/* Elements per task (each on its own: any split gives the same bytes). */
enum { SPAN = 4096 };

typedef struct span_job {
    const lut8_plan *lp;
    const void *in;
    void *out;
} span_job;

static void span(void *arg, int32_t worker, size_t at, size_t n)
{
    (void)worker;
    const span_job *j = arg;
    const lut8_plan *lp = j->lp;
    if (lp->relu_f32)
        pl_relu_f32((const float *)j->in + at, (float *)j->out + at, n, lp->lo, lp->hi);
    else if (lp->f32 != NULL)
        lp->f32((const float *)j->in + at, (float *)j->out + at, n);
    else if (lp->unary_f32 != NULL)
        lp->unary_f32(lp->op, lp->alpha, (const float *)j->in + at, (float *)j->out + at, n);
    else
        lp->lookup(lp->table, (const uint8_t *)j->in + at, (uint8_t *)j->out + at, n);
}

/* lp (the node's plan) over the node's elements in spans, split over the threads: the float
** loops weigh about four operations an element, the lookups two (memory-bound). */
static void run_spans(const pl_node *node, const lut8_plan *lp, const void *in, void *out)
{
    span_job j = {lp, in, out};
    const size_t n = lp->count;
    double work = runs_f32(lp) ? 4 : 2;
    pl_fast_spans(node, n, SPAN, (double)n * work, span, &j);
}

void pl_fast_lut8_table(const pl_node *node, const uint8_t table[256], const void *in,
                        void *out, size_t n)
{
    lut8_plan lp = {.lookup = pl_lut8_for(pl_fast_isa_of(node))};
    memcpy(lp.table, table, TABLE);
    span_job j = {&lp, in, out};
    pl_fast_spans(node, n, SPAN, (double)n * 2, span, &j);
}

/* Whether an int8 tensor of n values holds one below least. */
static bool any_below(const int8_t *x, size_t n, int32_t least)
{
    int32_t min = INT8_MAX;
    for (size_t i = 0; i < n; i++) /* a plain loop: the compiler's vectors */
        min = x[i] < min ? x[i] : min;
    return min < least; /* none (INT8_MAX) is below a zero point */
}

pl_status pl_fast_lut8_invoke_block(pl_context *ctx, pl_node *node, void *block)
{
    lut8_plan *lp = block;
    const void *in = pl_fast_data(ctx, pl_node_input(node, 0));
    const int32_t out_index = pl_node_output(node, 0);
    void *out = pl_fast_data(ctx, out_index);
    if (lp->checks_least && any_below(in, lp->count, lp->least))
        return pl_fast_reg_of(node)->base->invoke(ctx, node); /* its refusal, as it words it */
    /* nothing when every reader looks its bytes up by the input (pl_fast_table_claim) */
    const size_t bytes = lp->count * (runs_f32(lp) ? sizeof(float) : 1);
    if (!pl_fast_table_unread(ctx, node, &lp->unread, out_index, out, bytes))
        run_spans(node, lp, in, out);
    return PL_OK;
}

pl_status pl_fast_lut8_invoke(pl_context *ctx, pl_node *node)
{
    void *lp = pl_fast_block(node);
    if (lp == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    return pl_fast_lut8_invoke_block(ctx, node, lp);
}
