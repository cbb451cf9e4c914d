/* lstm.c - UNIDIRECTIONAL_SEQUENCE_LSTM: float32 and 8x8->16 integer (see lstm.h). */
#include "lstm.h"

#include <math.h>
#include <string.h>

#include "kernels/common/fixedpoint.h"
#include "kernels/common/fmath.h"
#include "kernels/common/madd.h"
#include "kernels/recurrent/lstm16.h"
#include "picolite/pl_node_io.h"

/* UnidirectionalSequenceLSTMOptions field ids (schema.fbs). */
enum { OPT_ACTIVATION = 0, OPT_CELL_CLIP, OPT_PROJ_CLIP, OPT_TIME_MAJOR, OPT_ASYMMETRIC };


typedef pl_lstm_op op_data;

/* Inlined copies of fixedpoint.c's SaturatingRoundingDoublingHighMul, RoundingDivideByPOT
** and MultiplyByQuantizedMultiplier (same bits): they run a dozen times per cell. */
static inline int32_t srdhm32(int32_t a, int32_t b)
{
    if (a == INT32_MIN && b == INT32_MIN)
        return INT32_MAX;
    int64_t ab = (int64_t)a * (int64_t)b;
    int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

static inline int32_t rdbpot32(int32_t x, int32_t exponent)
{
    int32_t mask = (int32_t)((1LL << exponent) - 1);
    int32_t remainder = x & mask;
    int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

static inline int32_t mul_qm(int32_t x, int32_t m, int32_t shift)
{
    int32_t left = shift > 0 ? shift : 0;
    int32_t right = shift > 0 ? 0 : (shift < -31 ? 31 : -shift);
    int32_t scaled = left < 32 ? (int32_t)((uint32_t)x << left) : 0;
    return rdbpot32(srdhm32(scaled, m), right);
}

/* ---- gemmlowp fixed point on int16 raw values (FixedPoint<int16_t, IntegerBits>) ---- */

static inline int16_t sat16(int32_t x)
{
    return (int16_t)pl_fx_clamp(x, INT16_MIN, INT16_MAX);
}

/* sat16(a + b) with the sum in 64 bits: a rescaled product near INT32_MAX (hostile scales
** or biases) plus a gate value would overflow int32; the saturated result is the same. */
static inline int16_t sat16_add(int32_t a, int32_t b)
{
    int64_t v = (int64_t)a + b;
    return (int16_t)(v < INT16_MIN ? INT16_MIN : v > INT16_MAX ? INT16_MAX : v);
}

static inline int16_t wrap16(int32_t x)
{
    return (int16_t)(uint16_t)(uint32_t)x;
}

static inline int16_t srdhm16(int16_t a, int16_t b)
{
    if (a == INT16_MIN && b == INT16_MIN)
        return INT16_MAX;
    int32_t ab = (int32_t)a * (int32_t)b;
    int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
    return (int16_t)((ab + nudge) / (1 << 15));
}

static inline int16_t rdbpot16(int16_t x, int32_t exponent)
{
    int32_t mask = (1 << exponent) - 1;
    int32_t remainder = x & mask;
    int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (int16_t)((x >> exponent) + (remainder > threshold ? 1 : 0));
}

/* SaturatingRoundingMultiplyByPOT<exponent>. */
static inline int16_t mul_pot16(int16_t x, int32_t exponent)
{
    if (exponent < 0)
        return rdbpot16(x, -exponent);
    if (exponent == 0)
        return x;
    int32_t threshold = (1 << (15 - exponent)) - 1;
    if (x > threshold)
        return INT16_MAX;
    if (x < -threshold)
        return INT16_MIN;
    return wrap16(x * (1 << exponent));
}

/* An int32-encoded gemmlowp constant rounded to 16 bits (RescaleConstantInitializer). */
static inline int16_t k16(int32_t v)
{
    return (int16_t)rdbpot32(v, 16); /* inline: folds to a constant */
}

/* exp(a) for a in [-1/4, 0), Q0.15. */
static inline int16_t exp_quarter16(int16_t a)
{
    const int16_t constant_term = k16(1895147668), one_third = k16(715827883);
    int16_t x = wrap16(a + (1 << 12));
    int16_t x2 = srdhm16(x, x), x3 = srdhm16(x2, x), x4 = srdhm16(x2, x2);
    int16_t x4_over_4 = mul_pot16(x4, -2);
    int16_t poly = mul_pot16(wrap16(srdhm16(wrap16(x4_over_4 + x3), one_third) + x2), -1);
    return sat16(constant_term + srdhm16(constant_term, wrap16(x + poly)));
}

/* exp(a) for a <= 0 given with `ib` integer bits; the result is Q0.15. */
static inline int16_t exp_neg16(int16_t a, int32_t ib)
{
    static const int32_t factors[7] = {1672461947, 1302514674, 790015084, 290630308,
                                       39332535,   720401,     242};
    int32_t fb = 15 - ib;
    int16_t quarter = (int16_t)(1 << (fb - 2));
    int16_t a_mod = wrap16((a & (quarter - 1)) - quarter);
    int16_t result = exp_quarter16(mul_pot16(a_mod, ib));
    uint16_t remainder = (uint16_t)wrap16(a_mod - a);
    for (int32_t e = -2; e <= 4; e++) {
        if (ib > e && ((remainder >> (fb + e)) & 1u))
            result = srdhm16(result, k16(factors[e + 2]));
    }
    if (ib > 5 && a < k16(-(1 << (36 - ib))))
        result = 0;
    return a == 0 ? INT16_MAX : result;
}

/* Newton-Raphson 1 / (1 + a) in Q2.13 for a in Q0.15 (shared by the two below). */
static inline int16_t newton_recip16(int16_t a)
{
    int32_t sum = (int32_t)a + INT16_MAX;
    int16_t half = (int16_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
    int16_t x = wrap16(k16(1515870810) + srdhm16(half, k16(-1010580540)));
    for (int i = 0; i < 3; i++) {
        int16_t one_minus = wrap16((1 << 13) - srdhm16(half, x));
        x = wrap16(x + mul_pot16(srdhm16(x, one_minus), 2));
    }
    return x;
}

static inline int16_t logistic16(int16_t a, int32_t ib)
{
    if (a == 0)
        return k16(1 << 30);
    int16_t abs_a = a > 0 ? a : wrap16(-a);
    int16_t pos = mul_pot16(newton_recip16(exp_neg16(wrap16(-abs_a), ib)), 1);
    return a > 0 ? pos : wrap16(INT16_MAX - pos);
}

static inline int16_t tanh16(int16_t a, int32_t ib)
{
    if (a == 0)
        return 0;
    int16_t n = a < 0 ? a : wrap16(-a);
    int16_t t = mul_pot16(wrap16(newton_recip16(exp_neg16(n, ib + 1)) - (1 << 13)), 2);
    return a < 0 ? wrap16(-t) : t;
}

/* ---- float ---- */

static float activate(int32_t activation, float x)
{
    switch (activation) {
    case PL_ACT_RELU:
        return x < 0.0f ? 0.0f : x;
    case PL_ACT_RELU_N1_TO_1:
        return pl_fx_clamp_f32(x, -1.0f, 1.0f);
    case PL_ACT_RELU6:
        return pl_fx_clamp_f32(x, 0.0f, 6.0f);
    case PL_ACT_TANH:
        return pl_fmath_tanhf(x);
    default:
        return x;
    }
}

static void expf_row(const float *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = pl_fmath_expf(in[i]);
}

static void tanhf_row(const float *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = pl_fmath_tanhf(in[i]);
}

const pl_lstm_f32_math pl_lstm_f32_fmath = {expf_row, tanhf_row};

/* The activation of n values in place. */
static void activate_row(const pl_lstm_f32_math *m, int32_t activation, float *v, int32_t n)
{
    if (activation == PL_ACT_TANH)
        m->tanhf(v, v, (size_t)n);
    else
        for (int32_t j = 0; j < n; j++)
            v[j] = activate(activation, v[j]);
}

/* fused: each product fused into the sum, as a fused target's firmware computes TFLM's
** FullyConnected */
static float dot_f32(const float *w, const float *x, int32_t n, bool fused)
{
    float total = 0.0f;
    for (int32_t k = 0; k < n; k++)
        total = pl_madd_f32(total, w[k], x[k], fused);
    return total;
}

/* (W_x x + bias) + W_h h, before the peephole and the activation: LiteRT's order. */
static float gate_f32(const pl_lstm_params *p, const pl_lstm_weights *w, int g, int32_t c,
                      const float *x, const float *h, bool fused)
{
    const float *wx = (const float *)w->wx[g] + (size_t)c * (size_t)p->n_input;
    const float *wh = (const float *)w->wh[g] + (size_t)c * (size_t)p->n_output;
    float v = dot_f32(wx, x, p->n_input, fused) + ((const float *)w->bias[g])[c];
    return dot_f32(wh, h, p->n_output, fused) + v;
}

/* 1 / (1 + e^-v) of gate g's n sums in place, after its peephole term (cell, from cell
** c0 on). */
static void sigmoid_row(const pl_lstm_f32_math *m, const pl_lstm_weights *w, int g,
                        int32_t c0, int32_t n, float *v, const float *cell)
{
    const float *peep = w->peep[g] != NULL ? (const float *)w->peep[g] + c0 : NULL;
    for (int32_t j = 0; peep != NULL && j < n; j++)
        v[j] += peep[j] * cell[j];
    for (int32_t j = 0; j < n; j++)
        v[j] = -v[j];
    m->expf(v, v, (size_t)n);
    for (int32_t j = 0; j < n; j++)
        v[j] = 1.0f / (1.0f + v[j]);
}

void pl_lstm_f32_cells(const pl_lstm_params *p, const pl_lstm_f32_math *m,
                       const pl_lstm_weights *w, int32_t c0, int32_t n, float *const *gate,
                       float *cell, float *hidden)
{
    float *f = gate[PL_LSTM_GATE_F], *g = gate[PL_LSTM_GATE_C], *o = gate[PL_LSTM_GATE_O];
    float *i = gate[PL_LSTM_GATE_I];
    sigmoid_row(m, w, PL_LSTM_GATE_F, c0, n, f, cell);
    activate_row(m, p->activation, g, n);
    if (!p->cifg)
        sigmoid_row(m, w, PL_LSTM_GATE_I, c0, n, i, cell);
    for (int32_t j = 0; j < n; j++) {
        float next = f[j] * cell[j];
        next += g[j] * (p->cifg ? 1.0f - f[j] : i[j]);
        if (p->cell_clip > 0.0f)
            next = pl_fx_clamp_f32(next, -p->cell_clip, p->cell_clip);
        cell[j] = next;
    }
    sigmoid_row(m, w, PL_LSTM_GATE_O, c0, n, o, cell);
    memcpy(hidden, cell, sizeof(float) * (size_t)n);
    activate_row(m, p->activation, hidden, n);
    for (int32_t j = 0; j < n; j++)
        hidden[j] = o[j] * hidden[j];
}

static void step_f32(const pl_lstm_params *p, const pl_lstm_weights *w, const float *x,
                     float *h, float *cell, float *out, float *scratch, bool fused)
{
    float *hidden = p->projection ? scratch : out;
    for (int32_t c = 0; c < p->n_cell; c++) {
        float sum[PL_LSTM_GATES] = {0};
        float *const rows[PL_LSTM_GATES] = {&sum[0], &sum[1], &sum[2], &sum[3]};
        for (int g = p->cifg ? PL_LSTM_GATE_F : PL_LSTM_GATE_I; g < PL_LSTM_GATES; g++)
            sum[g] = gate_f32(p, w, g, c, x, h, fused);
        pl_lstm_f32_cells(p, &pl_lstm_f32_fmath, w, c, 1, rows, &cell[c], &hidden[c]);
    }
    for (int32_t r = 0; p->projection && r < p->n_output; r++) {
        const float *pw = (const float *)w->proj_w + (size_t)r * (size_t)p->n_cell;
        float v = dot_f32(pw, hidden, p->n_cell, fused);
        if (w->proj_b != NULL)
            v += ((const float *)w->proj_b)[r];
        out[r] = p->proj_clip > 0.0f ? pl_fx_clamp_f32(v, -p->proj_clip, p->proj_clip) : v;
    }
    memcpy(h, out, sizeof(float) * (size_t)p->n_output);
}

/* ---- integer 8x8 -> 16 ---- */

/* Largest run whose int8 * int16 products (|w * (x - zp)| <= 128 * 255) cannot overflow
** an int32 partial sum; runs are added wrapping, like LiteRT's int32 accumulator. */
enum { DOT_RUN = 65536 };

/* sum w * xz (+ bias) with xz = x - zp precomputed, wrapping like LiteRT's int32. The inner
** loop is a plain signed int8 x int16 dot product, which the compiler vectorises. */
static inline int32_t dot_s8(const int8_t *restrict w, const int16_t *restrict xz, int32_t n,
                             const int32_t *bias)
{
    uint32_t acc = bias != NULL ? (uint32_t)*bias : 0u;
    if (n <= DOT_RUN) { /* the usual case, kept free of the run loop */
        int32_t sum = 0;
        for (int32_t k = 0; k < n; k++)
            sum += (int32_t)w[k] * (int32_t)xz[k];
        return (int32_t)(acc + (uint32_t)sum);
    }
    for (int32_t k0 = 0; k0 < n; k0 += DOT_RUN) {
        int32_t end = n - k0 < DOT_RUN ? n : k0 + DOT_RUN;
        int32_t run = 0;
        for (int32_t k = k0; k < end; k++)
            run += (int32_t)w[k] * (int32_t)xz[k];
        acc += (uint32_t)run;
    }
    return (int32_t)acc;
}

/* x - zp for a whole row, once per step instead of once per weight row. */
static void offset_row(const int8_t *x, int32_t zp, int32_t n, int16_t *xz)
{
    for (int32_t k = 0; k < n; k++)
        xz[k] = (int16_t)(x[k] - zp);
}

/* Row c of the four gates' weights (n columns) times xz, wrapping like LiteRT's int32.
** One pass over xz feeds four accumulators: short rows (8 to 32 columns in the usual models)
** cost a quarter of the loop overhead. Without an input gate (CIFG) its row is the forget
** gate's, computed and ignored. */
static inline void dot4_s8(const void *const *wg, int32_t c, const int16_t *restrict xz,
                           int32_t n, uint32_t *sum)
{
    const int8_t *w[PL_LSTM_GATES];
    for (int g = 0; g < PL_LSTM_GATES; g++) {
        const void *m = wg[g] != NULL ? wg[g] : wg[PL_LSTM_GATE_F];
        w[g] = (const int8_t *)m + (size_t)c * (size_t)n;
    }
    if (n > DOT_RUN) {
        for (int g = 0; g < PL_LSTM_GATES; g++)
            sum[g] = (uint32_t)dot_s8(w[g], xz, n, NULL);
        return;
    }
    const int8_t *restrict w0 = w[0], *restrict w1 = w[1], *restrict w2 = w[2];
    const int8_t *restrict w3 = w[3];
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int32_t k = 0; k < n; k++) {
        int32_t x = xz[k];
        s0 += w0[k] * x;
        s1 += w1[k] * x;
        s2 += w2[k] * x;
        s3 += w3[k] * x;
    }
    sum[0] = (uint32_t)s0;
    sum[1] = (uint32_t)s1;
    sum[2] = (uint32_t)s2;
    sum[3] = (uint32_t)s3;
}

int16_t pl_lstm_s8_input_part(const pl_lstm_params *p, int g, int32_t sum)
{
    return sat16(mul_qm(sum, p->gate[g].in_m, p->gate[g].in_s));
}

/* Gate g's Q3.12 pre-activations of n cells from c0 on, in place over their input parts v:
** the recurrent sum's and the peephole's products (with cell) each rescaled and added with
** saturation. */
static void gate_row_s8(const pl_lstm_params *p, const pl_lstm_weights *w, int g, int32_t c0,
                        int32_t n, int16_t *v, const uint32_t *hs, const int16_t *cell)
{
    const pl_lstm_gate_scale *s = &p->gate[g];
    const int16_t *peep = w->peep[g] != NULL ? (const int16_t *)w->peep[g] + c0 : NULL;
    for (int32_t j = 0; j < n; j++) {
        int32_t x = sat16_add(mul_qm((int32_t)hs[j], s->rec_m, s->rec_s), v[j]);
        if (peep != NULL)
            x = sat16_add(mul_qm(peep[j] * cell[j], s->cell_m, s->cell_s), x);
        v[j] = (int16_t)x;
    }
}

static void logistic_row(int16_t *v, int32_t n)
{
    for (int32_t j = 0; j < n; j++)
        v[j] = logistic16(v[j], 3);
}

/* UpdateLstmCellInteger for one cell. */
static int16_t update_cell_s8(const pl_lstm_params *p, int16_t cell, int16_t i, int16_t f,
                              int16_t g)
{
    int16_t kept = (int16_t)rdbpot32((int32_t)f * cell, 15);
    int16_t in_gate = p->cifg ? wrap16(INT16_MAX - f) : i;
    int16_t added = (int16_t)rdbpot32((int32_t)in_gate * g, 30 + p->cell_scale_log2);
    int32_t next = sat16((int32_t)kept + added);
    if (p->q_cell_clip > 0)
        next = pl_fx_clamp(next, -p->q_cell_clip, p->q_cell_clip);
    return (int16_t)next;
}

/* output_gate * tanh(cell) requantized to the hidden int8 (CwiseMul with a zero point). */
static int8_t hidden_s8(const pl_lstm_params *p, int16_t o, int16_t cell)
{
    int16_t t = tanh16(cell, 15 + p->cell_scale_log2);
    int32_t v = mul_qm((int32_t)o * t, p->hidden_m, p->hidden_s) + p->hidden_zp;
    return (int8_t)pl_fx_clamp(v, INT8_MIN, INT8_MAX);
}

void pl_lstm_s8_cells(const pl_lstm_params *p, const pl_lstm_weights *w, int32_t c0,
                      int32_t n, int16_t *const *gate, const uint32_t *const *rec,
                      int16_t *cell, int8_t *hidden)
{
    int16_t *f = gate[PL_LSTM_GATE_F], *g = gate[PL_LSTM_GATE_C], *o = gate[PL_LSTM_GATE_O];
    int16_t *i = gate[PL_LSTM_GATE_I];
    gate_row_s8(p, w, PL_LSTM_GATE_F, c0, n, f, rec[PL_LSTM_GATE_F], cell);
    logistic_row(f, n);
    gate_row_s8(p, w, PL_LSTM_GATE_C, c0, n, g, rec[PL_LSTM_GATE_C], cell);
    for (int32_t j = 0; j < n; j++)
        g[j] = tanh16(g[j], 3);
    if (!p->cifg) {
        gate_row_s8(p, w, PL_LSTM_GATE_I, c0, n, i, rec[PL_LSTM_GATE_I], cell);
        logistic_row(i, n);
    }
    for (int32_t j = 0; j < n; j++)
        cell[j] = update_cell_s8(p, cell[j], p->cifg ? 0 : i[j], f[j], g[j]);
    gate_row_s8(p, w, PL_LSTM_GATE_O, c0, n, o, rec[PL_LSTM_GATE_O], cell);
    logistic_row(o, n);
    for (int32_t j = 0; j < n; j++)
        hidden[j] = hidden_s8(p, o[j], cell[j]);
}

int8_t pl_lstm_s8_project(const pl_lstm_params *p, int32_t sum)
{
    int32_t v = pl_fx_clamp(mul_qm(sum, p->proj_m, p->proj_s) + p->state_zp, INT8_MIN,
                            INT8_MAX);
    if (p->q_proj_clip > 0)
        v = pl_fx_clamp(v, -p->q_proj_clip, p->q_proj_clip);
    return (int8_t)v;
}

static void project_s8(const pl_lstm_params *p, const pl_lstm_weights *w,
                       const int16_t *hidden_z, int8_t *out)
{
    for (int32_t r = 0; r < p->n_output; r++) {
        const int8_t *pw = (const int8_t *)w->proj_w + (size_t)r * (size_t)p->n_cell;
        const int32_t *bias = w->proj_b != NULL ? (const int32_t *)w->proj_b + r : NULL;
        out[r] = pl_lstm_s8_project(p, dot_s8(pw, hidden_z, p->n_cell, bias));
    }
}

/* One time step. scratch: x - zp (n_input), h - zp (n_output) and, with a projection,
** hidden - zp (n_cell) as int16, then the hidden int8 row (n_cell). */
static void step_s8(const pl_lstm_params *p, const pl_lstm_weights *w, const int8_t *x,
                    int8_t *h, int16_t *cell, int8_t *out, int16_t *scratch)
{
    int16_t *xz = scratch, *hz = xz + p->n_input, *pz = hz + p->n_output;
    int8_t *hidden = p->projection ? (int8_t *)(pz + p->n_cell) : out;
    offset_row(x, p->input_zp, p->n_input, xz);
    offset_row(h, p->state_zp, p->n_output, hz);
    for (int32_t c = 0; c < p->n_cell; c++) {
        uint32_t xs[PL_LSTM_GATES], hs[PL_LSTM_GATES];
        int16_t xin[PL_LSTM_GATES] = {0};
        dot4_s8(w->wx, c, xz, p->n_input, xs);
        dot4_s8(w->wh, c, hz, p->n_output, hs);
        for (int g = p->cifg ? PL_LSTM_GATE_F : PL_LSTM_GATE_I; g < PL_LSTM_GATES; g++)
            xin[g] = pl_lstm_s8_input_part(
                p, g, (int32_t)(xs[g] + (uint32_t)((const int32_t *)w->bias[g])[c]));
        int16_t *const gates[PL_LSTM_GATES] = {&xin[0], &xin[1], &xin[2], &xin[3]};
        const uint32_t *const rec[PL_LSTM_GATES] = {&hs[0], &hs[1], &hs[2], &hs[3]};
        pl_lstm_s8_cells(p, w, c, 1, gates, rec, &cell[c], &hidden[c]);
    }
    if (p->projection) {
        offset_row(hidden, p->hidden_zp, p->n_cell, pz);
        project_s8(p, w, pz, out);
    }
    memcpy(h, out, (size_t)p->n_output);
}

void pl_lstm_f32(const pl_lstm_params *p, const pl_lstm_weights *w, const float *in,
                 float *out_state, float *cell_state, float *out, float *scratch, bool fused)
{
    for (int32_t b = 0; b < p->batches; b++) {
        for (int32_t t = 0; t < p->steps; t++) {
            size_t row = pl_lstm_row(p, b, t);
            step_f32(p, w, in + row * (size_t)p->n_input,
                     out_state + (size_t)b * (size_t)p->n_output,
                     cell_state + (size_t)b * (size_t)p->n_cell,
                     out + row * (size_t)p->n_output, scratch, fused);
        }
    }
}

void pl_lstm_s8(const pl_lstm_params *p, const pl_lstm_weights *w, const int8_t *in,
                int8_t *out_state, int16_t *cell_state, int8_t *out, int16_t *scratch)
{
    for (int32_t b = 0; b < p->batches; b++) {
        for (int32_t t = 0; t < p->steps; t++) {
            size_t row = pl_lstm_row(p, b, t);
            step_s8(p, w, in + row * (size_t)p->n_input,
                    out_state + (size_t)b * (size_t)p->n_output,
                    cell_state + (size_t)b * (size_t)p->n_cell,
                    out + row * (size_t)p->n_output, scratch);
        }
    }
}

size_t pl_lstm_s8_scratch_bytes(const pl_lstm_params *p)
{
    size_t n = (size_t)p->n_input + (size_t)p->n_output;
    size_t proj = p->projection ? (size_t)p->n_cell : 0;
    return sizeof(int16_t) * (n + proj) + proj;
}

/* ---- prepare ---- */

/* The peephole input of each gate (the cell gate has none). */
static const int32_t peep_input[PL_LSTM_GATES] = {PL_LSTM_IN_PEEP, PL_LSTM_IN_PEEP + 1, -1,
                                                  PL_LSTM_IN_PEEP + 2};

static pl_status optional(pl_context *ctx, const pl_node *node, uint32_t i, pl_tensor **t)
{
    *t = NULL;
    return pl_node_input(node, i) >= 0 ? pl_node_tensor(ctx, node, false, i, t)
                                       : PL_OK;
}

/* An optional input whose quantization prepare never reads: its eval view in *view. */
static pl_status optional_eval(pl_context *ctx, const pl_node *node, uint32_t i,
                               pl_tensor *view, pl_tensor **t)
{
    *t = NULL;
    if (pl_node_input(node, i) < 0)
        return PL_OK;
    PL_TRY(pl_node_eval(ctx, node, false, i, view));
    *t = view;
    return PL_OK;
}

static pl_status required(pl_context *ctx, const pl_node *node, uint32_t i, pl_tensor **t)
{
    if (pl_node_input(node, i) < 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "UNIDIRECTIONAL_SEQUENCE_LSTM: input %u is "
                         "missing", i);
    return pl_node_tensor(ctx, node, false, i, t);
}

static pl_status get_tensors(pl_context *ctx, const pl_node *node, pl_lstm_tensors *t)
{
    PL_TRY(required(ctx, node, PL_LSTM_IN_INPUT, &t->in));
    for (uint32_t g = 0; g < PL_LSTM_GATES; g++) {
        bool need = g != PL_LSTM_GATE_I;
        PL_TRY(need ? required(ctx, node, PL_LSTM_IN_WX + g, &t->wx[g])
                    : optional(ctx, node, PL_LSTM_IN_WX + g, &t->wx[g]));
        PL_TRY(need ? required(ctx, node, PL_LSTM_IN_WH + g, &t->wh[g])
                    : optional(ctx, node, PL_LSTM_IN_WH + g, &t->wh[g]));
        PL_TRY(optional_eval(ctx, node, PL_LSTM_IN_BIAS + g, &t->bias_views[g], &t->bias[g]));
        t->peep[g] = NULL;
        if (peep_input[g] >= 0)
            PL_TRY(optional(ctx, node, (uint32_t)peep_input[g], &t->peep[g]));
    }
    PL_TRY(optional(ctx, node, PL_LSTM_IN_PROJ_W, &t->proj_w));
    PL_TRY(optional_eval(ctx, node, PL_LSTM_IN_PROJ_B, &t->bias_views[PL_LSTM_GATES],
                         &t->proj_b));
    PL_TRY(required(ctx, node, PL_LSTM_IN_OUTPUT_STATE, &t->out_state));
    PL_TRY(required(ctx, node, PL_LSTM_IN_CELL_STATE, &t->cell_state));
    return pl_node_tensor(ctx, node, true, 0, &t->out);
}

static bool is_2d(const pl_tensor *t, int32_t d0, int32_t d1)
{
    return t->ndims == 2 && t->dims[0] == d0 && t->dims[1] == d1;
}

static bool is_1d(const pl_tensor *t, int32_t n)
{
    return t == NULL || (t->ndims == 1 && t->dims[0] == n);
}

/* Presence rules of CheckInputTensorDimensions: the input gate's weights and bias all or
** none (CIFG), peepholes all or none, a projection bias only with projection weights. */
static pl_status check_presence(pl_context *ctx, const pl_lstm_tensors *t, pl_lstm_params *p)
{
    p->cifg = t->wx[PL_LSTM_GATE_I] == NULL;
    p->peephole = t->peep[PL_LSTM_GATE_O] != NULL;
    p->projection = t->proj_w != NULL;
    bool ok = (t->wh[PL_LSTM_GATE_I] == NULL) == p->cifg &&
              (t->bias[PL_LSTM_GATE_I] == NULL) == p->cifg &&
              (t->peep[PL_LSTM_GATE_F] != NULL) == p->peephole &&
              (p->cifg || (t->peep[PL_LSTM_GATE_I] != NULL) == p->peephole) &&
              (p->projection || t->proj_b == NULL);
    for (int g = PL_LSTM_GATE_F; g < PL_LSTM_GATES; g++)
        ok = ok && t->bias[g] != NULL;
    if (!ok)
        return ctx->fail(ctx, PL_ERR_MODEL, "UNIDIRECTIONAL_SEQUENCE_LSTM: inconsistent "
                         "optional inputs (CIFG, peephole or projection tensors)");
    return PL_OK;
}

/* The output becomes [input dim 0, input dim 1, n_output] as TFLite's Prepare resizes it;
** the states keep their shapes and must hold the input's batches. */
static pl_status check_shapes(pl_context *ctx, const pl_lstm_tensors *t, pl_lstm_params *p)
{
    const pl_tensor *in = t->in;
    bool ok = in->ndims == 3 && t->wx[PL_LSTM_GATE_O]->ndims == 2 &&
              t->wh[PL_LSTM_GATE_O]->ndims == 2;
    if (ok) {
        int32_t dims[3] = {in->dims[0], in->dims[1], t->wh[PL_LSTM_GATE_O]->dims[1]};
        PL_TRY(pl_set_output_shape(ctx, t->out, 3, dims));
        p->batches = p->time_major ? in->dims[1] : in->dims[0];
        p->steps = p->time_major ? in->dims[0] : in->dims[1];
        p->n_input = in->dims[2];
        p->n_cell = t->wx[PL_LSTM_GATE_O]->dims[0];
        p->n_output = t->wh[PL_LSTM_GATE_O]->dims[1];
    }
    for (int g = 0; ok && g < PL_LSTM_GATES; g++) {
        ok = (t->wx[g] == NULL || is_2d(t->wx[g], p->n_cell, p->n_input)) &&
             (t->wh[g] == NULL || is_2d(t->wh[g], p->n_cell, p->n_output)) &&
             is_1d(t->bias[g], p->n_cell) && is_1d(t->peep[g], p->n_cell);
    }
    ok = ok && (p->projection ? is_2d(t->proj_w, p->n_output, p->n_cell) &&
                                    is_1d(t->proj_b, p->n_output)
                              : p->n_output == p->n_cell);
    if (!ok)
        return ctx->fail(ctx, PL_ERR_MODEL, "UNIDIRECTIONAL_SEQUENCE_LSTM: tensor shapes do "
                         "not agree (input rank %d, %d cells, %d outputs)", in->ndims,
                         p->n_cell, p->n_output);
    if (pl_tensor_count(t->out_state) != (size_t)p->batches * (size_t)p->n_output ||
        pl_tensor_count(t->cell_state) != (size_t)p->batches * (size_t)p->n_cell)
        return ctx->fail(ctx, PL_ERR_MODEL, "UNIDIRECTIONAL_SEQUENCE_LSTM: the states hold "
                         "%zu and %zu values, not %d batches of %d outputs and %d cells",
                         pl_tensor_count(t->out_state), pl_tensor_count(t->cell_state),
                         p->batches, p->n_output, p->n_cell);
    if (!t->out_state->is_variable || !t->cell_state->is_variable)
        return ctx->fail(ctx, PL_ERR_MODEL, "UNIDIRECTIONAL_SEQUENCE_LSTM: the output and "
                         "cell states (inputs 18, 19) must be variable tensors");
    return PL_OK;
}

static bool all_of_type(pl_tensor *const *ts, int n, pl_type type)
{
    for (int i = 0; i < n; i++) {
        if (ts[i] != NULL && ts[i]->type != type)
            return false;
    }
    return true;
}

/* float32; 8x8 with int32 biases; 16x8 (int16 input) with int64 biases. */
static pl_status check_types(pl_context *ctx, const pl_lstm_tensors *t)
{
    bool f = t->in->type == PL_FLOAT32, s16 = t->in->type == PL_INT16;
    pl_type w = f ? PL_FLOAT32 : PL_INT8, b = f ? PL_FLOAT32 : s16 ? PL_INT64 : PL_INT32;
    pl_type peep = f ? PL_FLOAT32 : PL_INT16, cell = f ? PL_FLOAT32 : PL_INT16;
    bool ok = (f || s16 || t->in->type == PL_INT8) && all_of_type(t->wx, PL_LSTM_GATES, w) &&
              all_of_type(t->wh, PL_LSTM_GATES, w) && all_of_type(t->bias, PL_LSTM_GATES, b) &&
              all_of_type(t->peep, PL_LSTM_GATES, peep) && all_of_type(&t->proj_w, 1, w) &&
              all_of_type(&t->proj_b, 1, b) && t->out_state->type == t->in->type &&
              t->cell_state->type == cell && t->out->type == t->in->type;
    if (!ok)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "UNIDIRECTIONAL_SEQUENCE_LSTM: input %s with "
                         "weights %s, bias %s, cell state %s is not supported (float32; int8 "
                         "or int16 with int8 weights, int32 or int64 biases and int16 cell "
                         "state; hybrid is not)", pl_type_name(t->in->type),
                         pl_type_name(t->wx[PL_LSTM_GATE_O]->type),
                         pl_type_name(t->bias[PL_LSTM_GATE_O]->type),
                         pl_type_name(t->cell_state->type));
    return PL_OK;
}

static pl_status read_options(pl_context *ctx, const pl_node *node, pl_lstm_params *p)
{
    const pl_table *o = &node->options;
    p->activation = pl_table_i8(o, OPT_ACTIVATION, 0);
    p->cell_clip = pl_table_f32(o, OPT_CELL_CLIP, 0.0f);
    p->proj_clip = pl_table_f32(o, OPT_PROJ_CLIP, 0.0f);
    p->time_major = pl_table_bool(o, OPT_TIME_MAJOR, false);
    if (p->activation < 0 || p->activation > PL_ACT_TANH)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "UNIDIRECTIONAL_SEQUENCE_LSTM: activation "
                         "%d is not supported", p->activation);
    if (!(p->cell_clip >= 0.0f) || !(p->proj_clip >= 0.0f))
        return ctx->fail(ctx, PL_ERR_MODEL, "UNIDIRECTIONAL_SEQUENCE_LSTM: negative clip");
    return PL_OK;
}

