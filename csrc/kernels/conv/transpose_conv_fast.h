/* transpose_conv_fast.h - TRANSPOSE_CONV's contract with the host fast path
** (fast/transpose_conv.c): the op data prepare leaves for invoke.
**
** A fast path reads these after the portable prepare ran and never writes them; it runs
** the portable invoke for what it does not reproduce. A hybrid node's filter_scale
** shares the multiplier/shift slots: read only what the type uses. */
#ifndef PL_KERNELS_TRANSPOSE_CONV_FAST_H
#define PL_KERNELS_TRANSPOSE_CONV_FAST_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Precomputed in prepare. Input/output NHWC, filter OHWI; multiplier/shift per output
** channel. */
typedef struct pl_transpose_conv_params {
    int32_t stride_w, stride_h, pad_w, pad_h;
    int32_t input_offset, output_offset; /* -input zero point, output zero point */
    union {
        struct { int32_t act_min, act_max; };   /* quantized clamp */
        struct { float f_act_min, f_act_max; }; /* float clamp */
    };
    union { /* a hybrid node has no integer rescale: its weight scales take the slots */
        struct {
            PL_SLOT(const int32_t *, multiplier);
            PL_SLOT(const int32_t *, shift);
        };
        PL_SLOT(const float *, filter_scale); /* hybrid: one, or one per output channel */
    };
} pl_transpose_conv_params;

/* TRANSPOSE_CONV's op data (read by the host fast paths too). */
typedef struct pl_transpose_conv_op {
    pl_transpose_conv_params p;
    pl_type type;
    bool bias64;
    bool hybrid, hybrid_per_channel; /* hybrid: float input and output, int8 weights */
    bool fused; /* float: the target fuses each multiply-add (ctx->fused_madd) */
    int32_t scratch;
    int32_t filter_offset; /* uint8: minus the weights' zero point */
} pl_transpose_conv_op;

const pl_registration *pl_transpose_conv_registration(void);

#endif
