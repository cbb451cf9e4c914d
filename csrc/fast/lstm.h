/* lstm.h - what UNIDIRECTIONAL_SEQUENCE_LSTM's fast path shares between its float/int8
** file (lstm.c) and its 16x8 one (lstm16.c): the node's plan (not public). */
#ifndef PL_FAST_LSTM_H
#define PL_FAST_LSTM_H

#include <stdint.h>

#include "fast/gemm.h"
#include "fast/gemm16.h"
#include "kernels/recurrent/lstm16_fast.h"

/* The host block's head: sizes, packed weights and where the work area's rows are. */
typedef struct pl_lstm_plan {
    int32_t gates, gn;           /* gates present (3 under CIFG, else 4); gates x cells */
    int32_t gate[PL_LSTM_GATES]; /* the gate of each block of n_cell columns */
    int32_t kx, kh, kp;          /* depths as packed: input, state, hidden (int: to 4) */
    int32_t chunk;               /* time steps per input product */
    void *wx, *wh, *wp;          /* packed gate, recurrent and projection weights */
    int64_t *fold_x, *fold_h, *fold_p; /* integer: - zero point (- 128 for int8) x row sums */
    float *bias;                 /* float: the gates' biases, stacked (at invoke) */
    void *a;                     /* integer: chunk input rows as the product reads them */
    void *sums;                  /* chunk x gn input sums: float, int32 or int64 */
    int16_t *xin;                /* integer: chunk x gn input parts */
    void *ah;                    /* integer: the state row as the product reads it */
    void *rec;                   /* gn recurrent sums */
    void *hidden;                /* n_cell hidden values (projection) */
    void *ap;                    /* int8: the hidden row as the projection reads it */
    int32_t *proj;               /* int8: n_output projection sums */
    int16_t *act;                /* 16x8: gates x n_cell pre-activations, then activated */
    pl_lstm_f32_math math;       /* float: the rows of exps and tanhs */
    pl_gemm_f32_fn *run_f32;     /* float: the products, fused for a fused target */
} pl_lstm_plan;

/* One step of TFLM's integer LSTM after its products: lp->act holds the gates' rescaled
** recurrent parts (gates x n_cell), xin their input parts; adds them (saturating), runs the
** activations and the cells, and writes the new hidden row to out (int16, int8 under q->s8). */
void pl_fast_lstm_tflm_step(const pl_lstm_plan *lp, const pl_lstm_params *p,
                            const pl_lstm16_q *q, const int16_t *xin, int16_t *cell, void *out);

/* The 16x8 sequence of batch b (all its steps). */
void pl_fast_lstm16_batch(const pl_lstm_plan *lp, const pl_lstm_params *p,
                          const pl_lstm16_q *q, const pl_gemm_s16 *g, const pl_lstm_data *t,
                          int32_t b);

#endif