/* ---- integer quantization (PopulateQuantizedLstmParams8x8_16) ---- */

static float scale_of(const pl_tensor *t)
{
    return t != NULL ? t->q.scale[0] : 1.0f;
}

static bool per_tensor(const pl_tensor *t)
{
    return t == NULL || t->q.count == 1;
}

static pl_status check_quant(pl_context *ctx, const pl_lstm_tensors *t)
{
    bool ok = per_tensor(t->in) && per_tensor(t->out_state) && per_tensor(t->cell_state) &&
              per_tensor(t->proj_w) && t->in->q.count == 1;
    for (int g = 0; g < PL_LSTM_GATES; g++)
        ok = ok && per_tensor(t->wx[g]) && per_tensor(t->wh[g]) && per_tensor(t->peep[g]);
    if (!ok)
        return ctx->fail(ctx, PL_ERR_MODEL, "UNIDIRECTIONAL_SEQUENCE_LSTM: integer tensors "
                         "need one scale each");
    return PL_OK;
}

/* TFLite CheckedLog2: the cell state's scale must be a power of two. */
static pl_status cell_scale_log2(pl_context *ctx, float scale, int32_t *out)
{
    float l = logf(scale) * (1.0f / logf(2.0f));
    float r = roundf(l);
    if (!(fabsf(l - r) < 1e-3f))
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "UNIDIRECTIONAL_SEQUENCE_LSTM: cell state "
                         "scale %g is not a power of two", (double)scale);
    *out = (int32_t)r;
    return PL_OK;
}

