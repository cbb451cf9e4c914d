/* elementwise.c - ADD, SUB and MUL's fast path (see elementwise.h), float DIV and
** SQUARED_DIFFERENCE's, and MAXIMUM and MINIMUM's (int8, int16, float32; they keep no op
** data, so their plan is a block found by the node's index, in a one-subgraph model): int8,
** int16 (16x8) and float32 when both inputs have the output's element count (a flat walk), or when one has
** it and the other repeats along the output's last axes (a scalar, or [C] against
** [N, H, W, C]): that one is repeated into a stack buffer and the flat loops run over
** chunks starting at a repeat, so each element meets the operand the broadcast walk gives
** it. Per row ([N, 1] against [N, C], or against [C]: an outer product, LayerNorm's
** rsqrt(variance) times gamma), each small element is repeated along its row. A large int8
** node looks its outputs up in a table of every input pair instead.
** Anything else (other broadcasts, int16 power-of-two ADD/SUB, uint8, int32, int64)
** keeps the portable kernel. */
#include <math.h>
#include <string.h>

#include "fast/elementwise.h"
#include "fast/exp.h"
#include "fast/gemm.h" /* pl_fast_quick_limit, pl_fast_s8_quick_of */
#include "fast/fast.h"
#include "fast/isa_pick.h"
#include "fast/lut8.h"
#include "fast/runs.h"
#include "kernels/elementwise/elementwise_fast.h"
#include "kernels/elementwise/math_fast.h"

enum { OP_ADD = 0, OP_SUB = 41, OP_MUL = 18, OP_DIV = 42, OP_MAXIMUM = 55, OP_MINIMUM = 57,
       OP_SQUARED_DIFFERENCE = 99 };

static bool is_minmax(int32_t op)
{
    return op == OP_MAXIMUM || op == OP_MINIMUM;
}

enum { REP_BYTES = 4096 }; /* the repeated input's stack buffer */

typedef enum ew_kind { EW_S8, EW_S16, EW_F32 } ew_kind;

typedef struct ew_plan {
    ew_kind kind;
    pl_ew_f32_op op;
    int32_t small;        /* 0: flat; 1 or 2: that input repeats (or, row > 0, is per row) */
    size_t row;           /* per row: the outputs each small element meets; else 0 */
    bool outer;           /* per row: the other input is one row, the same for every row */
    size_t na, nb;        /* the inputs' element counts */
    float lo, hi;         /* float: the output's clamp (infinite: none) */
    size_t count, period; /* output elements; the repeating input's */
    pl_ew_q q;
    const int8_t *pairs;  /* int8, large enough: every (a, b)'s output (see PAIRS_MIN) */
    int32_t by_x;         /* of x and a lookup of x: 1 + x's input, else 0 */
    const uint8_t *table; /* int8 by_x: the node's output for each byte of x */
    pl_fast_lanes_fn *lanes; /* float by_x: the lookup's function, computed again here */
    /* a float MUL of x and a LOGISTIC of x (SiLU): the product with it, one pass (exp.h) */
    void (*silu)(const float *in, float *out, size_t n, float lo, float hi, bool x_first);
    /* any other broadcast: input i copied out to the output's shape first (expanded[i]),
    ** into the scratch at expanded_at[i], then the flat arithmetic; the copies' plans follow
    ** the plan in the block (ew_expand), only in such a node's */
    bool expanded[2];
    size_t expanded_at[2];
} ew_plan;

typedef struct ew_expand {
    pl_fast_runs runs[2];
} ew_expand;

/* An int8 node looks its bytes up in a table of all 65536 input pairs, computed once at
** prepare by the vector arithmetic itself (64 KB of host memory), when the lookups pay for
** the table's loads: with PAIRS_MIN outputs or more, or with PAIRS_SMALL or more in a model
** whose host data (packed weights, tables) stay within PAIRS_HOT bytes, so that the table is
** still in the cache at the next invoke. In a large network it is cold at every invoke
** (DenseNet-121's 65536-output MULs: 20 us computed, 67 us looked up, and 58 tables evicted
** the convolutions' data); a one-ADD model keeps it (16384 outputs: 9.9 -> 4.1 us). Not
** where the set's quick float form takes the node and its tie window is at most
** QUICK_OVER_PAIRS (about 3% of vectors then take the exact form): AVX-512 computes that
** one-ADD model in 4.1 us where the gathers took 4.8. A wider window (a MUL rescaled by
** 2^-6: a quarter of the vectors exact) stays faster looked up (104 against 107 us), except
** where the set takes MUL's tilted form (AVX-512), whose window is 2^-11 at any shift. */
enum { PAIRS_MIN = 1 << 18, PAIRS_SMALL = 4096, PAIRS_HOT = 512 * 1024, PAIRS = 65536 };
#define QUICK_OVER_PAIRS 0x1p-10f

