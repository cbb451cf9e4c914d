/* lstm16.c - UNIDIRECTIONAL_SEQUENCE_LSTM, TFLM's 16x8 and int8 paths (see lstm16.h). */
#include "lstm16.h"

#include <math.h>
#include <string.h>

#include "kernels/activation/logistic_tanh.h"
#include "kernels/common/fixedpoint.h"

/* The fully connected outputs feed the int16 sigmoid/tanh as Q3.12; their products as Q0.15
** (TFLM's nonlinear input and output scales). */
#define GATE_SCALE (1.0f / 4096.0f)
#define ACT_SCALE (1.0f / 32768.0f)

static int16_t sat16(int64_t v)
{
    return (int16_t)(v < INT16_MIN ? INT16_MIN : v > INT16_MAX ? INT16_MAX : v);
}

/* One output of a 16x8 fully connected op: sum w * (x - zp) + bias in int64 (wrapping on a
** hostile bias, as TFLite's int64 does), requantized and clamped to int16. The bias (NULL:
** none) is int64 element 'i' of a model buffer, which may be only 4-byte aligned. */
static int16_t fc16(const int8_t *w, const int16_t *x, int32_t n, int32_t zp,
                    const void *bias, size_t i, int32_t m, int32_t s)
{
    int64_t sum = 0; /* |w * (x - zp)| < 2^24: no overflow below 2^39 columns */
    for (int32_t k = 0; k < n; k++)
        sum += (int32_t)w[k] * ((int32_t)x[k] - zp);
    uint64_t acc = (uint64_t)sum + (bias != NULL ? (uint64_t)pl_load_i64(bias, i) : 0u);
    return sat16(pl_fx_mul_by_qm64((int64_t)acc, m, s));
}

/* One output of an int8 fully connected op: sum w * (x - zp) + bias in int32 (wrapping, as
** TFLite's BiasType), requantized with the int32 rescale and clamped to int16. */
static int16_t fc8(const int8_t *w, const int8_t *x, int32_t n, int32_t zp,
                   const int32_t *bias, int32_t m, int32_t s)
{
    uint32_t acc = bias != NULL ? (uint32_t)*bias : 0u;
    for (int32_t k = 0; k < n; k++)
        acc += (uint32_t)((int32_t)w[k] * ((int32_t)x[k] - zp));
    return sat16(pl_fx_mul_by_qm((int32_t)acc, m, s));
}

/* TFLM's int16 MulElementwise: zp + a * b requantized, clamped to int16. */
static int16_t mul16(int16_t a, int16_t b, int32_t m, int32_t s, int32_t zp)
{
    return sat16((int64_t)zp + pl_fx_mul_by_qm((int32_t)a * (int32_t)b, m, s));
}

/* Gate g of cell c before its activation: FC(input) + FC(hidden state), saturated. x and h
** are int16 rows, or int8 ones under q->s8. */
static int16_t gate(const pl_lstm_params *p, const pl_lstm16_q *q, const pl_lstm_weights *w,
                    int g, int32_t c, const void *x, const void *h)
{
    const pl_lstm16_gate *s = &q->gate[g];
    const int8_t *wx = (const int8_t *)w->wx[g] + (size_t)c * (size_t)p->n_input;
    const int8_t *wh = (const int8_t *)w->wh[g] + (size_t)c * (size_t)p->n_output;
    int16_t in, rec;
    if (q->s8) {
        in = fc8(wx, x, p->n_input, q->input_zp, (const int32_t *)w->bias[g] + c, s->in_m,
                 s->in_s);
        rec = fc8(wh, h, p->n_output, q->hidden_zp, NULL, s->rec_m, s->rec_s);
    } else {
        in = fc16(wx, x, p->n_input, q->input_zp, w->bias[g], (size_t)c, s->in_m, s->in_s);
        rec = fc16(wh, h, p->n_output, q->hidden_zp, NULL, 0, s->rec_m, s->rec_s);
    }
    return sat16((int32_t)in + rec);
}

static int16_t sigmoid(int16_t x)
{
    int16_t y;
    pl_logistic_s16(0, 0, &x, &y, 1);
    return y;
}