static pl_status hidden_quant(pl_context *ctx, const pl_node *node, float *scale, int32_t *zp)
{
    if (node->intermediates.n != 5)
        return ctx->fail(ctx, PL_ERR_MODEL, "UNIDIRECTIONAL_SEQUENCE_LSTM: integer LSTM needs "
                         "5 intermediate tensors (got %u)", node->intermediates.n);
    pl_tensor *hidden;
    PL_TRY(ctx->get_tensor(ctx, pl_vec_i32(node->intermediates, 4), &hidden));
    if (hidden->q.count == 0)
        return ctx->fail(ctx, PL_ERR_MODEL, "UNIDIRECTIONAL_SEQUENCE_LSTM: the hidden "
                         "intermediate (4) is not quantized");
    *scale = hidden->q.scale[0];
    *zp = (int32_t)hidden->q.zero_point[0];
    if (*zp < INT8_MIN || *zp > INT8_MAX) /* it is added to int8 values in int32 */
        return ctx->fail(ctx, PL_ERR_MODEL, "UNIDIRECTIONAL_SEQUENCE_LSTM: the hidden "
                         "intermediate's zero point %d is outside int8", *zp);
    return PL_OK;
}

static void quantize(float scale, int32_t *m, int32_t *s)
{
    pl_fx_quantize_multiplier((double)scale, m, s);
}

