/* lstm.h - UNIDIRECTIONAL_SEQUENCE_LSTM as LiteRT's lstm_eval computes it (TFLM's targets
** run TFLM's own integer LSTM for int8 instead: lstm16.h).
**
** float32 (LstmStepFloat) and the 8x8->16 integer LSTM (LstmStepInteger8x8_16): int8
** input/weights/output state, int32 biases, int16 cell state (a power-of-two scale), gates in
** Q3.12 through gemmlowp's int16 logistic and tanh. CIFG, peephole and projection are
** supported; layer normalisation is not (refused in prepare). Every cell's gates depend only
** on the input, the previous output state and that cell's own state, so each cell is
** computed to the end in turn: the new output row is written into the op's output and copied
** to the output state after the row is complete. The int8 path subtracts the zero points
** from the input and state rows once per step (scratch), so the weight-row dot products are
** plain int8 x int16 loops. */
#ifndef PL_KERNELS_LSTM_H
#define PL_KERNELS_LSTM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/recurrent/lstm_fast.h"
#include "picolite/pl_kernel.h"

/* The node's tensors in prepare (NULL when absent). */
typedef struct pl_lstm_tensors {
    pl_tensor *in, *wx[PL_LSTM_GATES], *wh[PL_LSTM_GATES], *peep[PL_LSTM_GATES];
    pl_tensor *bias[PL_LSTM_GATES], *proj_w, *proj_b, *out_state, *cell_state, *out;
    /* The biases' eval views (no kernel reads a bias's quantization): here, not in the
    ** arena's temp, which TFLM's LSTM would otherwise undercut on small models. */
    pl_tensor bias_views[PL_LSTM_GATES + 1];
} pl_lstm_tensors;

/* The whole sequence: in/out as the op's tensors, states updated in place. For float,
** scratch holds n_cell floats when there is a projection (else it may be NULL); for int8 it
** holds pl_lstm_s8_scratch_bytes() (the offset input and state rows, the hidden row). fused:
** the float products fused into their sums (ctx->fused_madd). */
void pl_lstm_f32(const pl_lstm_params *p, const pl_lstm_weights *w, const float *in,
                 float *out_state, float *cell_state, float *out, float *scratch, bool fused);
void pl_lstm_s8(const pl_lstm_params *p, const pl_lstm_weights *w, const int8_t *in,
                int8_t *out_state, int16_t *cell_state, int8_t *out, int16_t *scratch);
size_t pl_lstm_s8_scratch_bytes(const pl_lstm_params *p);

#endif
