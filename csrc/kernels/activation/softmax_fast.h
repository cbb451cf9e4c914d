/* softmax_fast.h - SOFTMAX's contract with the host fast path (fast/softmax*.c): the op
** data prepare leaves for invoke and the table helpers, so the fast path's rows use the
** portable kernel's exps and last steps.
**
** A fast path reads these after the portable prepare ran and never writes them; it runs
** the portable invoke for what it does not reproduce. */
#ifndef PL_KERNELS_SOFTMAX_FAST_H
#define PL_KERNELS_SOFTMAX_FAST_H

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

/* int8 input: the differences to the row maximum lie in [-255, 0], so their exps fit a
** table (the host fast path keeps one outside the arena): exps[d] is the exp of -d, 0 for a
** difference below diff_min (which contributes nothing: the sum adds 0, the output is the
** lowest value, so a vector row may read it like any other). The _exps forms read it (NULL:
** computed, as pl_softmax_s8 and pl_softmax_s8_s16 do). */
#define PL_SOFTMAX_EXPS 256
void pl_softmax_exp_table(const pl_softmax_params *p, int32_t exps[PL_SOFTMAX_EXPS]);
void pl_softmax_s8_exps(const pl_softmax_params *p, const int32_t *exps, const int8_t *in,
                        int8_t *out, size_t outer, size_t depth);
void pl_softmax_s8_s16_exps(const pl_softmax_params *p, const int32_t *exps,
                            const int8_t *in, int16_t *out, size_t outer, size_t depth);
/* The int8 row's last steps, for the fast path's vector rows: the row sums
** RoundingDivideByPOT(exp, PL_SOFTMAX_ACCUM_BITS) over its differences >= diff_min; from
** that sum, the reciprocal (*scale) and the returned exponent. Each output is then
** clamp(RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(scale, exp), exponent) + lo),
** lo for a difference below diff_min, and lo everywhere when the exponent exceeds 31. */
#define PL_SOFTMAX_ACCUM_BITS 12
int32_t pl_softmax_s8_recip(int32_t sum, int32_t out_bits, int32_t *scale);

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

const pl_registration *pl_softmax_registration(void);

#endif