/* Gate scales with the Q3.12 intermediate of a layer-norm-free LSTM; in float as LiteRT. */
static void gate_scales(const pl_lstm_tensors *t, pl_lstm_params *p, int g)
{
    const float inter = 1.0f / 4096.0f;
    pl_lstm_gate_scale *s = &p->gate[g];
    if (t->wx[g] == NULL)
        return;
    quantize(scale_of(t->wx[g]) * scale_of(t->in) / inter, &s->in_m, &s->in_s);
    quantize(scale_of(t->wh[g]) * scale_of(t->out_state) / inter, &s->rec_m, &s->rec_s);
    if (t->peep[g] != NULL) {
        float e = (float)(pow(2.0, p->cell_scale_log2) * scale_of(t->peep[g]) / inter);
        quantize(e, &s->cell_m, &s->cell_s);
    }
}

static pl_status prepare_quant(pl_context *ctx, const pl_node *node, const pl_lstm_tensors *t,
                               pl_lstm_params *p)
{
    PL_TRY(check_quant(ctx, t));
    float hidden_scale = 1.0f;
    PL_TRY(hidden_quant(ctx, node, &hidden_scale, &p->hidden_zp));
    PL_TRY(cell_scale_log2(ctx, scale_of(t->cell_state), &p->cell_scale_log2));
    /* below 2^-15 LiteRT's tanh of the cell (integer bits 15 + scale < 0) writes nothing: its
    ** output would be whatever its scratch held; TFLM's arithmetic (the tflm targets) has none */
    if (p->cell_scale_log2 < -15 || p->cell_scale_log2 > -9)
        return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "UNIDIRECTIONAL_SEQUENCE_LSTM: cell state "
                         "scale 2^%d is outside 2^-15 .. 2^-9 (LiteRT's int8 arithmetic "
                         "leaves the cell's tanh unwritten there; the tflm targets run it)",
                         p->cell_scale_log2);
    float cell_scale = scale_of(t->cell_state), state_scale = scale_of(t->out_state);
    p->q_cell_clip = p->cell_clip > 0.0f
        ? (int16_t)pl_fx_clamp_f32(p->cell_clip / cell_scale, -32768.0f, 32767.0f) : 0;
    p->q_proj_clip = p->proj_clip > 0.0f
        ? (int8_t)pl_fx_clamp_f32(p->proj_clip / scale_of(t->out), -128.0f, 127.0f) : 0;
    for (int g = 0; g < PL_LSTM_GATES; g++)
        gate_scales(t, p, g);
    float hidden = (float)(pow(2.0, -15) / (double)hidden_scale * pow(2.0, -15));
    quantize(hidden, &p->hidden_m, &p->hidden_s);
    quantize(scale_of(t->proj_w) * hidden_scale / state_scale, &p->proj_m, &p->proj_s);
    p->input_zp = (int32_t)t->in->q.zero_point[0];
    p->state_zp = (int32_t)t->out_state->q.zero_point[0];
    return PL_OK;
}

