/* fully_connected.h - FULLY_CONNECTED: the reference FullyConnected (float) and the integer
** FullyConnected / FullyConnectedPerChannel (int8, 16x8, uint8) in the target's arithmetic.
** TFLM rescales the sums in integers (MultiplyByQuantizedMultiplier with a Q31 multiplier and
** shift per unit); LiteRT rescales in double: round((double)acc * in * filter / out scales).
** The two differ by one near ties (often for 16x8, whose int64 path keeps 15 multiplier
** bits). */
#ifndef PL_KERNELS_FULLY_CONNECTED_H
#define PL_KERNELS_FULLY_CONNECTED_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/conv/fully_connected_fast.h" /* the op data */
#include "picolite/pl_kernel.h"

/* bias may be NULL; input is [batches, depth], filter [units, depth], output
** [batches, units], all row-major. */
void pl_fully_connected_f32(const pl_fully_connected_params *p, const float *in,
                            const float *filter, const float *bias, float *out);
void pl_fully_connected_s8(const pl_fully_connected_params *p, const int8_t *in,
                           const int8_t *filter, const int32_t *bias, int8_t *out);
/* 16x8: accumulates in int64 when acc64, else in int32 (the reference's BiasType). */
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

#endif
