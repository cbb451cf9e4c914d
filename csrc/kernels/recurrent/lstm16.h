/* lstm16.h - the 16x8 UNIDIRECTIONAL_SEQUENCE_LSTM as TFLM's EvalLstm<int16, int8, int16,
** int64> computes it (LiteRT has no such kernel; TFLM is the judge), and TFLM's int8 one,
** EvalLstm<int8, int8, int16, int32>, which TFLM's targets run instead of LiteRT's.
**
** int16 (int8) input, hidden state and output, int8 symmetric weights, int64 (int32) biases,
** int16 cell state. Only the standard LSTM: all four gates, no peephole, projection or layer
** norm.
** Each gate is two fully connected ops (input with bias, hidden state without), each
** rescaled to Q3.12 and clamped to int16, added with saturation, then TFLite's int16
** sigmoid (or tanh for the cell gate); cell and hidden updates are int16 MULs requantized
** with fixed-point multipliers, as TFLM's CreateInterGateMulParams builds them. */
#ifndef PL_KERNELS_LSTM16_H
#define PL_KERNELS_LSTM16_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/recurrent/lstm.h"
#include "kernels/recurrent/lstm16_fast.h"
#include "picolite/pl_kernel.h"

/* Prepare of an int16- or int8-input node whose common checks passed: types, the
** standard-LSTM shape (every gate, nothing else) and the quantization; fills q. Fails with
** PL_ERR_UNSUPPORTED or PL_ERR_MODEL naming what TFLM's kernel would not run. */
pl_status pl_lstm16_prepare(pl_context *ctx, const pl_lstm_tensors *t, const pl_lstm_params *p,
                            pl_lstm16_q *q);

/* The whole sequence: in/out as the op's tensors, states updated in place. No scratch: the
** new hidden row is written to the output row, then copied to the state. */
void pl_lstm_s16(const pl_lstm_params *p, const pl_lstm16_q *q, const pl_lstm_weights *w,
                 const int16_t *in, int16_t *out_state, int16_t *cell_state, int16_t *out);
/* The same for TFLM's int8 LSTM (q->s8). */
void pl_lstm_s8_tflm(const pl_lstm_params *p, const pl_lstm16_q *q, const pl_lstm_weights *w,
                     const int8_t *in, int8_t *out_state, int16_t *cell_state, int8_t *out);

/* TFLM + CMSIS-NN's integer LSTM (q->cmsis), int8 or 16x8 by q->s8. CMSIS-NN is handed no
** hidden state and a scratch buffer as its cell state, so every invoke starts from zero
** state and the op's state tensors are neither read nor written: the first step's hidden
** contribution is skipped and each later step reads the previous output row. 'cell' is
** batches x n_cell int16 of scratch. */
void pl_lstm_cmsis(const pl_lstm_params *p, const pl_lstm16_q *q, const pl_lstm_weights *w,
                   const void *in, void *out, int16_t *cell);

#endif
