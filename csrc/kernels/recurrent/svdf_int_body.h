/* svdf_int_body.h - SVDF's integer kernels (svdf.h), written once in plain C: svdf.c builds
** them as the portable kernels, and each fast instruction set's file builds them again with
** its flags, so the compiler vectorizes the products for that set (int32 sums wrap: any
** order gives the same bytes). The includer defines PL_SVDF_INT(name), the functions' names,
** and PL_SVDF_INT_API (nothing, or static), and includes svdf.h, fixedpoint.h and string.h.
** The rescales are rescale.h's inline ones (fixedpoint.c's, bit for bit). */
#include "kernels/common/rescale.h"
#ifndef PL_SVDF_INT_API
#define PL_SVDF_INT_API
#endif

/* The state moves left by one element over the whole buffer (as TFLM and LiteRT do); the
** newest column of each filter is then overwritten by the feature matmul. */
static void shift_state(void *state, size_t count, size_t elem)
{
    if (count > 1)
        memmove(state, (uint8_t *)state + elem, (count - 1) * elem);
}

/* input x weights_feature for one filter, rescaled to the state's scale (before its zero
** point and clamp). The sum wraps as int32 (past about 65,000 inputs it can), as the
** reference's does on every target, instead of overflowing a signed int. */
static int32_t feature(const pl_svdf_params *p, const int8_t *x, const int8_t *w)
{
    uint32_t dot = 0;
    for (int32_t c = 0; c < p->input_size; c++)
        dot += (uint32_t)(w[c] * (x[c] - p->input_zp));
    return pl_rescale_qm((int32_t)dot, p->mult1, p->shift1);
}

/* bias + sum over the unit's filters of time products, rescaled to the int8 output. The
** int32 sums wrap as LiteRT's do. */
static int8_t unit_output(const pl_svdf_params *p, uint32_t acc)
{
    int32_t v = pl_rescale_qm((int32_t)acc, p->mult2, p->shift2) + p->output_zp;
    return (int8_t)pl_fx_clamp(v, INT8_MIN, INT8_MAX);
}

/* One batch's time stage of an int8 state: per unit, bias + the time weights against each
** rank's state row, read less state_zp (CMSIS-NN reads it as stored: 0). */
static void time_units(const pl_svdf_params *p, const int8_t *s, const int8_t *wt,
                       const int32_t *bias, int32_t state_zp, int8_t *out)
{
    for (int32_t u = 0; u < p->units; u++) {
        uint32_t acc = bias != NULL ? (uint32_t)bias[u] : 0u; /* wraps as int32 */
        for (int32_t r = 0; r < p->rank; r++) {
            size_t f = (size_t)u * (size_t)p->rank + (size_t)r;
            const int8_t *sv = s + f * (size_t)p->memory, *tv = wt + f * (size_t)p->memory;
            for (int32_t m = 0; m < p->memory; m++)
                acc += (uint32_t)(tv[m] * (sv[m] - state_zp));
        }
        out[u] = unit_output(p, acc);
    }
}

PL_SVDF_INT_API void PL_SVDF_INT(s8_s16)(const pl_svdf_params *p, const int8_t *in,
                                         const int8_t *wf, const int16_t *wt,
                                         const int32_t *bias, int16_t *state, int8_t *out)
{
    size_t per_batch = (size_t)p->filters * (size_t)p->memory;
    shift_state(state, per_batch * (size_t)p->batches, sizeof(int16_t));
    for (int32_t b = 0; b < p->batches; b++) {
        const int8_t *x = in + (size_t)b * (size_t)p->input_size;
        int16_t *s = state + (size_t)b * per_batch;
        for (int32_t f = 0; f < p->filters; f++) {
            int32_t v = feature(p, x, wf + (size_t)f * (size_t)p->input_size);
            s[(size_t)f * (size_t)p->memory + (size_t)p->memory - 1] =
                (int16_t)pl_fx_clamp(v, INT16_MIN, INT16_MAX);
        }
        for (int32_t u = 0; u < p->units; u++) {
            uint32_t acc = bias != NULL ? (uint32_t)bias[u] : 0u;
            for (int32_t r = 0; r < p->rank; r++) {
                size_t f = (size_t)u * (size_t)p->rank + (size_t)r;
                const int16_t *sv = s + f * (size_t)p->memory, *tv = wt + f * (size_t)p->memory;
                uint32_t dot = 0;
                for (int32_t m = 0; m < p->memory; m++)
                    dot += (uint32_t)(tv[m] * sv[m]);
                acc += dot;
            }
            out[(size_t)b * (size_t)p->units + (size_t)u] = unit_output(p, acc);
        }
    }
}

