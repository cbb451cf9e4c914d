/* fast.h - what the fast operators share: their portable registration and their node's
** host block (not public). */
#ifndef PL_FAST_FAST_H
#define PL_FAST_FAST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "picolite/pl_fast.h"

static inline const pl_fast_registration *pl_fast_reg_of(const pl_node *node)
{
    return (const pl_fast_registration *)node->registration;
}

/* The resolver's instruction set for this node. */
static inline pl_isa pl_fast_isa_of(const pl_node *node)
{
    return pl_fast_reg_of(node)->owner->isa;
}

/* n rounded up to a multiple of 64 (host blocks are carved in cache lines). */
static inline size_t pl_fast_align64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

/* Output points gathered per matrix product: about 64 KB of rows of row_bytes (they stay in
** the L2 cache), a multiple of 24 (every kernel's row block divides it), no more than the
** points need (rows of no bytes, an empty filter's: as many as they need). */
static inline int32_t pl_fast_chunk_rows(size_t row_bytes, size_t points)
{
    enum { CHUNK_BYTES = 64 * 1024, ROW_STEP = 24 };
    size_t rows = row_bytes > 0 ? CHUNK_BYTES / row_bytes / ROW_STEP * ROW_STEP : SIZE_MAX;
    size_t needed = (points + ROW_STEP - 1) / ROW_STEP * ROW_STEP;
    rows = rows < ROW_STEP ? ROW_STEP : rows;
    return (int32_t)(rows < needed ? rows : needed);
}

/* Whether every weight is finite: a float product that reads zeros for padded or unreached
** taps adds 0 * w there, which is not 0 for an infinite or NaN w (such a node declines). */
static inline bool pl_fast_all_finite(const float *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(w[i] - w[i] == 0.0f))
            return false;
    return true;
}

/* Invoke: a prepared node's input or output bytes (planned at prepare: only the data is
** needed), through the runtime's quick accessor where it offers one, else get_eval's (the
** whole views of a fast FULLY_CONNECTED's four tensors were 568 instructions a node, 6% of
** MLPerf Tiny's anomaly detection's invoke). */
static inline void *pl_fast_data(pl_context *ctx, int32_t index)
{
    if (ctx->tensor_data != NULL)
        return ctx->tensor_data(ctx, index);
    pl_tensor t;
    return ctx->get_eval(ctx, index, &t) == PL_OK ? t.data : NULL;
}

/* Threads (threads.c): fn(arg, worker, task) for every task in [0, tasks), spread over the
** node's resolver's threads (worker 0 is the caller, the others 1..threads - 1) when the
** whole job is worth waking them for (work: about its multiply-adds), else in order on the
** caller; returns when all are done. A task must compute the same bytes whichever worker
** runs it. */
typedef void pl_fast_task_fn(void *arg, int32_t worker, int32_t task);
void pl_fast_parallel(const pl_node *node, int32_t tasks, double work, pl_fast_task_fn *fn,
                      void *arg);

/* fn(arg, worker, at, count) over [0, n) in spans of `span` (the last one shorter), each
** span a task of pl_fast_parallel (work as there): for jobs whose elements are each on
** their own, so any split gives the same bytes. */
typedef void pl_fast_span_fn(void *arg, int32_t worker, size_t at, size_t count);
void pl_fast_spans(const pl_node *node, size_t n, size_t span, double work,
                   pl_fast_span_fn *fn, void *arg);

/* Below this much work (about its multiply-adds) a job stays on the caller (the resolver's
** parallel_min_work starts at it): waking workers would cost more than they save. Lower
** than it was (262144): a node left on the caller reads what the workers wrote from their
** cores' caches (2 threads, face-detection-like: 555 -> 477-491 us; 32768 slowed models of
** 20-50 us further). */
#define PL_FAST_PARALLEL_WORK 65536.0

/* Prepare: how many workers the node's invoke may run on (per-worker scratch). */
static inline int32_t pl_fast_threads_of(const pl_node *node)
{
    return pl_fast_reg_of(node)->owner->thread_count;
}

/* pl_fast_chunk_rows for a job split over workers threads: small enough (never under 24)
** that each gets about four chunks to share out, then evened out to as many chunks of equal
** rows (a multiple of the 6-row blocks), so that no chunk is a short tail (36 points: two
** chunks of 18, not 24 and 12, whose workers waited for the longer one: 1.48 -> 1.9 times
** faster on two threads). */
static inline int32_t pl_fast_chunk_rows_split(size_t row_bytes, size_t points, int32_t workers)
{
    int32_t rows = pl_fast_chunk_rows(row_bytes, points);
    if (workers <= 1)
        return rows;
    size_t share = (points + 4 * (size_t)workers - 1) / (4 * (size_t)workers);
    share = (share + 23) / 24 * 24;
    size_t split = share < (size_t)rows ? share : (size_t)rows;
    size_t chunks = (points + split - 1) / split;
    size_t even = ((points + chunks - 1) / chunks + 5) / 6 * 6;
    return (int32_t)(even < split ? even : split);
}