const pl_ew *pl_ew_for(pl_isa isa)
{
    PL_FAST_PICK(isa, &pl_ew_avx512, &pl_ew_avx2, &pl_ew_sse41, &pl_ew_neon, &pl_ew_neon);
    return NULL;
}

/* False for INT32_MIN (the vector rescale assumes the doubling high multiply cannot
** saturate; TFLite's rounding never gives it). */
static bool split(int32_t mult, int32_t shift, pl_ew_scale *s)
{
    s->mult = mult;
    s->left = shift > 0 ? shift : 0;
    s->right = shift > 0 ? 0 : shift < -31 ? 31 : -shift;
    return mult != INT32_MIN;
}

/* True when t's shape, leading 1s dropped, is out's last dims: the broadcast walk then
** reads t in order, over and over (a single element always qualifies). */
static bool repeats_along_last(const pl_tensor *t, const pl_tensor *out)
{
    int32_t lead = 0;
    while (lead < t->ndims && t->dims[lead] == 1)
        lead++;
    int32_t rank = t->ndims - lead;
    if (rank > out->ndims)
        return false;
    for (int32_t k = 0; k < rank; k++)
        if (t->dims[lead + k] != out->dims[out->ndims - rank + k])
            return false;
    return true;
}

/* True when t's shape, right-aligned against out's, is out's leading dims then 1s over more
** than one output element (and out has no further leading dims above 1): each of t's
** elements then meets a run of *row consecutive outputs ([N, 1] against [N, C], a layer
** norm's statistics). */
static bool per_row(const pl_tensor *t, const pl_tensor *out, size_t *row)
{
    int32_t lead = out->ndims - t->ndims, k = t->ndims;
    size_t inner = 1;
    if (lead < 0)
        return false;
    for (int32_t m = 0; m < lead; m++)
        if (out->dims[m] != 1)
            return false;
    for (; k > 0 && t->dims[k - 1] == 1; k--)
        inner *= (size_t)out->dims[lead + k - 1];
    for (int32_t m = 0; m < k; m++)
        if (t->dims[m] != out->dims[lead + m])
            return false;
    *row = inner;
    return inner > 1;
}

/* 0: flat; 1 or 2: that input repeats; -1: a broadcast the fast path leaves alone. */
static int32_t broadcast_form(const pl_tensor *a, const pl_tensor *b, const pl_tensor *o)
{
    size_t n = pl_tensor_count(o), na = pl_tensor_count(a), nb = pl_tensor_count(b);
    if (na == n && nb == n)
        return 0;
    if (na == n && nb > 0 && repeats_along_last(b, o))
        return 2;
    if (nb == n && na > 0 && repeats_along_last(a, o))
        return 1;
    return -1;
}

/* The copy of t out to out's shape (numpy broadcasting: t's dims right-aligned, a dim of 1
** repeated): false when it is empty. */
static bool expansion(const pl_tensor *t, const pl_tensor *out, pl_fast_runs *runs)
{
    int32_t start[PL_MAX_DIMS] = {0}, stride[PL_MAX_DIMS], count[PL_MAX_DIMS];
    int64_t step[PL_MAX_DIMS], s = 1;
    const int32_t lead = out->ndims - t->ndims;
    for (int32_t a = out->ndims - 1; a >= 0; a--) {
        const int32_t dim = a >= lead ? t->dims[a - lead] : 1;
        count[a] = out->dims[a];
        stride[a] = dim == 1 && out->dims[a] != 1 ? 0 : 1;
        step[a] = s;
        s *= dim;
    }
    return lead >= 0 &&
           pl_fast_runs_plan(out->ndims, start, stride, count, step, pl_type_size(t->type), runs);
}

