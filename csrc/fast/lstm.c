/* lstm.c - UNIDIRECTIONAL_SEQUENCE_LSTM's fast path: the plan (float32, LiteRT's int8
** 8x8->16 and TFLM's integer LSTMs, whose steps are lstm16.c) and the float and int8 steps.
** The input-to-gate products do not depend on the state: for a chunk of time steps of one
** batch they are one matrix product (bias included for float, rescaled to the int16 input
** parts for the integer paths, as both references rescale the input and recurrent parts
** apart). Each step then needs one
** recurrent product with the gates' weights stacked into one packed matrix (for float its
** bias is the step's input sums: the reference's (W_x x + b) + W_h h, lane by lane), and
** the cells, which run the portable kernel's own cell functions. Integer sums are exact
** (zero points folded in with the weight sums). Weights must be constant; layer norm is
** refused by the portable prepare; the rest keeps the portable kernel. */
#include <math.h>
#include <string.h>

#include "fast/exp.h"
#include "fast/fast.h"
#include "fast/gemm.h"
#include "fast/gemm16.h"
#include "fast/lstm.h"
#include "kernels/common/arith_fast.h"

enum { LIMIT = 1 << 24 }; /* weights and sums past this keep the portable kernel */

/* Carves n bytes from *at. */
static void *take(uint8_t **at, size_t n)
{
    void *p = *at;
    *at += pl_fast_align64(n);
    return p;
}

