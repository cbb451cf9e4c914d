/* fully_connected.h - FULLY_CONNECTED: LiteRT's reference FullyConnected (float) and its
** integer FullyConnected / FullyConnectedPerChannel (int8, 16x8), which requantize in double:
** round((double)acc * in_scale * filter_scale / out_scale). */
#ifndef PL_KERNELS_FULLY_CONNECTED_H
#define PL_KERNELS_FULLY_CONNECTED_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Precomputed in prepare. scale holds (double)in * filter / out per output unit when the
** weights are per-channel, else one entry (per-tensor). Each op lives in the arena, so what
** one type path never reads shares memory with what another needs: the integer clamp with
** the float one, the integer scales with the hybrid weight scales. */
typedef struct pl_fully_connected_params {
    int32_t batches, units, depth;
    int32_t input_offset, filter_offset, output_offset;
    union {
        struct { int32_t act_min, act_max; };   /* int8, 16x8 */
        struct { float f_act_min, f_act_max; }; /* float, hybrid */
    };
    union {
        const double *scale;       /* int8, 16x8 */
        const float *filter_scale; /* hybrid: weight scales, one or one per unit */
        PL_ALIGN8 uint64_t scale_slot_;
    };
    bool per_channel;
    bool asymmetric; /* hybrid: input quantization mode */
} pl_fully_connected_params;

/* bias may be NULL; input is [batches, depth], filter [units, depth], output
** [batches, units], all row-major. */
void pl_fully_connected_f32(const pl_fully_connected_params *p, const float *in,
                            const float *filter, const float *bias, float *out);
void pl_fully_connected_s8(const pl_fully_connected_params *p, const int8_t *in,
                           const int8_t *filter, const int32_t *bias, int8_t *out);
/* One int8 output: the accumulator of unit plus its bias (bias may be NULL), rescaled in
** double, offset and clamped as LiteRT's reference. */
int8_t pl_fully_connected_s8_output(const pl_fully_connected_params *p, int32_t acc,
                                    const int32_t *bias, int32_t unit);
/* 16x8: accumulates in int64 when acc64, else in int32 (LiteRT's BiasType). */
void pl_fully_connected_s16(const pl_fully_connected_params *p, const int16_t *in,
                            const int8_t *filter, const void *bias, bool acc64,
                            int16_t *out);

/* Hybrid (dynamic range): float input quantized per batch row to int8 (symmetric, or
** asymmetric with a zero point), integer dot products with the int8 weights, float output,
** as LiteRT's EvalHybridDense. scratch holds pl_fully_connected_hybrid_scratch_size() bytes. */
size_t pl_fully_connected_hybrid_scratch_size(int32_t batches, int32_t depth, int32_t units);
void pl_fully_connected_hybrid(const pl_fully_connected_params *p, const float *in,
                               const int8_t *filter, const float *bias, float *out,
                               void *scratch);

/* FULLY_CONNECTED's op data: what prepare decided (read by the host fast paths too). */
typedef struct pl_fully_connected_op {
    pl_fully_connected_params p;
    pl_type type;
    bool acc64;
    bool hybrid;
    int32_t scratch;
} pl_fully_connected_op;

const pl_registration *pl_fully_connected_registration(void);

#endif
