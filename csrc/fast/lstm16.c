/* lstm16.c - UNIDIRECTIONAL_SEQUENCE_LSTM's fast path for TFLM's integer LSTMs, one batch at
** a time. 16x8: exact int64 sums from the 16x8 matrix product (zero points folded in with
** the weight sums), TFLM's per-gate rescales of the input and recurrent parts; int8 (lstm.c
** computes its int32 parts); then for both the int16 sigmoid and tanh over whole gate rows
** and the portable kernel's cell function (pl_lstm16_cell). */
#include <string.h>

#include "fast/lstm.h"
#include "kernels/activation/logistic_tanh_fast.h"
#include "kernels/common/arith_fast.h"

/* TFLM's 16x8 fully connected output: the exact sum plus bias (wrapping), rescaled, int16.
** The bias (NULL: none) is int64 element 'i' of a model buffer, maybe only 4-byte aligned. */
static int16_t fc16_out(int64_t sum, const void *bias, size_t i, int32_t m, int32_t s)
{
    uint64_t acc = (uint64_t)sum + (bias != NULL ? (uint64_t)pl_load_i64(bias, i) : 0u);
    int32_t v = pl_fx_mul_by_qm64((int64_t)acc, m, s);
    return (int16_t)pl_fx_clamp(v, INT16_MIN, INT16_MAX);
}

/* x padded with 0 to kp. */
static void to_s16(const int16_t *x, int32_t n, int32_t kp, int16_t *a)
{
    memcpy(a, x, sizeof(int16_t) * (size_t)n);
    memset(a + n, 0, sizeof(int16_t) * (size_t)(kp - n));
}

void pl_fast_lstm_tflm_step(const pl_lstm_plan *lp, const pl_lstm_params *p,
                            const pl_lstm16_q *q, const int16_t *xin, int16_t *cell, void *out)
{
    const size_t n_cell = (size_t)p->n_cell;
    int16_t *act = lp->act;
    for (int32_t k = 0; k < lp->gates; k++) {
        int16_t *row = act + (size_t)k * n_cell;
        for (size_t c = 0; c < n_cell; c++) {
            int32_t v = (int32_t)xin[(size_t)k * n_cell + c] + row[c];
            row[c] = (int16_t)pl_fx_clamp(v, INT16_MIN, INT16_MAX);
        }
        if (lp->gate[k] == PL_LSTM_GATE_C) /* Q3.12 in: TFLM's -12 power */
            pl_tanh_s16(0, 0, row, row, p->n_cell);
        else
            pl_logistic_s16(0, 0, row, row, p->n_cell);
    }
    for (size_t c = 0; c < n_cell; c++) {
        int16_t a4[PL_LSTM_GATES];
        for (int32_t k = 0; k < PL_LSTM_GATES; k++)
            a4[lp->gate[k]] = act[(size_t)k * n_cell + c];
        int16_t h = pl_lstm16_cell(q, a4, &cell[c]);
        if (q->s8)
            ((int8_t *)out)[c] = (int8_t)h;
        else
            ((int16_t *)out)[c] = h;
    }
}

void pl_fast_lstm16_batch(const pl_lstm_plan *lp, const pl_lstm_params *p,
                          const pl_lstm16_q *q, const pl_gemm_s16 *g, const pl_lstm_data *t,
                          int32_t b)
{
    const size_t gn = (size_t)lp->gn, n_out = (size_t)p->n_output, n_cell = (size_t)p->n_cell;
    int16_t *h = (int16_t *)t->out_state + (size_t)b * n_out;
    int16_t *cell = (int16_t *)t->cell_state + (size_t)b * n_cell;
    int64_t *raw = lp->sums, *rec = lp->rec;
    int16_t *a = lp->a, *act = lp->act;
    for (int32_t t0 = 0; t0 < p->steps; t0 += lp->chunk) {
        int32_t rows = p->steps - t0 < lp->chunk ? p->steps - t0 : lp->chunk;
        for (int32_t s = 0; s < rows; s++)
            to_s16((const int16_t *)t->in + pl_lstm_row(p, b, t0 + s) * (size_t)p->n_input,
                   p->n_input, lp->kx, a + (size_t)s * (size_t)lp->kx);
        g->run(rows, lp->gn, lp->kx, a, (size_t)lp->kx, lp->wx, NULL, NULL, raw, gn);
        for (int32_t k = 0; k < lp->gates; k++) {
            const pl_lstm16_gate *sc = &q->gate[lp->gate[k]];
            const void *bias = t->w.bias[lp->gate[k]];
            for (int32_t s = 0; s < rows; s++)
                for (size_t c = 0, j = (size_t)k * n_cell; c < n_cell; c++, j++) {
                    size_t o = (size_t)s * gn + j;
                    lp->xin[o] = fc16_out(raw[o] + lp->fold_x[j], bias, c, sc->in_m,
                                           sc->in_s);
                }
        }
        for (int32_t s = 0; s < rows; s++) {
            to_s16(h, p->n_output, lp->kh, lp->ah);
            g->run(1, lp->gn, lp->kh, lp->ah, (size_t)lp->kh, lp->wh, NULL, NULL, rec, gn);
            for (int32_t k = 0; k < lp->gates; k++) {
                const pl_lstm16_gate *sc = &q->gate[lp->gate[k]];
                for (size_t c = 0, j = (size_t)k * n_cell; c < n_cell; c++, j++)
                    act[j] = fc16_out(rec[j] + lp->fold_h[j], NULL, 0, sc->rec_m, sc->rec_s);
            }
            int16_t *out = (int16_t *)t->out + pl_lstm_row(p, b, t0 + s) * n_out;
            pl_fast_lstm_tflm_step(lp, p, q, lp->xin + (size_t)s * gn, cell, out);
            memcpy(h, out, sizeof(int16_t) * n_out);
        }
    }
}

