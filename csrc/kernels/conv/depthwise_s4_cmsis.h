/* depthwise_s4_cmsis.h - int4 DEPTHWISE_CONV_2D as TFLM + CMSIS-NN firmware computes it.
**
** TFLM's cmsis_nn kernel hands the packed filter (two weights a byte, low nibble first) to
** arm_depthwise_conv_wrapper_s4, which takes arm_depthwise_conv_s4_opt for a multiplier of
** 1, one batch and no dilation, else arm_depthwise_conv_s4. Two of their walks read other
** nibbles than the weights TFLM's reference kernel multiplies:
** - arm_depthwise_conv_s4 with an odd input depth (every core): one nibble parity is carried
**   from tap to tap and channel to channel of an output point, stepped only on the taps
**   the padding leaves, and every filter row restarts from a byte index computed with the
**   input depth rounded down to even;
** - arm_depthwise_conv_s4_opt on Helium, as the firmware's GCC 12 builds it: the predicate
**   that should sign-extend only the low nibbles of a 4-channel gather (0x0F0F) is loaded as
**   all ones, so on a tap whose row starts on a byte boundary every channel takes the low
**   nibble of the byte holding its weight.
** Everywhere else (arm_depthwise_conv_s4_opt off Helium, even depths) the bytes are the
** reference kernel's: the unpacked filter and pl_depthwise_conv_s8. */
#ifndef PL_KERNELS_DEPTHWISE_S4_CMSIS_H
#define PL_KERNELS_DEPTHWISE_S4_CMSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "depthwise_conv.h"
#include "picolite/pl_kernel.h"

typedef enum pl_dw_s4_walk {
    PL_DW_S4_UNPACKED = 0, /* the reference kernel's weights (pl_int4_filter_unpack) */
    PL_DW_S4_GENERIC_ODD,  /* arm_depthwise_conv_s4, odd input depth */
    PL_DW_S4_HELIUM_OPT    /* arm_depthwise_conv_s4_opt, MVE build */
} pl_dw_s4_walk;

/* The walk the firmware of ctx->arith makes (UNPACKED off the CMSIS-NN targets). Fails,
** naming why, where that walk would read past the packed filter's end. (Helium's 4-point
** pass adds 124 to a NULL bias past its first 124 channels, but TFLM's prepare refuses a
** depthwise without a bias before.) */
pl_status pl_dw_s4_cmsis_plan(pl_context *ctx, const pl_depthwise_conv_params *p,
                              const int32_t *in_dims, const int32_t *f_dims,
                              const int32_t *out_dims, uint8_t *walk);

/* The convolution with that walk's weights (walk != UNPACKED); filter is packed. Fails only
** if the walk would leave the filter (the plan refused that already). */
pl_status pl_dw_s4_cmsis(pl_context *ctx, const pl_depthwise_conv_params *p, uint8_t walk,
                         const int32_t *in_dims, const int8_t *in, const int32_t *f_dims,
                         const uint8_t *filter, const int32_t *bias, const int32_t *out_dims,
                         int8_t *out);

#endif