int16_t pl_lstm16_cell(const pl_lstm16_q *q, const int16_t *act, int16_t *cell)
{
    int16_t kept = mul16(act[PL_LSTM_GATE_F], *cell, q->forget_m, q->forget_s, 0);
    int16_t next = sat16((int32_t)kept + mul16(act[PL_LSTM_GATE_I], act[PL_LSTM_GATE_C],
                                               q->update_m, q->update_s, 0));
    if (q->cell_clip >= 0)
        next = sat16(next > q->cell_clip ? q->cell_clip
                                         : next < -q->cell_clip ? -q->cell_clip : next);
    *cell = next;
    int16_t t;
    pl_tanh_s16(q->tanh_m, q->tanh_s, &next, &t, 1);
    int32_t h = mul16(t, act[PL_LSTM_GATE_O], q->hidden_m, q->hidden_s, q->hidden_zp);
    return (int16_t)pl_fx_clamp(h, q->hidden_min, q->hidden_max);
}

/* The new hidden value of cell c from the gates over x and the old hidden state h. */
static int16_t cell_step(const pl_lstm_params *p, const pl_lstm16_q *q,
                         const pl_lstm_weights *w, int32_t c, const void *x, const void *h,
                         int16_t *cell)
{
    int16_t act[PL_LSTM_GATES];
    int16_t pre = gate(p, q, w, PL_LSTM_GATE_C, c, x, h);
    act[PL_LSTM_GATE_F] = sigmoid(gate(p, q, w, PL_LSTM_GATE_F, c, x, h));
    act[PL_LSTM_GATE_I] = sigmoid(gate(p, q, w, PL_LSTM_GATE_I, c, x, h));
    pl_tanh_s16(0, 0, &pre, &act[PL_LSTM_GATE_C], 1); /* Q3.12 in: TFLM's -12 power */
    act[PL_LSTM_GATE_O] = sigmoid(gate(p, q, w, PL_LSTM_GATE_O, c, x, h));
    return pl_lstm16_cell(q, act, cell);
}

/* One time step of one batch: every gate reads the old hidden state h, so the new row goes
** to out first and replaces h at the end (TFLM's order). */
static void step_s16(const pl_lstm_params *p, const pl_lstm16_q *q, const pl_lstm_weights *w,
                     const int16_t *x, int16_t *h, int16_t *cell, int16_t *out)
{
    for (int32_t c = 0; c < p->n_cell; c++)
        out[c] = cell_step(p, q, w, c, x, h, &cell[c]);
    memcpy(h, out, sizeof(int16_t) * (size_t)p->n_output);
}

static void step_s8(const pl_lstm_params *p, const pl_lstm16_q *q, const pl_lstm_weights *w,
                    const int8_t *x, int8_t *h, int16_t *cell, int8_t *out)
{
    for (int32_t c = 0; c < p->n_cell; c++)
        out[c] = (int8_t)cell_step(p, q, w, c, x, h, &cell[c]);
    memcpy(h, out, (size_t)p->n_output);
}

void pl_lstm_s16(const pl_lstm_params *p, const pl_lstm16_q *q, const pl_lstm_weights *w,
                 const int16_t *in, int16_t *out_state, int16_t *cell_state, int16_t *out)
{
    for (int32_t b = 0; b < p->batches; b++) {
        for (int32_t t = 0; t < p->steps; t++) {
            size_t row = pl_lstm_row(p, b, t);
            step_s16(p, q, w, in + row * (size_t)p->n_input,
                     out_state + (size_t)b * (size_t)p->n_output,
                     cell_state + (size_t)b * (size_t)p->n_cell,
                     out + row * (size_t)p->n_output);
        }
    }
}

void pl_lstm_s8_tflm(const pl_lstm_params *p, const pl_lstm16_q *q, const pl_lstm_weights *w,
                     const int8_t *in, int8_t *out_state, int16_t *cell_state, int8_t *out)
{
    for (int32_t b = 0; b < p->batches; b++) {
        for (int32_t t = 0; t < p->steps; t++) {
            size_t row = pl_lstm_row(p, b, t);
            step_s8(p, q, w, in + row * (size_t)p->n_input,
                    out_state + (size_t)b * (size_t)p->n_output,
                    cell_state + (size_t)b * (size_t)p->n_cell,
                    out + row * (size_t)p->n_output);
        }
    }
}

