/* mean.c - MEAN's, SUM's, REDUCE_MAX's and REDUCE_MIN's fast path (float32, int8, int16,
** uint8) when the reduced axes are adjacent (pl_reduce_as_blocks: global average pooling over
** H and W, a last-axis mean). The portable kernel adds each input element into its output
** slot in memory; here the sums of a block of channels stay in vector registers while the
** reduced rows stream past (mean_body.h, built for each set), each channel's sum still taking
** its elements in input order (float: the reference's rounding; integers: int32 wrapping
** sums, the same in any order); last-axis float sums run eight rows side by side, last-axis
** integer ones eight partial sums a row. Then the portable kernel's division (float MEAN) or
** pl_reduce_rescale (quantized) makes the output: the portable kernel's bytes. LiteRT's int8
** SUM, which reads its bytes as uint8, keeps the portable kernel. REDUCE_MAX and REDUCE_MIN
** fold a block of channels the same way, each in the portable kernel's order and comparison
** (mean_body.h); a last-axis fold is one channel per row. */
#include <string.h>

#include "fast/fast.h"
#include "kernels/reduce/reduce_fast.h"

#define PL_MEAN_NAME pl_fast_mean_sums_c
#define PL_EXTREME_NAME pl_fast_extremes_c
#define PL_MEAN_LANES 32
#include "fast/mean_body.h"

/* isa's channel sums and folds, and the channels they take at a time. */
static pl_fast_mean_sums sums_for(pl_isa isa, size_t *lanes, pl_fast_extremes *fold)
{
    *lanes = 32;
    *fold = pl_fast_extremes_c;
#if defined(PL_FAST_X86)
    if (isa == PL_ISA_AVX2 || isa == PL_ISA_AVX512)
        return *lanes = 64, *fold = pl_fast_extremes_avx2, pl_fast_mean_sums_avx2;
    if (isa == PL_ISA_SSE41)
        return *fold = pl_fast_extremes_sse41, pl_fast_mean_sums_sse41;
#elif defined(PL_FAST_ARM64)
    if (isa == PL_ISA_NEON || isa == PL_ISA_NEON_DOT)
        return *lanes = 64, *fold = pl_fast_extremes_neon, pl_fast_mean_sums_neon;
#endif
    (void)isa;
    return pl_fast_mean_sums_c;
}

typedef struct mean_plan {
    pl_reduce_blocks blocks;
    pl_fast_mean_sums sums;  /* the set's channel sums */
    pl_fast_extremes fold;   /* and folds */
    size_t lanes;            /* channels they take at a time */
    bool is_max;             /* REDUCE_MAX (else REDUCE_MIN); unused by MEAN and SUM */
    pl_type type;            /* REDUCE_MAX and REDUCE_MIN's (MEAN and SUM: their op data's) */
    int32_t parts;           /* integer sums split over rows: this many partial sums */
    uint32_t *partial;       /* parts x inner of them (after the plan), or NULL */
} mean_plan;

/* An integer MEAN or SUM over the rows of one plane (global average pooling) with threads
** splits its rows into PARTS_PER_WORKER parts a worker, each summed into its own partial
** sums, then added (int32 wrapping sums: any order gives the portable kernel's). Each worker
** then reads the rows the operator before it wrote from its own core's cache: split by
** channels, every worker read the whole plane. */
enum { PARTS_PER_WORKER = 2 };

/* The element types mean_body.h's sums and folds take. */
static bool block_type(pl_type t)
{
    return t == PL_FLOAT32 || t == PL_INT8 || t == PL_INT16 || t == PL_UINT8;
}

static bool plan(pl_context *ctx, const pl_node *node)
{
    (void)ctx;
    const pl_reduce_op *d = node->user_data;
    mean_plan mp;
    pl_reduce_blocks b;
    if (d->as_uint8 || !pl_reduce_as_blocks(&d->p, &b) || !block_type(d->type))
        return false;
    mp.blocks = b;
    mp.sums = sums_for(pl_fast_isa_of(node), &mp.lanes, &mp.fold);
    mp.parts = 0;
    mp.partial = NULL;
    const int32_t workers = pl_fast_threads_of(node);
    if (workers > 1 && d->type != PL_FLOAT32 && b.outer == 1 && b.inner > 1 &&
        b.reduced >= (size_t)(workers * PARTS_PER_WORKER) &&
        (double)b.reduced * (double)b.inner >= pl_fast_reg_of(node)->owner->parallel_min_work)
        mp.parts = workers * PARTS_PER_WORKER;
    const size_t head = pl_fast_align64(sizeof mp);
    uint8_t *block = pl_fast_block_new(node, head + sizeof(uint32_t) * (size_t)mp.parts * b.inner);
    if (block == NULL)
        return false;
    if (mp.parts > 0)
        mp.partial = (uint32_t *)(void *)(block + head);
    memcpy(block, &mp, sizeof mp);
    return true;
}

