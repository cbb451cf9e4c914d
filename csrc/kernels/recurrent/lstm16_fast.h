/* lstm16_fast.h - TFLM's integer LSTM's part of the LSTM contract (lstm_fast.h): its
** parameters and the cell step the fast path shares with the portable kernel. */
#ifndef PL_KERNELS_LSTM16_FAST_H
#define PL_KERNELS_LSTM16_FAST_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/recurrent/lstm_fast.h"
#include "picolite/pl_kernel.h"

/* Requantization of one gate: the input and the recurrent fully connected op. */
typedef struct pl_lstm16_gate {
    int32_t in_m, in_s, rec_m, rec_s;
} pl_lstm16_gate;

struct pl_lstm16_q {
    pl_lstm16_gate gate[PL_LSTM_GATES];
    int32_t input_zp, hidden_zp;
    int32_t forget_m, forget_s; /* forget gate x cell state -> cell state */
    int32_t update_m, update_s; /* input gate x cell gate -> cell state */
    int32_t hidden_m, hidden_s; /* output gate x tanh(cell) -> hidden state */
    int32_t tanh_m, tanh_s;     /* tanh(cell state): TFLM's multiplier and shift */
    int32_t cell_clip;          /* -1: no clipping */
    int32_t hidden_min, hidden_max; /* the hidden state's type range */
    bool s8;                    /* int8 activations and int32 biases, else 16x8 */
    bool cmsis;                 /* TFLM + CMSIS-NN's kernel (pl_lstm_cmsis) */
    bool mve;                   /* ... as built for Helium (16x8 gate sums, see lstm16.c) */
};

/* One cell's step from its activated gates (act[g] in gate order: sigmoid or, for the cell
** gate, tanh of the Q3.12 sums): the cell update and the new hidden value, which it returns.
** The portable and fast paths share it. */
int16_t pl_lstm16_cell(const pl_lstm16_q *q, const int16_t *act, int16_t *cell);

#endif