/* {=====================================================================
** TFLM + CMSIS-NN's integer LSTM
** Each gate is built up in int16: the input product is rescaled and saturated, then the
** recurrent product is rescaled and added, saturating only the sum (TFLM saturates each
** part first). The 16x8 rescale of an int64 sum reduces the multiplier to 16 bits like
** TFLM's, but drops to 32 bits one shift before the rounding one. */

/* CMSIS-NN's 64-bit requantization: the product shifted right by 14 - shift, truncated to
** 32 bits, then one rounding shift. */
static int32_t cmsis_requant64(int64_t x, int32_t m, int32_t shift)
{
    int32_t reduced = m < 0x7FFF0000 ? (int32_t)(((int64_t)m + (1 << 15)) >> 16) : 0x7FFF;
    int32_t sh = pl_fx_clamp(14 - shift, 0, 63);
    uint64_t p = (uint64_t)x * (uint64_t)(int64_t)reduced; /* wraps as the firmware's */
    int32_t r = (int32_t)(uint32_t)((int64_t)p >> sh);
    return (int32_t)(((int64_t)r + 1) >> 1);
}

/* The 16x8 sum w . x + bias with x's zero point folded into the bias (int64). Helium's
** kernel starts from the folded bias truncated to 32 bits and sums the first 512 columns
** in 32 bits; the DSP and plain builds sum in 64 bits (their 32-bit partial sums of int16
** x int8 products cannot overflow). */
static int64_t cmsis_sum16(const int8_t *w, const int16_t *x, int32_t n, int32_t zp,
                           int64_t bias, bool mve)
{
    int64_t wsum = 0, dot = 0;
    for (int32_t k = 0; k < n; k++)
        wsum += w[k];
    uint64_t folded = (uint64_t)bias - (uint64_t)((int64_t)zp * wsum);
    if (!mve) {
        for (int32_t k = 0; k < n; k++)
            dot += (int32_t)w[k] * (int32_t)x[k];
        return (int64_t)(folded + (uint64_t)dot);
    }
    int32_t head = n < 512 ? n : 512, k = 0;
    uint32_t acc = (uint32_t)folded; /* the low 32 bits, as the int32 accumulator holds */
    for (; k < head; k++)
        acc += (uint32_t)((int32_t)w[k] * (int32_t)x[k]);
    int64_t total = (int32_t)acc;
    for (; k < n; k++)
        total += (int32_t)w[k] * (int32_t)x[k];
    return total;
}

/* Gate g of cell c before its activation, CMSIS-NN's way; h NULL on the first step. */
static int16_t gate_cmsis(const pl_lstm_params *p, const pl_lstm16_q *q,
                          const pl_lstm_weights *w, int g, int32_t c, const void *x,
                          const void *h)
{
    const pl_lstm16_gate *s = &q->gate[g];
    const int8_t *wx = (const int8_t *)w->wx[g] + (size_t)c * (size_t)p->n_input;
    const int8_t *wh = (const int8_t *)w->wh[g] + (size_t)c * (size_t)p->n_output;
    if (q->s8) {
        const int32_t *bias = (const int32_t *)w->bias[g];
        int16_t in = fc8(wx, x, p->n_input, q->input_zp, bias != NULL ? bias + c : NULL,
                         s->in_m, s->in_s);
        if (h == NULL)
            return in;
        uint32_t acc = 0;
        for (int32_t k = 0; k < p->n_output; k++)
            acc += (uint32_t)((int32_t)wh[k] * ((int32_t)((const int8_t *)h)[k] - q->hidden_zp));
        return sat16((int64_t)in + pl_fx_mul_by_qm((int32_t)acc, s->rec_m, s->rec_s));
    }
    int64_t bias = w->bias[g] != NULL ? pl_load_i64(w->bias[g], (size_t)c) : 0;
    int64_t sum = cmsis_sum16(wx, x, p->n_input, q->input_zp, bias, q->mve);
    int16_t in = sat16(cmsis_requant64(sum, s->in_m, s->in_s));
    if (h == NULL)
        return in;
    sum = cmsis_sum16(wh, h, p->n_output, q->hidden_zp, 0, q->mve);
    return sat16((int64_t)in + cmsis_requant64(sum, s->rec_m, s->rec_s));
}