static bool plan_extreme(pl_context *ctx, const pl_node *node)
{
    const pl_reduce_extreme_op *d = node->user_data;
    mean_plan mp = {0};
    pl_tensor in;
    if (ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK || !block_type(in.type) ||
        !pl_reduce_as_blocks(&d->p, &mp.blocks))
        return false;
    mp.sums = sums_for(pl_fast_isa_of(node), &mp.lanes, &mp.fold);
    mp.is_max = pl_fast_reg_of(node)->base == pl_reduce_max_registration();
    mp.type = in.type;
    return pl_fast_block_put(node, &mp, sizeof mp);
}

pl_status pl_fast_reduce_extreme_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan_extreme);
}

pl_status pl_fast_reduce_extreme_invoke(pl_context *ctx, pl_node *node)
{
    const mean_plan *mp = pl_fast_block(node);
    if (mp == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const uint8_t *in = pl_fast_data(ctx, pl_node_input(node, 0));
    uint8_t *out = pl_fast_data(ctx, pl_node_output(node, 0));
    const pl_reduce_blocks *b = &mp->blocks;
    const size_t es = pl_type_size(mp->type);
    for (size_t o = 0; o < b->outer; o++)
        for (size_t c = 0; c < b->inner; c += mp->lanes)
            mp->fold(in + (o * b->reduced * b->inner + c) * es, b->reduced, b->inner,
                     b->inner - c < mp->lanes ? b->inner - c : mp->lanes, mp->type, mp->is_max,
                     out + (o * b->inner + c) * es);
    return PL_OK;
}

pl_status pl_fast_mean_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

/* Rows side by side: independent chains of adds, where one row's sum in order waits an
** add's latency (four of its throughput) at every element. */
enum { SUM_ROWS = 8 };

void pl_fast_sum_rows_f32(const float *x, size_t rows, size_t n, float *out)
{
    for (size_t i = 0; i < rows; i += SUM_ROWS) {
        const size_t k = rows - i < SUM_ROWS ? rows - i : SUM_ROWS;
        const float *row[SUM_ROWS];
        float s[SUM_ROWS] = {0};
        for (size_t j = 0; j < SUM_ROWS; j++) /* a short last block repeats its last row */
            row[j] = x + (i + (j < k ? j : k - 1)) * n;
        for (size_t c = 0; c < n; c++)
            for (size_t j = 0; j < SUM_ROWS; j++)
                s[j] += row[j][c];
        memcpy(out + i, s, k * sizeof(float));
    }
}

/* Last-axis integer sums (int32 wrapping: any order gives the portable kernel's), eight
** partial sums a row so that its adds do not wait on one another. */
#define SUM_ROWS_INT(T)                                                                    \
    do {                                                                                   \
        const T *p = x;                                                                    \
        for (size_t o = 0; o < rows; o++, p += n) {                                        \
            uint32_t s[8] = {0}, all = 0;                                                  \
            size_t r = 0;                                                                  \
            for (; n - r >= 8; r += 8)                                                     \
                for (size_t m = 0; m < 8; m++)                                             \
                    s[m] += (uint32_t)p[r + m];                                            \
            for (; r < n; r++)                                                             \
                s[0] += (uint32_t)p[r];                                                    \
            for (size_t m = 0; m < 8; m++)                                                 \
                all += s[m];                                                               \
            memcpy(out + 4 * o, &all, sizeof all);                                         \
        }                                                                                  \
    } while (0)

static void sum_rows_int(const void *x, pl_type type, size_t rows, size_t n, uint8_t *out)
{
    if (type == PL_INT8)
        SUM_ROWS_INT(int8_t);
    else if (type == PL_UINT8)
        SUM_ROWS_INT(uint8_t);
    else
        SUM_ROWS_INT(int16_t);
}

/* The channel sums of rows rows of one plane from x on into dst (float: float; the others:
** int32), mp->lanes channels at a time. */
static void sum_plane(const mean_plan *mp, pl_type type, const uint8_t *x, size_t rows,
                      uint8_t *dst)
{
    const size_t inner = mp->blocks.inner, es = pl_type_size(type);
    for (size_t c = 0; c < inner; c += mp->lanes) {
        size_t n = inner - c < mp->lanes ? inner - c : mp->lanes;
        mp->sums(x + c * es, rows, inner, n, type, dst + 4 * c);
    }
}

/* The sums of mp's blocks into out (float32: float; the others: int32), lanes channels at a
** time, a last-axis float mean one sequential sum per output. */
static void sum_blocks(const mean_plan *mp, pl_type type, const void *in, void *out)
{
    const pl_reduce_blocks *b = &mp->blocks;
    const size_t es = pl_type_size(type), plane = b->reduced * b->inner;
    if (type == PL_FLOAT32 && b->inner == 1) {
        pl_fast_sum_rows_f32(in, b->outer, b->reduced, out);
        return;
    }
    if (b->inner == 1) {
        sum_rows_int(in, type, b->outer, b->reduced, out);
        return;
    }
    for (size_t o = 0; o < b->outer; o++) /* float and int32 sums: 4 bytes each */
        sum_plane(mp, type, (const uint8_t *)in + o * plane * es, b->reduced,
                  (uint8_t *)out + o * b->inner * 4);
}

typedef struct part_job {
    const mean_plan *mp;
    pl_type type;
    const uint8_t *in;
    size_t rows; /* per part, the last one shorter */
} part_job;

/* Part `part`'s rows summed into its partial sums. */
static void sum_part(void *arg, int32_t worker, int32_t part)
{
    (void)worker;
    const part_job *j = arg;
    const mean_plan *mp = j->mp;
    const pl_reduce_blocks *b = &mp->blocks;
    const size_t first = (size_t)part * j->rows;
    const size_t rows = b->reduced - first < j->rows ? b->reduced - first : j->rows;
    sum_plane(mp, j->type, j->in + first * b->inner * pl_type_size(j->type), rows,
              (uint8_t *)(mp->partial + (size_t)part * b->inner));
}

/* The integer sums of mp's plane into out by parts over the threads (mean_plan's parts). */
static void sum_parts(const pl_node *node, const mean_plan *mp, pl_type type, const void *in,
                      int32_t *out)
{
    const pl_reduce_blocks *b = &mp->blocks;
    const size_t rows = (b->reduced + (size_t)mp->parts - 1) / (size_t)mp->parts;
    const int32_t parts = (int32_t)((b->reduced + rows - 1) / rows);
    part_job j = {mp, type, in, rows};
    pl_fast_parallel(node, parts, (double)b->reduced * (double)b->inner, sum_part, &j);
    for (size_t c = 0; c < b->inner; c++) {
        uint32_t s = 0;
        for (int32_t p = 0; p < parts; p++)
            s += mp->partial[(size_t)p * b->inner + c];
        memcpy(out + c, &s, sizeof s);
    }
}

pl_status pl_fast_mean_invoke(pl_context *ctx, pl_node *node)
{
    const pl_reduce_op *d = node->user_data;
    const mean_plan *mp = pl_fast_block(node);
    const pl_reduce_blocks *b =
        mp != NULL ? &mp->blocks : NULL;
    int32_t *sum = b != NULL && d->type != PL_FLOAT32 ? ctx->get_scratch(ctx, d->scratch) : NULL;
    if (b == NULL || (d->type != PL_FLOAT32 && sum == NULL))
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const void *in = pl_fast_data(ctx, pl_node_input(node, 0));
    void *out = pl_fast_data(ctx, pl_node_output(node, 0));
    if (d->type == PL_FLOAT32) {
        float *mean = out, n = (float)d->p.reduced;
        sum_blocks(mp, d->type, in, mean);
        for (size_t k = 0; !d->is_sum && k < d->p.out_count; k++) /* the portable division */
            mean[k] = mean[k] / n;
        return PL_OK;
    }
    if (mp->parts > 0)
        sum_parts(node, mp, d->type, in, sum);
    else
        sum_blocks(mp, d->type, in, sum);
#if defined(PL_FAST_X86)
    pl_isa isa = pl_fast_isa_of(node);
    if (d->type == PL_INT8 && !d->as_uint8 && (isa == PL_ISA_AVX2 || isa == PL_ISA_AVX512)) {
        pl_reduce_rescale_params rp; /* a 1152-channel int8 MEAN: 3.9 -> 1.4 us */
        pl_reduce_rescale_params_of(d, &rp);
        pl_fast_mean_rescale_s8_avx2(&rp, sum, out, d->p.out_count);
        return PL_OK;
    }
#endif
    pl_reduce_rescale(d, sum, out);
    return PL_OK;
}
