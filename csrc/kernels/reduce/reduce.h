/* reduce.h - reducers. MEAN and SUM: TFLite's reference Mean / QuantizedMeanOrSum / ReduceGeneric,
** choosing among them exactly as LiteRT's reduce.cc does; REDUCE_MAX/MIN/PROD/ALL/ANY: the
** reference ReduceGeneric (reduce_extreme.c). */
#ifndef PL_KERNELS_REDUCE_H
#define PL_KERNELS_REDUCE_H

#include <stdint.h>

#include "kernels/reduce/reduce_fast.h" /* the op data */
#include "picolite/pl_kernel.h"

/* Visits the input in row-major order, handing each element's output slot to BODY. */
#define PL_REDUCE_FOR_EACH(p, BODY)                                                       \
    do {                                                                              \
        int32_t idx_[PL_MAX_DIMS] = {0};                                              \
        size_t slot_ = 0, n_ = 1;                                                     \
        for (int32_t d_ = 0; d_ < (p)->ndims; d_++)                                   \
            n_ *= (size_t)(p)->dims[d_];                                              \
        for (size_t i = 0; i < n_; i++) {                                             \
            size_t slot = slot_;                                                      \
            BODY;                                                                     \
            for (int32_t d_ = (p)->ndims - 1; d_ >= 0; d_--) {                        \
                slot_ += (p)->out_stride[d_];                                         \
                if (++idx_[d_] < (p)->dims[d_])                                       \
                    break;                                                            \
                slot_ -= (p)->out_stride[d_] * (size_t)(p)->dims[d_];                 \
                idx_[d_] = 0;                                                         \
            }                                                                         \
        }                                                                             \
    } while (0)

/* Checks a reducer node (input, constant INT32 axis, one output of the input's type),
** resolves the axes (negative, repeated) and keep_dims, gives the output its shape and
** fills p. *in and *out are the full tensors (prepare only). */
pl_status pl_reduce_plan(pl_context *ctx, pl_node *node, const char *name, pl_tensor **in,
                         pl_tensor **out, pl_reduce_params *p);

/* Sums the input into acc (out_count slots, zeroed first) in input order. type is
** PL_INT8, PL_INT16 or PL_UINT8 (int8 bytes summed as unsigned, as LiteRT's int8 SUM). */
void pl_reduce_sum_f32(const pl_reduce_params *p, const float *in, float *acc);
void pl_reduce_sum_s32(const pl_reduce_params *p, const void *in, pl_type type,
                       int32_t *acc);

const pl_registration *pl_reduce_sum_registration(void);
const pl_registration *pl_reduce_max_registration(void);
const pl_registration *pl_reduce_min_registration(void);
const pl_registration *pl_reduce_prod_registration(void);
const pl_registration *pl_reduce_all_registration(void);
const pl_registration *pl_reduce_any_registration(void);

#endif