static pl_status check_layer_norm(pl_context *ctx, const pl_node *node)
{
    /* many of the first 20 are optional (CIFG, peepholes, projection): checked by role */
    PL_TRY(pl_node_check(ctx, node, ((pl_io_spec){0, 24, 1, 1, NULL, 0})));
    if (node->inputs.n != 20 && node->inputs.n != 24)
        return ctx->fail(ctx, PL_ERR_MODEL, "expects 20 or 24 inputs, got %u", node->inputs.n);
    for (uint32_t i = PL_LSTM_IN_LAYER_NORM; i < node->inputs.n; i++) {
        if (pl_node_input(node, i) >= 0)
            return ctx->fail(ctx, PL_ERR_UNSUPPORTED, "UNIDIRECTIONAL_SEQUENCE_LSTM: layer "
                             "normalisation is not supported");
    }
    return PL_OK;
}

/* TFLM's integer LSTM: the 16x8 one, or under TFLM's targets the int8 one (q16->s8). */
static pl_status prepare_s16(pl_context *ctx, op_data *d, const pl_lstm_tensors *t)
{
    if (d->q16 == NULL) { /* prepare runs again after a resize: keep the first */
        void *q = NULL;
        PL_TRY(ctx->alloc_persistent(ctx, sizeof(pl_lstm16_q), &q));
        d->q16 = q;
    }
    d->scratch = -1;
    PL_TRY(pl_lstm16_prepare(ctx, t, &d->p, d->q16));
    if (!d->q16->cmsis)
        return PL_OK;
    /* CMSIS-NN's cell state lives in scratch (see pl_lstm_cmsis) */
    size_t cells = (size_t)d->p.batches * (size_t)d->p.n_cell;
    return ctx->request_scratch(ctx, cells * sizeof(int16_t), &d->scratch);
}

