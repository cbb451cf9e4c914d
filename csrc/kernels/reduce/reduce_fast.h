/* reduce_fast.h - MEAN's and SUM's contract with the host fast path (fast/mean.c): the op data
** prepare leaves for invoke, the reduction's block shape and the integer rescale.
**
** A fast path reads these after the portable prepare ran and never writes them. Float sums
** must take each output's elements in input order (the reference's); integer sums are
** int32 wrapping, so any order gives the same sum, which pl_reduce_rescale turns into the
** output as the portable invoke does. */
#ifndef PL_KERNELS_REDUCE_FAST_H
#define PL_KERNELS_REDUCE_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/common/arith_fast.h"
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

/* MEAN's and SUM's op data. */
typedef struct pl_reduce_op {
    pl_reduce_params p;
    pl_type type;
    bool is_sum;
    bool as_uint8;             /* LiteRT 2.3.0's int8 SUM: bytes taken as uint8 (litert) */
    int32_t multiplier, shift; /* QuantizeMultiplier(in_scale / out_scale) */
    int32_t in_zp, out_zp;
    int32_t scratch;           /* int32 sums of the quantized paths */
} pl_reduce_op;

/* REDUCE_MAX's and REDUCE_MIN's op data (the fold needs no more; the type is the input's). */
typedef struct pl_reduce_extreme_op {
    pl_reduce_params p;
} pl_reduce_extreme_op;

/* The reduction as [outer][reduced][inner] blocks, when the reduced dims are adjacent (size-1
** dims aside): global pooling, a last-axis mean. Output slot o * inner + c then takes
** elements (o * reduced + r) * inner + c in r order, as the element-by-element walk. */
typedef struct pl_reduce_blocks {
    size_t outer, reduced, inner;
} pl_reduce_blocks;

/* Whether p's reduction has that block shape (then *b holds it). */
bool pl_reduce_as_blocks(const pl_reduce_params *p, pl_reduce_blocks *b);

/* The quantized output of d (INT8, INT16, UINT8) from its out_count int32 sums. */
void pl_reduce_rescale(const pl_reduce_op *d, const int32_t *sum, void *out);

/* What pl_reduce_rescale does to each sum: v = pl_rescale_qm(sum - zp_n, multiplier, shift)
** + out_zp (the subtraction wrapping as int32), clamped to [lo, hi], stored as the output
** type (LiteRT's int8 SUM: as uint8, as_uint8). */
typedef struct pl_reduce_rescale_params {
    int32_t multiplier, shift, zp_n, out_zp, lo, hi;
} pl_reduce_rescale_params;

void pl_reduce_rescale_params_of(const pl_reduce_op *d, pl_reduce_rescale_params *r);

/* One sum's clamped value (before its store as the output type). */
static inline int32_t pl_reduce_rescaled(const pl_reduce_rescale_params *r, int32_t sum)
{
    int32_t centered = (int32_t)((uint32_t)sum - (uint32_t)r->zp_n);
    return pl_fx_clamp(pl_rescale_qm(centered, r->multiplier, r->shift) + r->out_zp, r->lo,
                       r->hi);
}

const pl_registration *pl_reduce_mean_registration(void);
const pl_registration *pl_reduce_sum_registration(void);
const pl_registration *pl_reduce_max_registration(void);
const pl_registration *pl_reduce_min_registration(void);

#endif