/* Prepare: a new 64-byte-aligned host block of bytes for node, in place of any it had;
** NULL (the node then has none) when the host gives no memory. */
void *pl_fast_block_new(const pl_node *node, size_t bytes);

/* Prepare: a new block holding a copy of the bytes of plan; false (no block) when the host
** gives no memory. */
static inline bool pl_fast_block_put(const pl_node *node, const void *plan, size_t bytes)
{
    void *block = pl_fast_block_new(node, bytes);
    if (block != NULL)
        memcpy(block, plan, bytes);
    return block != NULL;
}

/* Prepare: the node keeps no block (its invoke takes the portable path). */
void pl_fast_block_drop(const pl_node *node);

/* A fast operator's prepare: the portable prepare (so every arena figure is the portable
** build's), then the fast path's plan, which sets up the node's block or declines (false:
** no block, the portable invoke runs). */
static inline pl_status pl_fast_prepare(pl_context *ctx, pl_node *node,
                                        bool (*plan)(pl_context *ctx, const pl_node *node))
{
    PL_TRY(pl_fast_reg_of(node)->base->prepare(ctx, node));
    if (!plan(ctx, node))
        pl_fast_block_drop(node);
    return PL_OK;
}

/* Invoke: the node's block, NULL when it has none. */
void *pl_fast_block(const pl_node *node);

/* Prepare, one-subgraph models (false otherwise, or when the host gives no memory): tensor
** out holds table[x] for each byte x of tensor in, element by element (an 8-bit activation's
** lookup), so a node reading both can take its bytes from x alone (pl_fast_table_of).
** pl_fast_table_drop forgets it (the activation's prepare, before it plans again). */
bool pl_fast_table_note(const pl_context *ctx, const pl_node *node, int32_t out, int32_t in,
                        const uint8_t table[256]);
void pl_fast_table_drop(const pl_node *node, int32_t out);

/* The same for a float activation computed lane by lane: out = fn(in) element by element
** (LOGISTIC, TANH, GELU: the fast kernel, the portable kernel's bits). */
typedef void pl_fast_lanes_fn(const float *in, float *out, size_t n);
bool pl_fast_lanes_note(const pl_context *ctx, const pl_node *node, int32_t out, int32_t in,
                        pl_fast_lanes_fn *fn);

/* The table tensor index was looked up in (NULL when none was noted), *in its input. */
const uint8_t *pl_fast_table_of(const pl_node *node, int32_t index, int32_t *in);

/* The function tensor index was computed by (NULL when none was noted), *in its input. */
pl_fast_lanes_fn *pl_fast_lanes_of(const pl_node *node, int32_t index, int32_t *in);

/* Prepare: this node takes tensor index's bytes from its input and the table, never from
** the arena; once every reader of it has (ctx->reader_count), the lookup writes nothing. */
void pl_fast_table_claim(const pl_node *node, int32_t index);

/* Invoke: whether claims (a fold's, a table note's) are every node input naming tensor index,
** and no one else may look (ctx->reader_count: not a model output, not every tensor
** preserved), so that the tensor need not be written. */
bool pl_fast_every_reader_claimed(pl_context *ctx, uint32_t claims, int32_t index);

/* Invoke of a noted lookup: true when no one reads its output out (every reader claimed it,
** ctx->reader_count), so it writes nothing (tests: 0xFF bytes, poison_unread). *state: 0
** after prepare, then what the first invoke found (1 unread, 2 read). out: the output
** tensor's index, its data and bytes. */
bool pl_fast_table_unread(pl_context *ctx, const pl_node *node, uint8_t *state, int32_t out,
                          void *data, size_t bytes);

/* Prepare: the resolver's scratch grown to at least bytes (false: the host gives no memory;
** the node then declines). Invoke: the scratch, which every node of the resolver's
** interpreters shares (its invoke writes what it reads there first and keeps nothing in it
** for later), so a resolver runs one invoke at a time, as its threads do. */
bool pl_fast_scratch_reserve(const pl_node *node, size_t bytes);
void *pl_fast_scratch(const pl_node *node);

