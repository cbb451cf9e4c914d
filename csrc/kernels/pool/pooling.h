/* pooling.h - AVERAGE_POOL_2D and MAX_POOL_2D: TFLite's reference pooling (float, int8,
** int16), rounding of the quantized average included. */
#ifndef PL_KERNELS_POOLING_H
#define PL_KERNELS_POOLING_H

#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Precomputed in prepare; input and output are NHWC. */
typedef struct pl_pooling_params {
    int32_t stride_w, stride_h, filter_w, filter_h, pad_w, pad_h;
    int32_t act_min, act_max;
    float f_act_min, f_act_max;
} pl_pooling_params;

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

/* AVERAGE_POOL_2D and MAX_POOL_2D's op data (read by the host fast paths too). */
typedef struct pl_pooling_op {
    pl_pooling_params p;
    pl_type type;
} pl_pooling_op;

const pl_registration *pl_pooling_avg_registration(void);
const pl_registration *pl_pooling_max_registration(void);

#endif