static pl_status prepare(pl_context *ctx, pl_node *node)
{
    op_data *d = node->user_data;
    pl_lstm_tensors t;
    PL_TRY(check_layer_norm(ctx, node));
    PL_TRY(read_options(ctx, node, &d->p));
    PL_TRY(get_tensors(ctx, node, &t));
    PL_TRY(check_presence(ctx, &t, &d->p));
    PL_TRY(check_types(ctx, &t));
    PL_TRY(check_shapes(ctx, &t, &d->p));
    d->type = t.in->type;
    if (d->type == PL_INT16 || (d->type == PL_INT8 && ctx->arith != PL_ARITH_LITERT))
        return prepare_s16(ctx, d, &t);
    if (d->type == PL_INT8)
        PL_TRY(prepare_quant(ctx, node, &t, &d->p));
    d->scratch = -1;
    const pl_lstm_params *p = &d->p;
    size_t bytes = d->p.projection ? sizeof(float) * (size_t)p->n_cell : 0;
    if (d->type == PL_INT8)
        bytes = pl_lstm_s8_scratch_bytes(p);
    if (bytes > 0)
        PL_TRY(ctx->request_scratch(ctx, bytes, &d->scratch));
    return PL_OK;
}

static pl_status gather(pl_context *ctx, const pl_node *node, pl_lstm_weights *w)
{
    pl_tensor e;
    for (uint32_t g = 0; g < PL_LSTM_GATES; g++) {
        PL_TRY(pl_node_eval(ctx, node, false, PL_LSTM_IN_WX + g, &e));
        w->wx[g] = e.data;
        PL_TRY(pl_node_eval(ctx, node, false, PL_LSTM_IN_WH + g, &e));
        w->wh[g] = e.data;
        PL_TRY(pl_node_eval(ctx, node, false, PL_LSTM_IN_BIAS + g, &e));
        w->bias[g] = e.data;
        w->peep[g] = NULL;
        if (peep_input[g] >= 0) {
            PL_TRY(pl_node_eval(ctx, node, false, (uint32_t)peep_input[g], &e));
            w->peep[g] = e.data;
        }
    }
    PL_TRY(pl_node_eval(ctx, node, false, PL_LSTM_IN_PROJ_W, &e));
    w->proj_w = e.data;
    PL_TRY(pl_node_eval(ctx, node, false, PL_LSTM_IN_PROJ_B, &e));
    w->proj_b = e.data;
    return PL_OK;
}