/* A split rescale's factor, mult 2^(left - 31 - right). */
static double factor(const pl_ew_scale *s)
{
    return ldexp((double)s->mult, s->left - 31 - s->right);
}

/* The quick form's operands (elementwise.h), for int8 with no left shift in any rescale
** (a left shift wraps in int32, which the float does not follow).
** MUL: the product (a + off1)(b + off2) is exact in float (|p| <= 65025), so the bound is
** gemm.h's: TFLite's two roundings part from one only within 2^-(right+1) of a tie, and the
** float lies within 2^-13 of the exact value while |y| < 512 (past it both clamp).
** ADD/SUB: each input's rescale (two roundings) lies within 1 of (x + off) 2^left_shift f,
** so the sum within 2, times the output's factor fo; the float's own error is at most
** 2^-21 of the largest |a qa| + |b qb| + |qc|; then the output's two roundings as for MUL
** (pl_fast_quick_limit's window, these added). */
static void quick_of(int32_t op, pl_ew_q *q)
{
    q->quick.limit = -1.0f;
    q->quick.tilt = op == OP_MUL ? pl_fast_s8_tilt_of(q->out.mult, q->out.left, q->out.right)
                                 : -1.0f;
    if (q->out.left != 0 || q->in1.left != 0 || q->in2.left != 0)
        return;
    if (op == OP_MUL) {
        pl_fast_s8_quick_of(q->out.mult, 0, q->out.right, 0, &q->quick.qa, &q->quick.limit);
        q->quick.qc = (float)q->out_offset;
        return;
    }
    const double fo = factor(&q->out), lift = ldexp(1.0, q->left_shift);
    const double qa = lift * factor(&q->in1) * fo, qb = lift * factor(&q->in2) * fo;
    const double qc = q->off1 * qa + q->off2 * qb + q->out_offset;
    q->quick.qa = (float)qa;
    q->quick.qb = (float)qb;
    q->quick.qc = (float)qc;
    q->quick.limit = pl_fast_quick_limit(
        q->out.right, 2 * fabs(fo) + ldexp(128 * (fabs(qa) + fabs(qb)) + fabs(qc), -21));
}