static size_t max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* The constant data of input i (a folded DEQUANTIZE's too), or NULL. */
static const void *constant(pl_context *ctx, const pl_node *node, uint32_t i)
{
    pl_tensor t;
    if (pl_fast_eval_constant(ctx, node, pl_node_input(node, i), &t) != PL_OK || !t.is_constant)
        return NULL;
    return t.data;
}

/* The weights of the gates present (inputs first..first+3), false unless all constant. */
static bool weights(pl_context *ctx, const pl_node *node, const pl_lstm_plan *lp, uint32_t first,
                    const void **w)
{
    for (int32_t s = 0; s < lp->gates; s++)
        if ((w[s] = constant(ctx, node, first + (uint32_t)lp->gate[s])) == NULL)
            return false;
    return true;
}

/* The gates' weights (n_cell rows of k each) stacked into stage. */
static void stack(const pl_lstm_plan *lp, const void *const *w, int32_t n_cell, int32_t k,
                  size_t elem, uint8_t *stage)
{
    size_t rows = (size_t)n_cell * (size_t)k * elem;
    for (int32_t s = 0; s < lp->gates; s++)
        memcpy(stage + (size_t)s * rows, w[s], rows);
}

/* fold[r] = zp * sum of row r of w (n rows of k int8). */
static void fold_rows(const int8_t *w, int32_t n, int32_t k, int64_t zp, int64_t *fold)
{
    for (int32_t r = 0; r < n; r++) {
        int64_t sum = 0;
        for (int32_t i = 0; i < k; i++)
            sum += w[(size_t)r * (size_t)k + (size_t)i];
        fold[r] = zp * sum;
    }
}

/* The three packers with one signature: k is the row length, kp the packed depth. */
static void pack(pl_isa isa, pl_type type, const void *w, int32_t n, int32_t k, int32_t kp,
                 void *packed)
{
    if (type == PL_FLOAT32)
        pl_gemm_f32_for(isa)->pack(w, n, k, packed);
    else if (type == PL_INT8)
        pl_gemm_s8_for(isa)->pack(w, n, k, kp, packed);
    else
        pl_gemm_s16_for(isa)->pack(w, n, k, kp, packed);
}

static size_t packed_bytes(pl_isa isa, pl_type type, int32_t n, int32_t kp)
{
    if (type == PL_FLOAT32)
        return pl_gemm_f32_for(isa)->packed_bytes(n, kp);
    if (type == PL_INT8)
        return pl_gemm_s8_for(isa)->packed_bytes(n, kp);
    return pl_gemm_s16_for(isa)->packed_bytes(n, kp);
}

static bool supported(const pl_lstm_op *d, pl_isa isa)
{
    const pl_lstm_params *p = &d->p;
    if (p->n_input <= 0 || p->n_output <= 0 || p->n_cell <= 0 || p->steps <= 0 ||
        p->batches <= 0 || (size_t)p->n_cell * 4 * (size_t)p->n_input > LIMIT ||
        (size_t)p->n_cell * 4 * (size_t)p->n_output > LIMIT ||
        (size_t)p->n_cell * (size_t)p->n_output > LIMIT)
        return false;
    if (d->type == PL_FLOAT32)
        return pl_gemm_f32_for(isa) != NULL;
    if (d->q16 != NULL && d->q16->cmsis) /* CMSIS-NN's: the portable kernel's only */
        return false;
    if (d->type == PL_INT8 && d->q16 != NULL) /* TFLM's int8 LSTM */
        return pl_gemm_s8_for(isa) != NULL;
    if (d->type == PL_INT8) /* x - zp must fit the portable kernel's int16 rows */
        return pl_gemm_s8_for(isa) != NULL && p->input_zp >= INT8_MIN &&
               p->input_zp <= INT8_MAX && p->state_zp >= INT8_MIN && p->state_zp <= INT8_MAX;
    return d->type == PL_INT16 && pl_gemm_s16_for(isa) != NULL;
}

/* The host block: the plan, packed weights and folds, then one work area (the stacked
** weights while packing, the sums and rows at invoke). */
static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_lstm_op *d = node->user_data;
    const pl_lstm_params *p = &d->p;
    pl_isa isa = pl_fast_isa_of(node);
    if (!supported(d, isa))
        return false;
    bool f32 = d->type == PL_FLOAT32, s8 = d->type == PL_INT8;
    size_t elem = f32 ? sizeof(float) : s8 ? 1 : sizeof(int16_t); /* activations */
    size_t wsize = f32 ? sizeof(float) : 1;                      /* weights */
    size_t ssize = s8 || f32 ? 4 : sizeof(int64_t);               /* sums */
    pl_lstm_plan lp = {0};
    for (int32_t g = p->cifg ? PL_LSTM_GATE_F : PL_LSTM_GATE_I; g < PL_LSTM_GATES; g++)
        lp.gate[lp.gates++] = g;
    lp.gn = lp.gates * p->n_cell;
    lp.kx = f32 ? p->n_input : pl_fast_round_up(p->n_input, 4);
    lp.kh = f32 ? p->n_output : pl_fast_round_up(p->n_output, 4);
    lp.kp = f32 ? p->n_cell : pl_fast_round_up(p->n_cell, 4);
    const pl_exp_kernels *e = pl_exp_for(pl_fast_isa_of(node)); /* the same bits, by lanes */
    lp.math = e != NULL ? (pl_lstm_f32_math){e->expf, e->tanhf} : pl_lstm_f32_fmath;
    lp.run_f32 = pl_gemm_f32_run(pl_gemm_f32_for(isa), ctx->fused_madd);
    if (f32 && lp.run_f32 == NULL) /* a fused target without FMA: the portable kernel */
        return false;
    lp.chunk = pl_fast_chunk_rows((size_t)lp.gn * ssize, (size_t)p->steps);
    const void *w_x[PL_LSTM_GATES], *w_h[PL_LSTM_GATES];
    const void *w_p = p->projection ? constant(ctx, node, PL_LSTM_IN_PROJ_W) : NULL;
    if (!weights(ctx, node, &lp, PL_LSTM_IN_WX, w_x) ||
        !weights(ctx, node, &lp, PL_LSTM_IN_WH, w_h) || (p->projection && w_p == NULL))
        return false;
    size_t gn = (size_t)lp.gn, chunk = (size_t)lp.chunk, n_cell = (size_t)p->n_cell;
    size_t n_out = (size_t)p->n_output;
    size_t wx = packed_bytes(isa, d->type, lp.gn, lp.kx);
    size_t wh = packed_bytes(isa, d->type, lp.gn, lp.kh);
    size_t wp = p->projection ? packed_bytes(isa, d->type, p->n_output, lp.kp) : 0;
    size_t folds = f32 ? 0 : 2 * pl_fast_align64(gn * 8) + pl_fast_align64(n_out * 8);
    size_t stage = gn * (size_t)(p->n_input > p->n_output ? p->n_input : p->n_output) * wsize;
    size_t work = pl_fast_align64(f32 ? gn * sizeof(float) : chunk * (size_t)lp.kx * elem) +
                  pl_fast_align64(chunk * gn * ssize) +
                  pl_fast_align64(f32 ? 0 : chunk * gn * sizeof(int16_t)) +
                  pl_fast_align64((size_t)lp.kh * elem) + pl_fast_align64(gn * ssize) +
                  pl_fast_align64(n_cell * elem) + pl_fast_align64((size_t)lp.kp) +
                  pl_fast_align64(n_out * 4) + pl_fast_align64(4 * n_cell * sizeof(int16_t));
    size_t head = pl_fast_align64(sizeof lp);
    uint8_t *block = pl_fast_block_new(node, head + pl_fast_align64(wx) + pl_fast_align64(wh) +
                                                 pl_fast_align64(wp) + folds +
                                                 max_size(pl_fast_align64(stage), work));
    if (block == NULL)
        return false;
    uint8_t *at = block + head;
    lp.wx = take(&at, wx);
    lp.wh = take(&at, wh);
    lp.wp = p->projection ? take(&at, wp) : NULL;
    if (!f32) {
        lp.fold_x = take(&at, gn * 8);
        lp.fold_h = take(&at, gn * 8);
        lp.fold_p = take(&at, n_out * 8);
    }
    uint8_t *base = at; /* the work area */
    /* integer: sum w (x - zp) = the product's sum + fold (int8 rows hold x + 128); TFLM's
    ** integer LSTMs keep their zero points in q16 */
    int64_t zx = f32 ? 0 : d->q16 != NULL ? -(int64_t)d->q16->input_zp : -(int64_t)p->input_zp;
    int64_t zh = f32 ? 0 : d->q16 != NULL ? -(int64_t)d->q16->hidden_zp
                                           : -(int64_t)p->state_zp;
    zx -= s8 ? 128 : 0;
    zh -= s8 ? 128 : 0;
    stack(&lp, w_x, p->n_cell, p->n_input, wsize, base);
    pack(isa, d->type, base, lp.gn, p->n_input, lp.kx, lp.wx);
    if (!f32)
        fold_rows((const int8_t *)base, lp.gn, p->n_input, zx, lp.fold_x);
    stack(&lp, w_h, p->n_cell, p->n_output, wsize, base);
    pack(isa, d->type, base, lp.gn, p->n_output, lp.kh, lp.wh);
    if (!f32)
        fold_rows((const int8_t *)base, lp.gn, p->n_output, zh, lp.fold_h);
    if (p->projection) {
        pack(isa, d->type, w_p, p->n_output, p->n_cell, lp.kp, lp.wp);
        if (s8)
            fold_rows(w_p, p->n_output, p->n_cell, -(int64_t)p->hidden_zp - 128, lp.fold_p);
    }
    if (f32)
        lp.bias = take(&at, gn * sizeof(float));
    else
        lp.a = take(&at, chunk * (size_t)lp.kx * elem);
    lp.sums = take(&at, chunk * gn * ssize);
    lp.xin = f32 ? NULL : take(&at, chunk * gn * sizeof(int16_t));
    lp.ah = take(&at, (size_t)lp.kh * elem);
    lp.rec = take(&at, gn * ssize);
    lp.hidden = take(&at, n_cell * elem);
    lp.ap = take(&at, (size_t)lp.kp);
    lp.proj = take(&at, n_out * 4);
    lp.act = take(&at, 4 * n_cell * sizeof(int16_t));
    memcpy(block, &lp, sizeof lp);
    return true;
}