pl_status pl_lstm_data_get(pl_context *ctx, const pl_node *node, pl_lstm_data *d)
{
    pl_tensor in, state, cell, out;
    PL_TRY(gather(ctx, node, &d->w));
    PL_TRY(pl_node_eval(ctx, node, false, PL_LSTM_IN_INPUT, &in));
    PL_TRY(pl_node_eval(ctx, node, false, PL_LSTM_IN_OUTPUT_STATE, &state));
    PL_TRY(pl_node_eval(ctx, node, false, PL_LSTM_IN_CELL_STATE, &cell));
    PL_TRY(pl_node_evals(ctx, node, 0, 1, &out));
    d->in = in.data;
    d->out_state = state.data;
    d->cell_state = cell.data;
    d->out = out.data;
    return PL_OK;
}

static pl_status invoke(pl_context *ctx, pl_node *node)
{
    const op_data *d = node->user_data;
    pl_lstm_data t;
    PL_TRY(pl_lstm_data_get(ctx, node, &t));
    void *scratch = d->scratch >= 0 ? ctx->get_scratch(ctx, d->scratch) : NULL;
    if (d->type == PL_FLOAT32)
        pl_lstm_f32(&d->p, &t.w, t.in, t.out_state, t.cell_state, t.out, scratch,
                    ctx->fused_madd);
    else if (d->q16 != NULL && d->q16->cmsis)
        pl_lstm_cmsis(&d->p, d->q16, &t.w, t.in, t.out, scratch);
    else if (d->type == PL_INT16)
        pl_lstm_s16(&d->p, d->q16, &t.w, t.in, t.out_state, t.cell_state, t.out);
    else if (d->q16 != NULL) /* TFLM's int8 LSTM */
        pl_lstm_s8_tflm(&d->p, d->q16, &t.w, t.in, t.out_state, t.cell_state, t.out);
    else
        pl_lstm_s8(&d->p, &t.w, t.in, t.out_state, t.cell_state, t.out, scratch);
    return PL_OK;
}

const pl_registration *pl_unidirectional_sequence_lstm_registration(void)
{
    static const pl_registration reg = {.name = "UNIDIRECTIONAL_SEQUENCE_LSTM",
                                        .builtin_code = 44, .prepare = prepare,
                                        .invoke = invoke, .user_data_size = sizeof(op_data)};
    return &reg;
}