static bool quantize(const pl_elementwise_op *d, int32_t op, ew_plan *pl)
{
    const pl_add_params *p = &d->q;
    pl->q = (pl_ew_q){p->input1_offset, p->input2_offset, op == OP_MUL ? 0 : p->left_shift,
                      {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, p->output_offset, p->act_min,
                      p->act_max, {0, 0, 0, -1.0f, -1.0f}};
    if (pl->kind == EW_S16 && op != OP_MUL && d->pot)
        return false;
    bool ok = split(p->output_multiplier, p->output_shift, &pl->q.out) &&
              (op == OP_MUL || (split(p->input1_multiplier, p->input1_shift, &pl->q.in1) &&
                                split(p->input2_multiplier, p->input2_shift, &pl->q.in2)));
    if (ok && pl->kind == EW_S8)
        quick_of(op, &pl->q);
    return ok;
}

/* Every (a, b)'s int8 output, row a of 256 at a time through the flat vector loop. */
static void fill_pairs(const ew_plan *pl, const pl_ew *k, int8_t *pairs)
{
    int8_t a[256], b[256];
    for (int i = 0; i < 256; i++)
        b[i] = (int8_t)(uint8_t)i;
    for (int hi = 0; hi < 256; hi++) {
        memset(a, hi, sizeof a);
        (pl->op == PL_EW_MUL ? k->mul_s8 : k->add_s8)(&pl->q, a, b, 256, pairs + hi * 256);
    }
    memset(pairs + PAIRS, 0, 64); /* what a 4-byte gather of the last entries reads past */
}

/* An int8 SQUARED_DIFFERENCE's table: the portable kernel's element on every pair (no vector
** form computes it; LayerNorm's variance, 20-30% of a small int8 transformer, looks it up). */
static void fill_sqdiff_pairs(const pl_sqdiff_params *p, int8_t *pairs)
{
    for (int x = 0; x < 256; x++)
        for (int y = 0; y < 256; y++)
            pairs[x << 8 | y] = (int8_t)pl_sqdiff_q(p, (int8_t)(uint8_t)x, (int8_t)(uint8_t)y,
                                                    INT8_MIN, INT8_MAX);
    memset(pairs + PAIRS, 0, 64); /* what a 4-byte gather of the last entries reads past */
}

static void pairs_scalar(const int8_t *pairs, const int8_t *a, const int8_t *b, size_t n,
                         int8_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = pairs[(size_t)(uint8_t)a[i] << 8 | (uint8_t)b[i]];
}

/* The node's own arithmetic on the 256 pairs (a[i], b[i]) into out. */
static void s8_table(const ew_plan *pl, const pl_ew *k, const int8_t *a, const int8_t *b,
                     int8_t *out)
{
    (pl->op == PL_EW_MUL ? k->mul_s8 : k->add_s8)(&pl->q, a, b, 256, out);
}

/* An ADD, SUB or MUL of a tensor x and a lookup of x (x * sigmoid(x): SiLU, as EfficientNet
** writes it): int8, each output byte is a function of x's byte alone, the node's arithmetic
** on (x, table[x]) (pl_fast_table_of: the lookup's note); float, the node computes the
** lookup's function itself, a chunk at a time, instead of reading its output
** (pl_fast_lanes_of). 1 + x's input, or 0. */
static int32_t by_x_input(const pl_node *node, const pl_tensor *a, const pl_tensor *b,
                          const uint8_t **table, pl_fast_lanes_fn **lanes)
{
    int32_t in;
    const bool f32 = a->type == PL_FLOAT32;
    if (a->is_variable || b->is_variable)
        return 0;
    if (f32 ? (*lanes = pl_fast_lanes_of(node, b->index, &in)) != NULL
            : (*table = pl_fast_table_of(node, b->index, &in)) != NULL)
        if (in == a->index)
            return 1;
    if (f32 ? (*lanes = pl_fast_lanes_of(node, a->index, &in)) != NULL
            : (*table = pl_fast_table_of(node, a->index, &in)) != NULL)
        if (in == b->index)
            return 2;
    *table = NULL;
    *lanes = NULL;
    return 0;
}

static bool plan(pl_context *ctx, const pl_node *node)
{
    pl_tensor a, b, o;
    if (pl_ew_for(pl_fast_isa_of(node)) == NULL ||
        ctx->get_eval(ctx, pl_node_input(node, 0), &a) != PL_OK ||
        ctx->get_eval(ctx, pl_node_input(node, 1), &b) != PL_OK ||
        ctx->get_eval(ctx, pl_node_output(node, 0), &o) != PL_OK ||
        (o.type != PL_INT8 && o.type != PL_INT16 && o.type != PL_FLOAT32))
        return false;
    ew_plan pl = {0};
    int32_t op = node->builtin_code;
    pl.small = broadcast_form(&a, &b, &o);
    pl.count = pl_tensor_count(&o);
    pl.na = pl_tensor_count(&a), pl.nb = pl_tensor_count(&b);
    if (pl.small < 0 && a.type == o.type && b.type == o.type) { /* the other input whole */
        if (pl.na == pl.count && per_row(&b, &o, &pl.row))
            pl.small = 2;
        else if (pl.nb == pl.count && per_row(&a, &o, &pl.row))
            pl.small = 1;
        else if (per_row(&b, &o, &pl.row) && pl.na == pl.row && repeats_along_last(&a, &o))
            pl.small = 2, pl.outer = true; /* or one row repeating */
        else if (per_row(&a, &o, &pl.row) && pl.nb == pl.row && repeats_along_last(&b, &o))
            pl.small = 1, pl.outer = true;
        else
            pl.row = 0;
    }
    size_t expanded_bytes = 0; /* the scratch the copies take (reserved with the block) */
    ew_expand ex;
    memset(&ex, 0, sizeof ex);
    if (pl.small < 0 && pl.row == 0 && a.type == o.type && b.type == o.type) {
        /* any other broadcast: the broadcast inputs copied out, then flat */
        const pl_tensor *in[2] = {&a, &b};
        for (int i = 0; i < 2; i++) {
            if (pl_tensor_count(in[i]) == pl.count)
                continue;
            if (!expansion(in[i], &o, &ex.runs[i]))
                return false;
            pl.expanded[i] = true;
            pl.expanded_at[i] = expanded_bytes;
            expanded_bytes += pl_fast_align64(pl.count * pl_type_size(o.type));
        }
        pl.small = 0;
    }
    pl.period = pl.small == 1 ? pl_tensor_count(&a) : pl.small == 2 ? pl_tensor_count(&b) : 0;
    pl.kind = o.type == PL_FLOAT32 ? EW_F32 : o.type == PL_INT16 ? EW_S16 : EW_S8;
    bool add_sub_mul = op == OP_ADD || op == OP_SUB || op == OP_MUL, minmax = is_minmax(op);
    const bool sqdiff_s8 = op == OP_SQUARED_DIFFERENCE && pl.kind == EW_S8 &&
                           a.type == PL_INT8 && b.type == PL_INT8;
    if (minmax && (a.type != o.type || b.type != o.type))
        return false;
    if (!add_sub_mul && !minmax && !sqdiff_s8 &&
        (pl.kind != EW_F32 || a.type != PL_FLOAT32 || b.type != PL_FLOAT32))
        return false; /* DIV, SQUARED_DIFFERENCE: float (int8 SQUARED_DIFFERENCE: a table) */
    pl.lo = -INFINITY, pl.hi = INFINITY;
    if (add_sub_mul && pl.kind == EW_F32) {
        const pl_elementwise_op *d = node->user_data;
        pl.lo = d->f_min, pl.hi = d->f_max;
    } else if (op == OP_DIV) {
        pl_div_f32_range(node, &pl.lo, &pl.hi);
    }
    pl.op = op == OP_ADD ? PL_EW_ADD : op == OP_SUB ? PL_EW_SUB : op == OP_MUL ? PL_EW_MUL
          : op == OP_DIV ? PL_EW_DIV : op == OP_MAXIMUM ? PL_EW_MAX
          : op == OP_MINIMUM ? PL_EW_MIN : PL_EW_SQDIFF;
    bool ok = pl.small >= 0 &&
              (pl.kind == EW_F32 || minmax || sqdiff_s8 || quantize(node->user_data, op, &pl));
    const size_t host = pl_fast_reg_of(node)->owner->host_bytes;
    const pl_ew *k = pl_ew_for(pl_fast_isa_of(node));
    const bool quick = k->quick_s8 && (pl.q.quick.limit >= 0.5f - QUICK_OVER_PAIRS ||
                                       (op == OP_MUL && k->tilted_mul_s8 &&
                                        pl_ew_mul_tilted(&pl.q)));
    const uint8_t *x_table = NULL;
    const bool s8 = pl.kind == EW_S8 && a.type == PL_INT8 && b.type == PL_INT8;
    const bool f32 = pl.kind == EW_F32 && a.type == PL_FLOAT32 && b.type == PL_FLOAT32;
    pl.by_x = ok && add_sub_mul && pl.small == 0 && !pl.expanded[0] && !pl.expanded[1] &&
                      (s8 || f32)
                  ? by_x_input(node, &a, &b, &x_table, &pl.lanes) : 0;
    const pl_exp_kernels *exp = pl_exp_for(pl_fast_isa_of(node));
    if (pl.lanes != NULL && op == OP_MUL && exp != NULL && pl.lanes == exp->logistic)
        pl.silu = exp->silu;
    const bool pairs = ok && (sqdiff_s8 ||
                              (pl.kind == EW_S8 && !minmax && !quick && pl.by_x == 0 &&
                               (pl.count >= PAIRS_MIN ||
                                (pl.count >= PAIRS_SMALL && host + PAIRS + 64 <= PAIRS_HOT))));
    const bool expands = expanded_bytes > 0;
    const size_t head = pl_fast_align64(sizeof pl) + (expands ? pl_fast_align64(sizeof ex) : 0);
    uint8_t *block = !ok ? NULL
                   : minmax ? pl_fast_node_block_new(ctx, node, head)
                            : pl_fast_block_new(node, head + (pairs ? PAIRS + 64
                                                              : pl.by_x ? 256 : 0));
    if (block == NULL || (expands && !pl_fast_scratch_reserve(node, expanded_bytes)))
        return false;
    if (expands)
        memcpy(block + pl_fast_align64(sizeof pl), &ex, sizeof ex);
    if (pairs && sqdiff_s8) {
        fill_sqdiff_pairs(node->user_data, (int8_t *)block + head);
        pl.pairs = (const int8_t *)block + head;
    } else if (pairs) {
        fill_pairs(&pl, k, (int8_t *)block + head);
        pl.pairs = (const int8_t *)block + head;
    }
    if (pl.by_x && s8) { /* the output for each byte of x */
        int8_t every[256];
        for (int i = 0; i < 256; i++)
            every[i] = (int8_t)(uint8_t)i;
        const int8_t *looked = (const int8_t *)x_table;
        s8_table(&pl, k, pl.by_x == 1 ? every : looked, pl.by_x == 1 ? looked : every,
                 (int8_t *)block + head);
        pl.table = block + head;
    }
    if (pl.by_x) {
        pl_fast_reg_of(node)->owner->tables_by_x++;
        pl_fast_reg_of(node)->owner->silu_plans += pl.silu != NULL;
        pl_fast_table_claim(node, pl.by_x == 1 ? b.index : a.index);
    }
    memcpy(block, &pl, sizeof pl);
    return true;
}

pl_status pl_fast_elementwise_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

pl_status pl_fast_minmax_prepare(pl_context *ctx, pl_node *node)
{
    PL_TRY(pl_fast_reg_of(node)->base->prepare(ctx, node));
    if (!plan(ctx, node))
        pl_fast_node_block_drop(node);
    return PL_OK;
}

static size_t element_bytes(ew_kind kind)
{
    return kind == EW_F32 ? sizeof(float) : kind == EW_S16 ? sizeof(int16_t) : 1;
}

/* The flat loop over n elements of a and b (the pairs table when pairs). */
static void run_flat(const ew_plan *pl, const pl_ew *k, bool pairs, const void *a,
                     const void *b, size_t n, void *out)
{
    bool mul = pl->op == PL_EW_MUL;
    if ((pl->op == PL_EW_MAX || pl->op == PL_EW_MIN) && pl->kind != EW_F32)
        k->minmax_int(pl->op == PL_EW_MAX, element_bytes(pl->kind), a, b, n, out);
    else if (pairs)
        (k->pairs_s8 != NULL ? k->pairs_s8 : pairs_scalar)(pl->pairs, a, b, n, out);
    else if (pl->kind == EW_F32)
        k->f32(pl->op, a, b, n, pl->lo, pl->hi, out);
    else if (pl->kind == EW_S16)
        (mul ? k->mul_s16 : k->add_s16)(&pl->q, a, b, n, out);
    else
        (mul ? k->mul_s8 : k->add_s8)(&pl->q, a, b, n, out);
}

/* A job over the output in spans (tasks) of whole chunks: a flat node's chunks are any
** EW_TASK elements; a repeating input's chunks start at a repeat, so each element meets the
** operand the broadcast walk gives it. Each element on its own: any split, the same bytes.
** Short spans (4096, not 16384) keep each thread's share of a tensor where the previous
** operator's threads left it (with the workers' closer polling, 2 threads, face-like
** models: 0.79-0.89 -> 0.84-0.92 of XNNPACK's speed). */
enum { EW_TASK = 4096 };

typedef struct ew_job {
    const ew_plan *pl;
    const pl_ew *k;
    bool pairs;
    const unsigned char *small, *big; /* flat: small is input 1, big input 2 */
    unsigned char *out;
    size_t chunk, span; /* elements: run_flat's calls, a task's */
} ew_job;

/* A per-row node's rows in task: each small element repeated into a buffer (the kernels take
** two arrays), ROW_REP outputs at a time. */
enum { ROW_REP = 1024 };

/* Float by x: the lookup's values computed this many at a time (4 KB: in the L1 cache), and
** what each weighs besides the operation (logistic_tanh.c's EXP_WORK). */
enum { BY_X_CHUNK = 1024, BY_X_WORK = 30 };

/* n (a multiple of 8, at most ROW_REP) copies of the es-byte element v. */
static void fill_rep(unsigned char *rep, const unsigned char *v, size_t es, size_t n)
{
    if (es == 1) {
        memset(rep, *v, n);
    } else if (es == 2) {
        int16_t x, *r = (int16_t *)(void *)rep;
        memcpy(&x, v, sizeof x);
        for (size_t k = 0; k < n; k += 8) /* whole vectors */
            for (size_t m = 0; m < 8; m++)
                r[k + m] = x;
    } else {
        float x, *r = (float *)(void *)rep;
        memcpy(&x, v, sizeof x);
        for (size_t k = 0; k < n; k += 8)
            for (size_t m = 0; m < 8; m++)
                r[k + m] = x;
    }
}

static void run_rows(const ew_job *j, int32_t task)
{
    const ew_plan *pl = j->pl;
    _Alignas(64) unsigned char rep[ROW_REP * sizeof(float)];
    const size_t es = element_bytes(pl->kind), first = (size_t)task * j->span;
    const size_t fill = pl->row < ROW_REP ? pl->row : ROW_REP;
    const unsigned char *v = j->small + first / pl->row * es;
    for (size_t i = first; i < pl->count && i < first + j->span; i += pl->row, v += es) {
        fill_rep(rep, v, es, (fill + 7) / 8 * 8);
        for (size_t at = 0; at < pl->row; at += fill) {
            size_t n = pl->row - at < fill ? pl->row - at : fill;
            const unsigned char *x = j->big + (pl->outer ? at : i + at) * es;
            run_flat(pl, j->k, j->pairs, pl->small == 1 ? rep : x, pl->small == 1 ? x : rep,
                     n, j->out + (i + at) * es);
        }
    }
}

/* Float by x: the lookup's function of x into a buffer, a chunk at a time, then the node's
** operation of x and it, in the node's operand order (SiLU: both in one pass). */
static void run_by_x_f32(const ew_plan *pl, const pl_ew *k, const float *x, size_t n,
                         float *out)
{
    if (pl->silu != NULL) {
        pl->silu(x, out, n, pl->lo, pl->hi, pl->by_x == 1);
        return;
    }
    float looked[BY_X_CHUNK];
    for (size_t at = 0; at < n; at += BY_X_CHUNK) {
        const size_t m = n - at < BY_X_CHUNK ? n - at : BY_X_CHUNK;
        pl->lanes(x + at, looked, m);
        k->f32(pl->op, pl->by_x == 1 ? x + at : looked, pl->by_x == 1 ? looked : x + at, m,
               pl->lo, pl->hi, out + at);
    }
}

static void ew_span(void *arg, int32_t worker, int32_t task)
{
    (void)worker;
    const ew_job *j = arg;
    const ew_plan *pl = j->pl;
    if (pl->row > 0) {
        run_rows(j, task);
        return;
    }
    const size_t es = element_bytes(pl->kind), end = (size_t)(task + 1) * j->span;
    for (size_t i = (size_t)task * j->span; i < pl->count && i < end; i += j->chunk) {
        size_t n = pl->count - i < j->chunk ? pl->count - i : j->chunk;
        if (pl->lanes != NULL) {
            run_by_x_f32(pl, j->k, (const float *)(pl->by_x == 1 ? j->small : j->big) + i, n,
                         (float *)j->out + i);
            continue;
        }
        if (pl->small == 0) {
            run_flat(pl, j->k, j->pairs, j->small + i * es, j->big + i * es, n,
                     j->out + i * es);
            continue;
        }
        const unsigned char *x = j->big + i * es;
        run_flat(pl, j->k, j->pairs, pl->small == 1 ? j->small : x,
                 pl->small == 1 ? x : j->small, n, j->out + i * es);
    }
}

/* The repeating input copied whole as often as REP_BYTES holds it (used in place when it
** alone is larger), then the spans; a flat node's spans directly. */
static void run_spans(const pl_node *node, ew_job *j, const unsigned char *a,
                      const unsigned char *b)
{
    _Alignas(64) unsigned char rep[REP_BYTES];
    const ew_plan *pl = j->pl;
    const size_t es = element_bytes(pl->kind), bytes = pl->period * es;
    j->small = pl->small == 2 ? b : a;
    j->big = pl->small == 2 ? a : b;
    j->chunk = pl->small == 0 ? EW_TASK : pl->row > 0 ? pl->row : pl->period;
    if (pl->small != 0 && pl->row == 0 && bytes <= REP_BYTES) {
        size_t total = REP_BYTES / bytes * bytes, filled = bytes;
        memcpy(rep, j->small, bytes);
        for (; filled < total; filled *= 2) /* doubling: a scalar takes a dozen copies */
            memcpy(rep + filled, rep, filled < total - filled ? filled : total - filled);
        j->small = rep;
        j->chunk = total / es;
    }
    j->span = j->chunk * (EW_TASK > j->chunk ? EW_TASK / j->chunk : 1);
    pl_fast_parallel(node, (int32_t)((pl->count + j->span - 1) / j->span),
                     (double)pl->count * (pl->lanes != NULL ? 8 + BY_X_WORK : 8), ew_span, j);
}

/* An int8 node with a scalar operand: its output byte depends on the other input's alone.
** The 256 outputs, by the node's own vector arithmetic, then looked up (lut8.h: 64 bytes an
** instruction with AVX-512 VBMI) in spans split over the threads, instead of a gather from
** the pairs table or the arithmetic for every element (73728 outputs: 82 -> 3 us). */
static void run_scalar_s8(const pl_node *node, const ew_plan *pl, const pl_ew *k,
                          const int8_t *a, const int8_t *b, int8_t *out)
{
    int8_t every[256], scalar[256], table[256];
    for (int i = 0; i < 256; i++)
        every[i] = (int8_t)(uint8_t)i;
    memset(scalar, pl->small == 1 ? a[0] : b[0], sizeof scalar);
    s8_table(pl, k, pl->small == 1 ? scalar : every, pl->small == 1 ? every : scalar, table);
    pl_fast_lut8_table(node, (const uint8_t *)table, pl->small == 1 ? b : a, out, pl->count);
}

void pl_ew_unary_nans(pl_ew_unary op, const float *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(in[i]))
            out[i] = op == PL_EW_FLOOR ? pl_math_floor_f32(in[i]) : pl_math_ceil_f32(in[i]);
}

