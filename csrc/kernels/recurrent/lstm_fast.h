/* lstm_fast.h - UNIDIRECTIONAL_SEQUENCE_LSTM's contract with the host fast path
** (fast/lstm*.c): the op data, the node's tensor data and the per-cell steps the fast
** path shares with the portable kernel (it computes the gates' sums, these the rest).
**
** A fast path reads these after the portable prepare ran and never writes them; it runs
** the portable invoke for what it does not reproduce. q16 is set only for TFLM's integer
** path (lstm16_fast.h). */
#ifndef PL_KERNELS_LSTM_FAST_H
#define PL_KERNELS_LSTM_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Gate order of the op's inputs: input, forget, cell (update), output. */
enum { PL_LSTM_GATE_I = 0, PL_LSTM_GATE_F, PL_LSTM_GATE_C, PL_LSTM_GATE_O, PL_LSTM_GATES };

/* Multiplier/shift pairs of one gate: input, recurrent and peephole (cell) products. */
typedef struct pl_lstm_gate_scale {
    int32_t in_m, in_s, rec_m, rec_s, cell_m, cell_s;
} pl_lstm_gate_scale;

typedef struct pl_lstm_params {
    int32_t batches, steps, n_input, n_cell, n_output;
    bool time_major, cifg, peephole, projection;
    int32_t activation; /* float: the cell gate's and the output's activation */
    float cell_clip, proj_clip;
    /* integer only */
    int32_t input_zp, state_zp, hidden_zp;
    int32_t cell_scale_log2;
    int32_t q_cell_clip, q_proj_clip; /* 0: no clipping */
    pl_lstm_gate_scale gate[PL_LSTM_GATES];
    int32_t hidden_m, hidden_s, proj_m, proj_s;
} pl_lstm_params;

/* Tensor data; absent tensors are NULL (wx/wh/bias of GATE_I under CIFG, peepholes, the
** projection). peep[PL_LSTM_GATE_C] is always NULL. */
typedef struct pl_lstm_weights {
    const void *wx[PL_LSTM_GATES], *wh[PL_LSTM_GATES], *peep[PL_LSTM_GATES];
    const void *bias[PL_LSTM_GATES];
    const void *proj_w, *proj_b;
} pl_lstm_weights;

/* Row index of (batch b, time t) in the input and output. */
static inline size_t pl_lstm_row(const pl_lstm_params *p, int32_t b, int32_t t)
{
    return p->time_major ? (size_t)t * (size_t)p->batches + (size_t)b
                         : (size_t)b * (size_t)p->steps + (size_t)t;
}

typedef struct pl_lstm16_q pl_lstm16_q; /* lstm16.h */

/* The op data (node->user_data): what the fast path's prepare reads. */
typedef struct pl_lstm_op {
    pl_lstm_params p;
    pl_type type;
    int32_t scratch; /* scratch handle (float projection, int8), -1 without */
    PL_SLOT(pl_lstm16_q *, q16); /* TFLM's integer path's parameters (16x8, or int8 under
                                 ** TFLM's targets), allocated only for it */
} pl_lstm_op;

/* Input tensor positions (lstm_shared.h). */
enum {
    PL_LSTM_IN_INPUT = 0,
    PL_LSTM_IN_WX = 1,    /* 1..4: input-to-{input, forget, cell, output} weights */
    PL_LSTM_IN_WH = 5,    /* 5..8: recurrent-to-gate weights */
    PL_LSTM_IN_PEEP = 9,  /* 9..11: cell-to-{input, forget, output} weights */
    PL_LSTM_IN_BIAS = 12, /* 12..15: gate biases */
    PL_LSTM_IN_PROJ_W = 16,
    PL_LSTM_IN_PROJ_B = 17,
    PL_LSTM_IN_OUTPUT_STATE = 18,
    PL_LSTM_IN_CELL_STATE = 19,
    PL_LSTM_IN_LAYER_NORM = 20 /* 20..23 */
};

/* Invoke: the node's tensor data. */
typedef struct pl_lstm_data {
    pl_lstm_weights w;
    const void *in;
    void *out_state, *cell_state, *out;
} pl_lstm_data;

pl_status pl_lstm_data_get(pl_context *ctx, const pl_node *node, pl_lstm_data *d);

const pl_registration *pl_unidirectional_sequence_lstm_registration(void);

/* Rows of pl_fmath_expf and pl_fmath_tanhf (out[i] = f(in[i]), in == out allowed): the
** portable loops, or vector copies giving the same bits. */
typedef struct pl_lstm_f32_math {
    void (*expf)(const float *in, float *out, size_t n);
    void (*tanhf)(const float *in, float *out, size_t n);
} pl_lstm_f32_math;

extern const pl_lstm_f32_math pl_lstm_f32_fmath; /* loops over pl_fmath_expf/tanhf */

/* The step of n cells from cell c0 on, from their gates' sums (gate[g][j] = (W_x x + bias)
** + W_h h of cell c0 + j, gate order above, gate[GATE_I] unused under CIFG; overwritten):
** the peepholes, activations (sigmoid as 1 / (1 + e^-v)) and the cell update, each value in
** LiteRT's order. Updates cell[0..n), writes hidden[0..n). The portable (n = 1) and fast (a
** whole row) paths share it, so their bits agree. */
void pl_lstm_f32_cells(const pl_lstm_params *p, const pl_lstm_f32_math *m,
                       const pl_lstm_weights *w, int32_t c0, int32_t n, float *const *gate,
                       float *cell, float *hidden);

/* The int8 input part of gate g from its sum W_x (x - zp) + bias (wrapping int32):
** rescaled to Q3.12 and saturated to int16. */
int16_t pl_lstm_s8_input_part(const pl_lstm_params *p, int g, int32_t sum);

/* The int8 step of n cells from c0 on, as pl_lstm_f32_cells: gate[g][j] holds the gate's
** input part (overwritten), rec[g][j] its raw recurrent sum W_h (h - zp) (wrapping);
** gate[GATE_I] and rec[GATE_I] unused under CIFG. Writes the hidden int8 values. */
void pl_lstm_s8_cells(const pl_lstm_params *p, const pl_lstm_weights *w, int32_t c0,
                      int32_t n, int16_t *const *gate, const uint32_t *const *rec,
                      int16_t *cell, int8_t *hidden);

/* A projected int8 output from its sum W_p (hidden - zp) + bias (wrapping int32). */
int8_t pl_lstm_s8_project(const pl_lstm_params *p, int32_t sum);

#endif