pl_status pl_fast_lstm_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

/* Input row of batch b at step t, and the stride between steps. */
static size_t step_stride(const pl_lstm_params *p, size_t row)
{
    return p->time_major ? (size_t)p->batches * row : row;
}

static void batch_f32(const pl_lstm_plan *lp, const pl_lstm_params *p, const pl_lstm_data *t,
                      int32_t b)
{
    const size_t gn = (size_t)lp->gn, n_out = (size_t)p->n_output;
    const size_t lda = step_stride(p, (size_t)p->n_input);
    const float *in = (const float *)t->in + pl_lstm_row(p, b, 0) * (size_t)p->n_input;
    float *h = (float *)t->out_state + (size_t)b * n_out;
    float *cell = (float *)t->cell_state + (size_t)b * (size_t)p->n_cell;
    float *gx = lp->sums, *gh = lp->rec;
    for (int32_t t0 = 0; t0 < p->steps; t0 += lp->chunk) {
        int32_t rows = p->steps - t0 < lp->chunk ? p->steps - t0 : lp->chunk;
        lp->run_f32(rows, lp->gn, p->n_input, in + (size_t)t0 * lda, lda, lp->wx, lp->bias,
                    -INFINITY, INFINITY, gx, gn);
        for (int32_t s = 0; s < rows; s++) {
            /* no clamp: +-infinity bounds pass every value, NaN included */
            lp->run_f32(1, lp->gn, p->n_output, h, n_out, lp->wh, gx + (size_t)s * gn,
                        -INFINITY, INFINITY, gh, gn);
            float *out = (float *)t->out + pl_lstm_row(p, b, t0 + s) * n_out;
            float *hidden = p->projection ? lp->hidden : out;
            float *gate[PL_LSTM_GATES] = {NULL};
            for (int32_t k = 0; k < lp->gates; k++)
                gate[lp->gate[k]] = gh + (size_t)k * (size_t)p->n_cell;
            pl_lstm_f32_cells(p, &lp->math, &t->w, 0, p->n_cell, gate, cell, hidden);
            if (p->projection) {
                lp->run_f32(1, p->n_output, p->n_cell, hidden, (size_t)p->n_cell, lp->wp,
                            t->w.proj_b, -INFINITY, INFINITY, out, n_out);
                for (size_t r = 0; p->proj_clip > 0.0f && r < n_out; r++)
                    out[r] = pl_fx_clamp_f32(out[r], -p->proj_clip, p->proj_clip);
            }
            memcpy(h, out, sizeof(float) * n_out);
        }
    }
}