/* The same for an operator that keeps no op data (RESIZE_*), found by the node's index: only
** in a one-subgraph model (NULL otherwise, as when the host gives no memory). Its invoke
** checks that the block was made for the shapes it sees. */
void *pl_fast_node_block_new(const pl_context *ctx, const pl_node *node, size_t bytes);
void pl_fast_node_block_drop(const pl_node *node);
void *pl_fast_node_block(const pl_node *node);

/* Prepare: a new 64-byte-aligned host block of bytes for the values of tensor index (of a
** one-subgraph model), in place of any it had; NULL when the host gives no memory. */
void *pl_fast_fold_new(const pl_node *node, int32_t index, size_t bytes);

/* Prepare: tensor index keeps no folded values. */
void pl_fast_fold_drop(const pl_node *node, int32_t index);

/* The folded values of tensor index when they take bytes, else NULL. */
const void *pl_fast_fold(const pl_node *node, int32_t index, size_t bytes);

/* Prepare: this node reads tensor index (each of its inputs that names it) from the folded
** values alone, never from the arena, at invoke too: once every reader claims a fold, its
** DEQUANTIZE writes nothing (fold.c). Nothing when index has no folded values. A fast path
** claims its folded inputs last, when its plan holds (pl_fast_claim_folds). */
void pl_fast_fold_claim(const pl_node *node, int32_t index);

/* Invoke: how many readers claimed tensor index's folded values since they were made. */
uint32_t pl_fast_fold_claims(const pl_node *node, int32_t index);

/* pl_fast_fold_claim of the node's inputs first..last (those it has). */
static inline void pl_fast_claim_folds(const pl_node *node, uint32_t first, uint32_t last)
{
    for (uint32_t i = first; i <= last && i < node->inputs.n; i++)
        pl_fast_fold_claim(node, pl_node_input(node, i));
}

/* Prepare and invoke: ctx->get_eval of tensor index, except that a tensor a DEQUANTIZE
** folded (fold.c) comes back constant with its values in host memory: a fast path packs it
** as a model constant, or reads it there at invoke. The arena copy may not be written
** (pl_fast_fold_claim). */
pl_status pl_fast_eval_constant(pl_context *ctx, const pl_node *node, int32_t index,
                                pl_tensor *out);

/* The same for an eval view t already fetched (an invoke's views): no second get_eval. */
void pl_fast_use_fold(const pl_context *ctx, const pl_node *node, pl_tensor *t);

/* The fast operators: prepare runs the portable prepare first, then sets up a block or
** drops it; invoke runs the SIMD path when there is a block. */
pl_status pl_fast_conv_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_minmax_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_conv_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_fully_connected_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_fully_connected_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_depthwise_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_depthwise_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_elementwise_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_elementwise_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_avg_pool_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_max_pool_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_pool_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_softmax_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_softmax_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_batch_matmul_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_batch_matmul_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_transpose_conv_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_transpose_conv_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_lut8_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_lut8_invoke(pl_context *ctx, pl_node *node);
/* The seal's AVX2 hash of the tail (x86/seal_avx2.c; pl_fast_seal_feed_for picks it). */
void pl_fast_seal_feed_avx2(uint64_t lane[4], const unsigned char *bytes, size_t n);
/* x86-64: the CPU has AVX-512 VBMI besides the avx512 set (cpu.c). */
bool pl_fast_x86_has_vbmi(void);
/* Invoke of a LOGISTIC, TANH or GELU node whose block lut8 made (an 8-bit type's table). */
pl_status pl_fast_lut8_invoke_block(pl_context *ctx, pl_node *node, void *block);
pl_status pl_fast_lstm_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_lstm_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_logistic_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_tanh_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_gelu_prepare(pl_context *ctx, pl_node *node);
/* The float GELU kernel of isa (the tanh form when approximate) where its bits are the host
** libm's (gelu.c), else NULL. */
pl_fast_lanes_fn *pl_fast_gelu_for(pl_isa isa, bool approximate);
pl_status pl_fast_logistic_tanh_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_dequantize_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_dequantize_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_prelu_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_prelu_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_strided_slice_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_strided_slice_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_slice_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_slice_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_pad_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_pad_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_transpose_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_transpose_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_join_split_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_join_split_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_gather_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_gather_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_resize_bilinear_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_resize_nearest_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_resize_invoke(pl_context *ctx, pl_node *node);
/* RESIZE_BILINEAR's output pixel of channels from its four corners (resize_body.h), built
** for each set: type FLOAT32, UINT8, INT8 or INT16; fused (a fused target's float) only
** where the set has FMA (avx2, neon). */
typedef struct pl_fast_bilinear_corners {
    const void *r00, *r10, *r01, *r11; /* (lo, lo), (hi, lo), (lo, hi), (hi, hi) */
    float wy, wx;                      /* float weights of hi */
    int32_t w[4];                      /* integer weights of the corners, in 1/2^20ths */
} pl_fast_bilinear_corners;

