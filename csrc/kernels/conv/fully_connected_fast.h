/* fully_connected_fast.h - FULLY_CONNECTED's contract with the host fast paths
** (fast/fully_connected*.c, gemm.h): the op data prepare leaves for invoke and the
** per-output rescale, which the fast paths call so their bytes are the portable kernel's.
**
** A fast path reads these after the portable prepare ran and never writes them; it runs
** the portable invoke for what it does not reproduce. The scale union holds what the node's
** type and fixed_rescale say; nothing else may be assumed of it. */
#ifndef PL_KERNELS_FULLY_CONNECTED_FAST_H
#define PL_KERNELS_FULLY_CONNECTED_FAST_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Precomputed in prepare, one entry per output unit when the weights are per-channel, else
** one (per-tensor): with fixed_rescale (TFLM), rescale holds each entry's Q31 multiplier and
** shift side by side, QuantizeMultiplier((double)in * filter / out); else scale holds that
** double ratio itself (LiteRT). Both take 8 bytes an entry. Each op lives in the arena, so
** what one type path never reads shares memory with what another needs: the integer clamp
** with the float one, the integer scales with the hybrid weight scales. */
typedef struct pl_fully_connected_params {
    int32_t batches, units, depth;
    int32_t input_offset, filter_offset, output_offset;
    union {
        struct { int32_t act_min, act_max; };   /* int8, 16x8 */
        struct { float f_act_min, f_act_max; }; /* float, hybrid */
    };
    union {
        const double *scale;       /* int8, 16x8, uint8: LiteRT's rescale */
        const int32_t *rescale;    /* int8, 16x8, uint8: TFLM's, {multiplier, shift} pairs */
        const float *filter_scale; /* hybrid: weight scales, one or one per unit */
        PL_ALIGN8 uint64_t scale_slot_;
    };
    bool per_channel;
    bool asymmetric; /* hybrid: input quantization mode */
    bool fixed_rescale; /* TFLM's integer rescale (rescale), else LiteRT's double (scale) */
    bool fused;         /* float: the target fuses each multiply-add (ctx->fused_madd) */
} pl_fully_connected_params;

/* One int8 output: the accumulator of unit plus its bias (bias may be NULL; int32 sums
** wrap), rescaled in the params' arithmetic, offset and clamped. */
int8_t pl_fully_connected_s8_output(const pl_fully_connected_params *p, int32_t acc,
                                    const int32_t *bias, int32_t unit);
/* One 16x8 output: the exact sum of unit plus its bias (bias may be NULL) in int64 when
** acc64, else wrapped to int32 (the reference's BiasType), rescaled in the params'
** arithmetic (TFLM's int64 path: the 16-bit reduced multiplier) and clamped. */
int16_t pl_fully_connected_s16_output(const pl_fully_connected_params *p, int64_t acc,
                                      const void *bias, bool acc64, int32_t unit);

/* FULLY_CONNECTED's op data: what prepare decided (read by the host fast paths too). */
typedef struct pl_fully_connected_op {
    pl_fully_connected_params p;
    pl_type type;
    bool acc64;
    bool hybrid;
    int32_t scratch; /* hybrid: the quantized rows; int4: the unpacked weights */
} pl_fully_connected_op;

const pl_registration *pl_fully_connected_registration(void);

#endif
