/* softmax.h - SOFTMAX for float32, int8 -> int8/int16 and int16 -> int16 (TFLite reference).
**
** int8 input follows reference_ops::Softmax: gemmlowp fixed-point exp of the beta-scaled
** differences to the row maximum (Q5.26), a Q12.19 sum and its reciprocal. int16 follows
** reference_ops::SoftmaxInt16: an exp table over [-10, 0] and a 1/(1+x) table. */
#ifndef PL_KERNELS_SOFTMAX_H
#define PL_KERNELS_SOFTMAX_H

#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

typedef struct pl_softmax_params {
    float beta;
    int32_t input_multiplier;
    int32_t input_left_shift; /* int16: any sign (MultiplyByQuantizedMultiplier shift) */
    union {
        int32_t diff_min; /* int8: differences below this contribute nothing */
        int32_t wraps;    /* int16: nonzero for CMSIS-NN's last steps, which wrap to int16
                          ** where TFLM's saturate (pl_softmax_s16_recip, _scale) */
    };
    PL_SLOT(const int16_t *, exp_lut); /* int16: PL_LUT_S16_SIZE entries each */
    PL_SLOT(const int16_t *, recip_lut);
} pl_softmax_params;

/* Each row of `depth` contiguous values is normalised; there are `outer` rows. */
void pl_softmax_f32(float beta, const float *in, float *out, size_t outer, size_t depth);
void pl_softmax_s8(const pl_softmax_params *p, const int8_t *in, int8_t *out, size_t outer,
                   size_t depth);
/* Legacy uint8 in and out (output scale 1/256, zero point 0). */
void pl_softmax_u8(const pl_softmax_params *p, const uint8_t *in, uint8_t *out, size_t outer,
                   size_t depth);
void pl_softmax_s8_s16(const pl_softmax_params *p, const int8_t *in, int16_t *out,
                       size_t outer, size_t depth);
void pl_softmax_s16(const pl_softmax_params *p, const int16_t *in, int16_t *out,
                    size_t outer, size_t depth);

/* int8 input: the differences to the row maximum lie in [-255, 0], so their exps fit a
** table (the host fast path keeps one outside the arena): exps[d] is the exp of -d. The
** _exps forms read it (NULL: computed, as pl_softmax_s8 and pl_softmax_s8_s16 do). */
#define PL_SOFTMAX_EXPS 256
void pl_softmax_exp_table(const pl_softmax_params *p, int32_t exps[PL_SOFTMAX_EXPS]);
void pl_softmax_s8_exps(const pl_softmax_params *p, const int32_t *exps, const int8_t *in,
                        int8_t *out, size_t outer, size_t depth);
void pl_softmax_s8_s16_exps(const pl_softmax_params *p, const int32_t *exps,
                            const int8_t *in, int16_t *out, size_t outer, size_t depth);

/* int16 input: the differences to the row maximum lie in [-65535, 0]; the host fast path
** keeps their exps in a table too. exp_count gives its length n (from n - 1 on, every
** difference's exp is the same: the scaled difference is clamped), exp_table fills exps[d],
** the exp of -d for d < n, and the _exps form reads it (NULL: computed, as pl_softmax_s16). */
#define PL_SOFTMAX_S16_EXPS 65536
int32_t pl_softmax_s16_exp_count(const pl_softmax_params *p);
void pl_softmax_s16_exp_table(const pl_softmax_params *p, int16_t *exps, int32_t n);
void pl_softmax_s16_exps(const pl_softmax_params *p, const int16_t *exps, int32_t n_exps,
                         const int16_t *in, int16_t *out, size_t outer, size_t depth);
/* The int16 row's last steps, for the fast path's vector rows: from the sum of the row's
** exps, the reciprocal and its right shift; then each exp times it, shifted, clamped. Under
** CMSIS-NN (p->wraps) both narrow to int16 by truncation instead: a normalised sum within
** 2^-18 of the next power of two reads the table's first entry, and a product that rounds
** to 32768 (one dominant element) comes out as -32768. */
int16_t pl_softmax_s16_recip(const pl_softmax_params *p, int32_t sum, int32_t *right_shift);
void pl_softmax_s16_scale(const pl_softmax_params *p, int16_t *out, size_t depth, int16_t recip,
                          int32_t right_shift);

/* SOFTMAX's op data (read by the host fast paths too). */
typedef struct pl_softmax_op {
    pl_softmax_params p;
} pl_softmax_op;

#endif
