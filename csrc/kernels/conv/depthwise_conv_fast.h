/* depthwise_conv_fast.h - DEPTHWISE_CONV_2D's contract with the host fast paths
** (fast/depthwise*.c): the op data prepare leaves for invoke.
**
** A fast path reads these after the portable prepare ran and never writes them; it runs
** the portable invoke for what it does not reproduce, and reads only the union members
** of the node's own type (multiplier/shift or a hybrid's filter_scale). */
#ifndef PL_KERNELS_DEPTHWISE_CONV_FAST_H
#define PL_KERNELS_DEPTHWISE_CONV_FAST_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Precomputed in prepare. Input/output NHWC, filter 1HWC with C = in depth * multiplier;
** multiplier/shift hold one entry per output channel, as does filter_scale for a hybrid
** node (float input and output, int8 filter), which has no integer rescale: they share
** memory, as the op lives in the arena (the hybrid flag fills the padding before them). */
typedef struct pl_depthwise_conv_params {
    int32_t stride_w, stride_h, dilation_w, dilation_h, pad_w, pad_h, depth_multiplier;
    int32_t input_offset, output_offset; /* -input zero point, output zero point */
    int32_t act_min, act_max;
    float f_act_min, f_act_max;
    bool hybrid;
    uint8_t s4_walk; /* an int4 filter: how the firmware reads it (depthwise_s4_cmsis.h) */
    bool fused; /* float: the target fuses each multiply-add (ctx->fused_madd) */
    union {
        struct {
            PL_SLOT(const int32_t *, multiplier);
            PL_SLOT(const int32_t *, shift);
        };
        PL_SLOT(const float *, filter_scale); /* hybrid */
    };
} pl_depthwise_conv_params;

/* DEPTHWISE_CONV_2D's op data: what prepare decided, read by invoke (and by the host fast
** paths). */
typedef struct pl_depthwise_conv_op {
    pl_depthwise_conv_params p;
    pl_type type;
    union {
        int32_t filter_offset; /* uint8: minus the filter zero point */
        int32_t scratch;       /* hybrid: the quantized batch; int4: the unpacked filter */
    };
} pl_depthwise_conv_op;

const pl_registration *pl_depthwise_conv_registration(void);

#endif