/* x + 128 as unsigned bytes, padded with 0 to kp. */
static void to_u8(const int8_t *x, int32_t n, int32_t kp, uint8_t *a)
{
    for (int32_t i = 0; i < n; i++)
        a[i] = (uint8_t)((uint8_t)x[i] ^ 0x80u);
    memset(a + n, 0, (size_t)(kp - n));
}

static void batch_s8(const pl_lstm_plan *lp, const pl_lstm_params *p, const pl_gemm_s8 *g,
                     const pl_lstm_data *t, int32_t b)
{
    const size_t gn = (size_t)lp->gn, n_out = (size_t)p->n_output, n_cell = (size_t)p->n_cell;
    int8_t *h = (int8_t *)t->out_state + (size_t)b * n_out;
    int16_t *cell = (int16_t *)t->cell_state + (size_t)b * n_cell;
    int32_t *raw = lp->sums, *rec = lp->rec;
    uint8_t *a = lp->a;
    for (int32_t t0 = 0; t0 < p->steps; t0 += lp->chunk) {
        int32_t rows = p->steps - t0 < lp->chunk ? p->steps - t0 : lp->chunk;
        for (int32_t s = 0; s < rows; s++)
            to_u8((const int8_t *)t->in + pl_lstm_row(p, b, t0 + s) * (size_t)p->n_input,
                  p->n_input, lp->kx, a + (size_t)s * (size_t)lp->kx);
        g->run(rows, lp->gn, lp->kx, a, (size_t)lp->kx, lp->wx, NULL, NULL, raw, gn);
        for (int32_t k = 0; k < lp->gates; k++) {
            const int32_t *bias = t->w.bias[lp->gate[k]];
            for (int32_t s = 0; s < rows; s++)
                for (size_t c = 0, j = (size_t)k * n_cell; c < n_cell; c++, j++) {
                    size_t o = (size_t)s * gn + j;
                    uint32_t v = (uint32_t)raw[o] + (uint32_t)lp->fold_x[j] + (uint32_t)bias[c];
                    lp->xin[o] = pl_lstm_s8_input_part(p, lp->gate[k], (int32_t)v);
                }
        }
        for (int32_t s = 0; s < rows; s++) {
            to_u8(h, p->n_output, lp->kh, lp->ah);
            g->run(1, lp->gn, lp->kh, lp->ah, (size_t)lp->kh, lp->wh, NULL, NULL, rec, gn);
            int8_t *out = (int8_t *)t->out + pl_lstm_row(p, b, t0 + s) * n_out;
            int8_t *hidden = p->projection ? lp->hidden : out;
            uint32_t *sums = (uint32_t *)rec; /* the recurrent sums, zero points folded in */
            for (size_t j = 0; j < gn; j++)
                sums[j] += (uint32_t)lp->fold_h[j];
            int16_t *gate[PL_LSTM_GATES] = {NULL};
            const uint32_t *recs[PL_LSTM_GATES] = {NULL};
            for (int32_t k = 0; k < lp->gates; k++) {
                gate[lp->gate[k]] = lp->xin + (size_t)s * gn + (size_t)k * n_cell;
                recs[lp->gate[k]] = sums + (size_t)k * n_cell;
            }
            pl_lstm_s8_cells(p, &t->w, 0, p->n_cell, gate, recs, cell, hidden);
            if (p->projection) {
                const int32_t *pb = t->w.proj_b;
                to_u8(hidden, p->n_cell, lp->kp, lp->ap);
                g->run(1, p->n_output, lp->kp, lp->ap, (size_t)lp->kp, lp->wp, NULL, NULL,
                       lp->proj, n_out);
                for (size_t r = 0; r < n_out; r++) {
                    uint32_t v = (uint32_t)lp->proj[r] + (uint32_t)lp->fold_p[r] +
                                 (pb != NULL ? (uint32_t)pb[r] : 0u);
                    out[r] = pl_lstm_s8_project(p, (int32_t)v);
                }
            }
            memcpy(h, out, n_out);
        }
    }
}