typedef void (*pl_fast_bilinear_px)(void *restrict dst, const pl_fast_bilinear_corners *k,
                                    int32_t channels, pl_type type, bool fused);
void pl_fast_bilinear_px_c(void *restrict dst, const pl_fast_bilinear_corners *k,
                           int32_t channels, pl_type type, bool fused);
void pl_fast_bilinear_px_sse41(void *restrict dst, const pl_fast_bilinear_corners *k,
                               int32_t channels, pl_type type, bool fused);
void pl_fast_bilinear_px_avx2(void *restrict dst, const pl_fast_bilinear_corners *k,
                              int32_t channels, pl_type type, bool fused);
void pl_fast_bilinear_px_neon(void *restrict dst, const pl_fast_bilinear_corners *k,
                              int32_t channels, pl_type type, bool fused);
pl_status pl_fast_svdf_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_svdf_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_mean_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_mean_invoke(pl_context *ctx, pl_node *node);
/* MEAN's sums of a block of n channels (mean_body.h), built for each set; the largest block
** each takes is pl_fast_mean_lanes's. */
typedef void (*pl_fast_mean_sums)(const void *x, size_t reduced, size_t inner, size_t n,
                                  pl_type type, void *out);
void pl_fast_mean_sums_c(const void *x, size_t reduced, size_t inner, size_t n, pl_type type,
                         void *out);
void pl_fast_mean_sums_sse41(const void *x, size_t reduced, size_t inner, size_t n,
                             pl_type type, void *out);
void pl_fast_mean_sums_avx2(const void *x, size_t reduced, size_t inner, size_t n,
                            pl_type type, void *out);
void pl_fast_mean_sums_neon(const void *x, size_t reduced, size_t inner, size_t n,
                            pl_type type, void *out);
/* TFLite's per-tensor int8 output stage: clamp(MultiplyByQuantizedMultiplier(sum, multiplier,
** shift) + offset, act_min, act_max). */
typedef struct pl_fast_requant {
    int32_t multiplier, shift, offset, act_min, act_max;
} pl_fast_requant;
/* out[m][c] = q's stage of raw[m][c] + col[c] + row[m] (the additions wrapping as uint32),
** rows of cols values (requant_avx2.c: AVX2 and AVX-512). */
void pl_fast_requant_rows_avx2(const pl_fast_requant *q, const int32_t *raw, const int32_t *col,
                               const int32_t *row, int32_t rows, int32_t cols, int8_t *out);

/* pl_reduce_rescale of n int8 outputs with rp's operands (reduce_fast.h), vectorized
** (mean_avx2.c: AVX2 and AVX-512). */
typedef struct pl_reduce_rescale_params pl_reduce_rescale_params;
void pl_fast_mean_rescale_s8_avx2(const pl_reduce_rescale_params *rp, const int32_t *sum,
                                  int8_t *out, size_t n);
/* out[r] = the sum of row r of rows rows of n floats, each in element order (0 + x[0] + x[1]
** ...), eight rows' adds side by side (mean.c; float MEAN, SUM and SOFTMAX). */
void pl_fast_sum_rows_f32(const float *x, size_t rows, size_t n, float *out);
pl_status pl_fast_arg_max_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_arg_max_invoke(pl_context *ctx, pl_node *node);
pl_status pl_fast_reduce_extreme_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_reduce_extreme_invoke(pl_context *ctx, pl_node *node);
/* REDUCE_MAX's (is_max) or REDUCE_MIN's fold of a block of n channels (mean_body.h). */
typedef void (*pl_fast_extremes)(const void *x, size_t reduced, size_t inner, size_t n,
                                 pl_type type, bool is_max, void *out);
void pl_fast_extremes_c(const void *x, size_t reduced, size_t inner, size_t n, pl_type type,
                        bool is_max, void *out);
void pl_fast_extremes_sse41(const void *x, size_t reduced, size_t inner, size_t n,
                            pl_type type, bool is_max, void *out);
void pl_fast_extremes_avx2(const void *x, size_t reduced, size_t inner, size_t n,
                           pl_type type, bool is_max, void *out);
void pl_fast_extremes_neon(const void *x, size_t reduced, size_t inner, size_t n,
                           pl_type type, bool is_max, void *out);

#endif
