/* fully_connected.h - FULLY_CONNECTED: TFLite's reference FullyConnected (float), integer
** FullyConnected / FullyConnectedPerChannel (int8, 16x8). */
#ifndef PL_KERNELS_FULLY_CONNECTED_H
#define PL_KERNELS_FULLY_CONNECTED_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Precomputed in prepare. multiplier/shift have one entry per output unit when the
** weights are per-channel, else one (per-tensor). */
typedef struct pl_fully_connected_params {
    int32_t batches, units, depth;
    int32_t input_offset, filter_offset, output_offset;
    int32_t act_min, act_max;
    float f_act_min, f_act_max;
    bool per_channel;
    const int32_t *multiplier;
    const int32_t *shift;
} pl_fully_connected_params;

/* bias may be NULL; input is [batches, depth], filter [units, depth], output
** [batches, units], all row-major. */
void pl_fully_connected_f32(const pl_fully_connected_params *p, const float *in,
                            const float *filter, const float *bias, float *out);
void pl_fully_connected_s8(const pl_fully_connected_params *p, const int8_t *in,
                           const int8_t *filter, const int32_t *bias, int8_t *out);
/* 16x8: accumulates in int64 with the int64 rescale when acc64, else in int32 with the
** int32 rescale (TFLite's AccumScalar follows the bias type). */
void pl_fully_connected_s16(const pl_fully_connected_params *p, const int16_t *in,
                            const int8_t *filter, const void *bias, bool acc64,
                            int16_t *out);

const pl_registration *pl_fully_connected_registration(void);

#endif
