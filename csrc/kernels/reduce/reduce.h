/* reduce.h - MEAN and SUM: TFLite's reference Mean / QuantizedMeanOrSum / ReduceGeneric,
** choosing among them exactly as LiteRT's reduce.cc does. */
#ifndef PL_KERNELS_REDUCE_H
#define PL_KERNELS_REDUCE_H

#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Precomputed in prepare: for each input dimension its size and its stride in the output
** (0 for reduced dimensions), so input element order maps onto output slots. */
typedef struct pl_reduce_params {
    int32_t ndims;
    int32_t dims[PL_MAX_DIMS];
    PL_SLOTS(size_t, out_stride, PL_MAX_DIMS);
    PL_SLOT(size_t, out_count);
    int32_t reduced; /* elements folded into each output */
} pl_reduce_params;

/* Sums the input into acc (out_count slots, zeroed first) in input order. type is
** PL_INT8, PL_INT16 or PL_UINT8 (int8 bytes summed as unsigned, as LiteRT's int8 SUM). */
void pl_reduce_sum_f32(const pl_reduce_params *p, const float *in, float *acc);
void pl_reduce_sum_s32(const pl_reduce_params *p, const void *in, pl_type type,
                       int32_t *acc);

const pl_registration *pl_reduce_mean_registration(void);
const pl_registration *pl_reduce_sum_registration(void);

#endif