/* One step of one batch: out is the new hidden row, h the previous one (NULL first). */
static void step_cmsis(const pl_lstm_params *p, const pl_lstm16_q *q, const pl_lstm_weights *w,
                       const void *x, const void *h, int16_t *cell, void *out)
{
    for (int32_t c = 0; c < p->n_cell; c++) {
        int16_t act[PL_LSTM_GATES];
        int16_t pre = gate_cmsis(p, q, w, PL_LSTM_GATE_C, c, x, h);
        act[PL_LSTM_GATE_F] = sigmoid(gate_cmsis(p, q, w, PL_LSTM_GATE_F, c, x, h));
        act[PL_LSTM_GATE_I] = sigmoid(gate_cmsis(p, q, w, PL_LSTM_GATE_I, c, x, h));
        pl_tanh_s16(0, 0, &pre, &act[PL_LSTM_GATE_C], 1);
        act[PL_LSTM_GATE_O] = sigmoid(gate_cmsis(p, q, w, PL_LSTM_GATE_O, c, x, h));
        int16_t v = pl_lstm16_cell(q, act, &cell[c]);
        if (q->s8)
            ((int8_t *)out)[c] = (int8_t)v;
        else
            ((int16_t *)out)[c] = v;
    }
}

void pl_lstm_cmsis(const pl_lstm_params *p, const pl_lstm16_q *q, const pl_lstm_weights *w,
                   const void *in, void *out, int16_t *cell)
{
    size_t elem = q->s8 ? 1 : sizeof(int16_t);
    memset(cell, 0, sizeof(int16_t) * (size_t)p->batches * (size_t)p->n_cell);
    for (int32_t b = 0; b < p->batches; b++) {
        int16_t *cb = cell + (size_t)b * (size_t)p->n_cell;
        const uint8_t *h = NULL; /* no hidden state: the first step skips it */
        for (int32_t t = 0; t < p->steps; t++) {
            size_t row = pl_lstm_row(p, b, t);
            uint8_t *o = (uint8_t *)out + row * (size_t)p->n_output * elem;
            step_cmsis(p, q, w, (const uint8_t *)in + row * (size_t)p->n_input * elem, h, cb, o);
            h = o;
        }
    }
}

/* }===================================================================== */

/* ---- prepare (TFLM's ValidateTensorStatus, CreateGateParams, CreateInterGateMulParams,
** CreateLstmCellStateInfo) ---- */

static pl_status check_variant(pl_context *ctx, const pl_lstm_params *p)
{
    if (p->cifg || p->peephole || p->projection)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "UNIDIRECTIONAL_SEQUENCE_LSTM: TFLM's "
                         "integer LSTM is the standard one only (CIFG %d, peephole %d, projection "
                         "%d given), as in TFLM", p->cifg, p->peephole, p->projection);
    if (p->activation != PL_ACT_TANH)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "UNIDIRECTIONAL_SEQUENCE_LSTM: TFLM's "
                         "integer LSTM needs a TANH cell activation (got %d)", p->activation);
    return PL_OK;
}

static bool one_scale(const pl_tensor *t)
{
    return t->q.count == 1 && t->q.scale[0] > 0.0f && isfinite(t->q.scale[0]);
}

/* Weights symmetric (TFLM asserts it), activation zero points within int16 (for int8
** activations they hold int8 values anyway: the tensors' ranges). */
static pl_status check_quant(pl_context *ctx, const pl_lstm_tensors *t)
{
    bool ok = one_scale(t->in) && one_scale(t->out_state) && one_scale(t->cell_state);
    for (int g = 0; ok && g < PL_LSTM_GATES; g++) {
        ok = one_scale(t->wx[g]) && one_scale(t->wh[g]) && t->wx[g]->q.zero_point[0] == 0 &&
             t->wh[g]->q.zero_point[0] == 0;
    }
    if (!ok)
        return ctx->fail(ctx, PL_ERR_MODEL, "UNIDIRECTIONAL_SEQUENCE_LSTM: TFLM's integer "
                         "LSTM needs one positive scale per tensor and weights with zero point 0");
    int32_t zin = t->in->q.zero_point[0], zh = t->out_state->q.zero_point[0];
    if (zin < INT16_MIN || zin > INT16_MAX || zh < INT16_MIN || zh > INT16_MAX)
        return ctx->fail(ctx, PL_ERR_MODEL, "UNIDIRECTIONAL_SEQUENCE_LSTM: int16 zero points "
                         "%d (input) and %d (hidden state) must lie in int16", zin, zh);
    return PL_OK;
}

