/* conv_fast.h - CONV_2D's contract with the host fast paths (csrc/fast/conv*.c): the op
** data prepare leaves for invoke and the window helpers (conv_window_fast.h).
**
** A fast path reads these after the portable prepare ran and never writes them; it runs
** the portable invoke for what it does not reproduce (helium_1xn's edges, int4 filters,
** uint8). The act_min/max union holds what the node's type uses. */
#ifndef PL_KERNELS_CONV_FAST_H
#define PL_KERNELS_CONV_FAST_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Everything invoke needs, precomputed in prepare. Shapes are NHWC (input, output) and
** OHWI (filter, I = input depth / groups). multiplier/shift hold one entry per output
** channel (per-tensor scales are broadcast). */
typedef struct pl_conv_params {
    int32_t stride_w, stride_h, dilation_w, dilation_h, pad_w, pad_h;
    int32_t input_offset, output_offset; /* -input zero point, output zero point */
    union {
        struct { int32_t act_min, act_max; };   /* quantized clamp */
        struct { float f_act_min, f_act_max; }; /* float clamp */
    };
    PL_SLOT(const int32_t *, multiplier);
    PL_SLOT(const int32_t *, shift);
} pl_conv_params;

/* Hybrid (float input, int8 filter): the filter's scales. */
typedef struct pl_conv_hybrid_params {
    PL_SLOT(const float *, filter_scale); /* one per output channel (per_channel), else one */
    bool per_channel;
} pl_conv_hybrid_params;

/* CONV_2D's op data: what prepare decided, read by invoke (and by the host fast paths). */
typedef struct pl_conv_op {
    pl_conv_params p;
    pl_type type;
    pl_type bias_type;
    bool hybrid;
    bool helium_1xn; /* CMSIS-NN's Helium 1xN path (conv_1xn_mve.h): its own edge bytes */
    bool fused;      /* float: the target fuses each multiply-add (ctx->fused_madd) */
    pl_conv_hybrid_params h;
    int32_t scratch; /* hybrid: one batch of quantized input; int4: the unpacked filter */
    int32_t filter_offset; /* uint8: minus the filter zero point */
} pl_conv_op;

const pl_registration *pl_conv_registration(void);

#endif