pl_status pl_fast_elementwise_invoke(pl_context *ctx, pl_node *node)
{
    const ew_plan *pl = is_minmax(node->builtin_code) ? pl_fast_node_block(node)
                                                      : pl_fast_block(node);
    if (pl == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    /* the shapes are the plan's (fixed from prepare on): only the data is needed */
    const void *a = pl_fast_data(ctx, pl_node_input(node, 0));
    const void *b = pl_fast_data(ctx, pl_node_input(node, 1));
    void *o = pl_fast_data(ctx, pl_node_output(node, 0));
    if (pl->expanded[0] || pl->expanded[1]) {
        const ew_expand *ex = (const void *)((const uint8_t *)pl + pl_fast_align64(sizeof *pl));
        uint8_t *scratch = pl_fast_scratch(node);
        if (pl->expanded[0]) {
            pl_fast_runs_copy(&ex->runs[0], a, scratch + pl->expanded_at[0]);
            a = scratch + pl->expanded_at[0];
        }
        if (pl->expanded[1]) {
            pl_fast_runs_copy(&ex->runs[1], b, scratch + pl->expanded_at[1]);
            b = scratch + pl->expanded_at[1];
        }
    }
    const pl_ew *k = pl_ew_for(pl_fast_isa_of(node));
    const bool arithmetic = pl->op == PL_EW_ADD || pl->op == PL_EW_SUB || pl->op == PL_EW_MUL;
    /* every node is prepared now: a small node's table only while the model's host data
    ** stay small (its cost, loading the table cold, is the portable arithmetic's gain); an
    ** int8 node with no vector arithmetic (SQUARED_DIFFERENCE) has only its table */
    const bool pairs = pl->pairs != NULL &&
                       (!arithmetic || pl->count >= PAIRS_MIN ||
                        pl_fast_reg_of(node)->owner->host_bytes <= PAIRS_HOT);
    if (pl->table != NULL) { /* int8 by x: each output byte x's alone */
        pl_fast_lut8_table(node, pl->table, pl->by_x == 1 ? a : b, o, pl->count);
        return PL_OK;
    }
    if (pl->kind == EW_S8 && arithmetic && pl->small != 0 && pl->row == 0 &&
        pl->period == 1) {
        run_scalar_s8(node, pl, k, a, b, o);
        return PL_OK;
    }
    if (pl->small == 0 && pl->lanes == NULL && pl->count <= EW_TASK) { /* one task: no job */
        run_flat(pl, k, pairs, a, b, pl->count, o);
        return PL_OK;
    }
    ew_job job = {pl, k, pairs, NULL, NULL, o, 0, 0};
    run_spans(node, &job, a, b);
    return PL_OK;
}