/* TFLM's GetQuantizedConvolutionMultipler: the scale product in float (TFLM 90b983c), or
** in double (wide: the wheel's release). */
static void fc_multiplier(const pl_tensor *x, const pl_tensor *w, bool wide, int32_t *m,
                          int32_t *s)
{
    double product = pl_fx_pick(wide, (double)x->q.scale[0] * (double)w->q.scale[0],
                                 (double)(x->q.scale[0] * w->q.scale[0]));
    pl_fx_quantize_multiplier(product / (double)GATE_SCALE, m, s);
}

/* CreateInterGateMulParams: the scale product in double. */
static void mul_multiplier(float a, float b, float out, int32_t *m, int32_t *s)
{
    pl_fx_quantize_multiplier((double)a * (double)b / (double)out, m, s);
}

/* CreateLstmCellStateInfo and TFLM's Tanh: the cell scale's rounded log2 (TFLM does not
** require an exact power of two) sets the shift into Q3.12, or a x3/2^n scaling. */
static pl_status cell_tanh(pl_context *ctx, float cell_scale, pl_lstm16_q *q)
{
    float l = pl_fx_roundf(logf(cell_scale) * (1.0f / logf(2.0f)));
    if (!(l >= -43.0f && l <= 17.0f)) /* beyond, TFLM's shifts overflow */
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "UNIDIRECTIONAL_SEQUENCE_LSTM: cell state "
                         "scale %g is outside 2^-43 .. 2^17", (double)cell_scale);
    int32_t left = 15 + (int32_t)l - 3;
    q->tanh_m = left < 0 ? 3 : 0;
    q->tanh_s = left < 0 ? -left : left;
    return PL_OK;
}

pl_status pl_lstm16_prepare(pl_context *ctx, const pl_lstm_tensors *t, const pl_lstm_params *p,
                            pl_lstm16_q *q)
{
    PL_TRY(check_variant(ctx, p));
    PL_TRY(check_quant(ctx, t));
    float cell_scale = t->cell_state->q.scale[0];
    PL_TRY(cell_tanh(ctx, cell_scale, q));
    for (int g = 0; g < PL_LSTM_GATES; g++) {
        bool wide = pl_arith_wide(ctx->arith);
        fc_multiplier(t->in, t->wx[g], wide, &q->gate[g].in_m, &q->gate[g].in_s);
        fc_multiplier(t->out_state, t->wh[g], wide, &q->gate[g].rec_m, &q->gate[g].rec_s);
    }
    mul_multiplier(ACT_SCALE, cell_scale, cell_scale, &q->forget_m, &q->forget_s);
    mul_multiplier(ACT_SCALE, ACT_SCALE, cell_scale, &q->update_m, &q->update_s);
    mul_multiplier(ACT_SCALE, ACT_SCALE, t->out_state->q.scale[0], &q->hidden_m,
                   &q->hidden_s);
    q->input_zp = t->in->q.zero_point[0];
    q->hidden_zp = t->out_state->q.zero_point[0];
    q->s8 = t->in->type == PL_INT8;
    q->cmsis = pl_arith_cmsis_nn(ctx->arith);
    q->mve = ctx->arith == PL_ARITH_CMSIS_NN_MVE;
    q->hidden_min = q->s8 ? INT8_MIN : INT16_MIN;
    q->hidden_max = q->s8 ? INT8_MAX : INT16_MAX;
    double clip = fmin(fmax((double)p->cell_clip / (double)cell_scale, -32768.0), 32767.0);
    q->cell_clip = p->cell_clip > 0.0f ? (int16_t)clip : -1;
    return PL_OK;
}