/* TFLM's int32 fully connected output: the wrapped sum rescaled, saturated to int16. */
static int16_t fc8_out(uint32_t sum, int32_t m, int32_t s)
{
    return (int16_t)pl_fx_clamp(pl_fx_mul_by_qm((int32_t)sum, m, s), INT16_MIN, INT16_MAX);
}

/* TFLM's int8 LSTM (EvalLstm<int8, int8, int16, int32>): the int8 products of batch_s8,
** each gate part rescaled apart as TFLM does, then the 16x8 path's step. */
static void batch_s8_tflm(const pl_lstm_plan *lp, const pl_lstm_params *p,
                          const pl_lstm16_q *q, const pl_gemm_s8 *g, const pl_lstm_data *t,
                          int32_t b)
{
    const size_t gn = (size_t)lp->gn, n_out = (size_t)p->n_output, n_cell = (size_t)p->n_cell;
    int8_t *h = (int8_t *)t->out_state + (size_t)b * n_out;
    int16_t *cell = (int16_t *)t->cell_state + (size_t)b * n_cell;
    int32_t *raw = lp->sums, *rec = lp->rec;
    uint8_t *a = lp->a;
    for (int32_t t0 = 0; t0 < p->steps; t0 += lp->chunk) {
        int32_t rows = p->steps - t0 < lp->chunk ? p->steps - t0 : lp->chunk;
        for (int32_t s = 0; s < rows; s++)
            to_u8((const int8_t *)t->in + pl_lstm_row(p, b, t0 + s) * (size_t)p->n_input,
                  p->n_input, lp->kx, a + (size_t)s * (size_t)lp->kx);
        g->run(rows, lp->gn, lp->kx, a, (size_t)lp->kx, lp->wx, NULL, NULL, raw, gn);
        for (int32_t k = 0; k < lp->gates; k++) {
            const pl_lstm16_gate *sc = &q->gate[lp->gate[k]];
            const int32_t *bias = t->w.bias[lp->gate[k]];
            for (int32_t s = 0; s < rows; s++)
                for (size_t c = 0, j = (size_t)k * n_cell; c < n_cell; c++, j++) {
                    size_t o = (size_t)s * gn + j;
                    uint32_t v = (uint32_t)raw[o] + (uint32_t)lp->fold_x[j] + (uint32_t)bias[c];
                    lp->xin[o] = fc8_out(v, sc->in_m, sc->in_s);
                }
        }
        for (int32_t s = 0; s < rows; s++) {
            to_u8(h, p->n_output, lp->kh, lp->ah);
            g->run(1, lp->gn, lp->kh, lp->ah, (size_t)lp->kh, lp->wh, NULL, NULL, rec, gn);
            for (int32_t k = 0; k < lp->gates; k++) {
                const pl_lstm16_gate *sc = &q->gate[lp->gate[k]];
                for (size_t c = 0, j = (size_t)k * n_cell; c < n_cell; c++, j++)
                    lp->act[j] = fc8_out((uint32_t)rec[j] + (uint32_t)lp->fold_h[j], sc->rec_m,
                                         sc->rec_s);
            }
            int8_t *out = (int8_t *)t->out + pl_lstm_row(p, b, t0 + s) * n_out;
            pl_fast_lstm_tflm_step(lp, p, q, lp->xin + (size_t)s * gn, cell, out);
            memcpy(h, out, n_out);
        }
    }
}