PL_SVDF_INT_API void PL_SVDF_INT(s8_s8)(const pl_svdf_params *p, const int8_t *in,
                                        const int8_t *wf, const int8_t *wt, const int32_t *bias,
                                        int8_t *state, int8_t *out)
{
    size_t per_batch = (size_t)p->filters * (size_t)p->memory;
    shift_state(state, per_batch * (size_t)p->batches, sizeof(int8_t));
    for (int32_t b = 0; b < p->batches; b++) {
        const int8_t *x = in + (size_t)b * (size_t)p->input_size;
        int8_t *s = state + (size_t)b * per_batch;
        for (int32_t f = 0; f < p->filters; f++) {
            /* clamped to int8, then the zero point added and stored truncated: TFLM
            ** 90b983c's firmware and the tflite-micro wheel both (a zero point before the
            ** clamp is a later TFLM's) */
            int32_t v = pl_fx_clamp(feature(p, x, wf + (size_t)f * (size_t)p->input_size),
                                    INT8_MIN, INT8_MAX);
            s[(size_t)f * (size_t)p->memory + (size_t)p->memory - 1] =
                (int8_t)(uint8_t)(uint32_t)(v + p->state_zp);
        }
        time_units(p, s, wt, bias, p->state_zp, out + (size_t)b * (size_t)p->units);
    }
}

/* TFLM + CMSIS-NN's int8-state SVDF (arm_svdf_s8; TFLM's reference kernel has none): the
** feature product is rescaled, clamped to int16 and stored truncated to int8, and the time
** product reads the state without its zero point. Helium's feature product starts from
** TFLM's precomputed kernel sums, which offset the weights by the state's zero point too:
** they add input_zp x state_zp x input_size ('mve'). */
PL_SVDF_INT_API void PL_SVDF_INT(s8_s8_cmsis)(const pl_svdf_params *p, bool mve,
                                              const int8_t *in, const int8_t *wf,
                                              const int8_t *wt, const int32_t *bias,
                                              int8_t *state, int8_t *out)
{
    size_t per_batch = (size_t)p->filters * (size_t)p->memory;
    shift_state(state, per_batch * (size_t)p->batches, sizeof(int8_t));
    uint32_t fold = mve ? (uint32_t)p->input_zp * (uint32_t)p->state_zp *
                              (uint32_t)p->input_size : 0u;
    for (int32_t b = 0; b < p->batches; b++) {
        const int8_t *x = in + (size_t)b * (size_t)p->input_size;
        int8_t *s = state + (size_t)b * per_batch;
        for (int32_t f = 0; f < p->filters; f++) {
            const int8_t *w = wf + (size_t)f * (size_t)p->input_size;
            uint32_t dot = fold;
            for (int32_t c = 0; c < p->input_size; c++)
                dot += (uint32_t)(w[c] * (x[c] - p->input_zp));
            int32_t v = pl_fx_clamp(pl_rescale_qm((int32_t)dot, p->mult1, p->shift1),
                                    INT16_MIN, INT16_MAX);
            s[(size_t)f * (size_t)p->memory + (size_t)p->memory - 1] =
                (int8_t)(uint8_t)(uint32_t)v;
        }
        time_units(p, s, wt, bias, 0, out + (size_t)b * (size_t)p->units);
    }
}

