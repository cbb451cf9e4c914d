/* pooling.h - AVERAGE_POOL_2D and MAX_POOL_2D: TFLite's reference pooling (float, int8,
** int16), rounding of the quantized average included. */
#ifndef PL_KERNELS_POOLING_H
#define PL_KERNELS_POOLING_H

#include <stdint.h>

#include "kernels/pool/pooling_fast.h" /* the op data */
#include "picolite/pl_kernel.h"

void pl_pooling_avg_f32(const pl_pooling_params *p, const int32_t *in_dims, const float *in,
                        const int32_t *out_dims, float *out);
void pl_pooling_avg_s8(const pl_pooling_params *p, const int32_t *in_dims, const int8_t *in,
                       const int32_t *out_dims, int8_t *out);
void pl_pooling_avg_s16(const pl_pooling_params *p, const int32_t *in_dims,
                        const int16_t *in, const int32_t *out_dims, int16_t *out);
/* Legacy uint8, as LiteRT's reference uint8 pools. */
void pl_pooling_avg_u8(const pl_pooling_params *p, const int32_t *in_dims, const uint8_t *in,
                       const int32_t *out_dims, uint8_t *out);
void pl_pooling_max_u8(const pl_pooling_params *p, const int32_t *in_dims, const uint8_t *in,
                       const int32_t *out_dims, uint8_t *out);
void pl_pooling_max_f32(const pl_pooling_params *p, const int32_t *in_dims, const float *in,
                        const int32_t *out_dims, float *out);
void pl_pooling_max_s8(const pl_pooling_params *p, const int32_t *in_dims, const int8_t *in,
                       const int32_t *out_dims, int8_t *out);
void pl_pooling_max_s16(const pl_pooling_params *p, const int32_t *in_dims,
                        const int16_t *in, const int32_t *out_dims, int16_t *out);

#endif