pl_status pl_fast_lstm_invoke(pl_context *ctx, pl_node *node)
{
    pl_lstm_plan *lp = pl_fast_block(node);
    if (lp == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    const pl_lstm_op *d = node->user_data;
    const pl_lstm_params *p = &d->p;
    pl_lstm_data t;
    PL_TRY(pl_lstm_data_get(ctx, node, &t));
    pl_isa isa = pl_fast_isa_of(node);
    for (int32_t k = 0; d->type == PL_FLOAT32 && k < lp->gates; k++)
        memcpy(lp->bias + (size_t)k * (size_t)p->n_cell, t.w.bias[lp->gate[k]],
               sizeof(float) * (size_t)p->n_cell);
    for (int32_t b = 0; b < p->batches; b++) {
        if (d->type == PL_FLOAT32)
            batch_f32(lp, p, &t, b);
        else if (d->type == PL_INT8 && d->q16 != NULL)
            batch_s8_tflm(lp, p, d->q16, pl_gemm_s8_for(isa), &t, b);
        else if (d->type == PL_INT8)
            batch_s8(lp, p, pl_gemm_s8_for(isa), &t, b);
        else
            pl_fast_lstm16_batch(lp, p, d->q16, pl_gemm_s16_for(isa), &t, b);
    }
    return PL_OK;
}
