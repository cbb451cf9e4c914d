/* quant.h - per-tensor QUANTIZE (float32 to int8, uint8, int16; between int8, uint8 and
** int16) and DEQUANTIZE (back to float32) of a tensor the invoke computes, by vectors (quant.c plans them, x86/quant_avx2.c computes). */
#ifndef PL_FAST_QUANT_H
#define PL_FAST_QUANT_H

#include <stddef.h>
#include <stdint.h>

#include "fast/isa_pick.h"
#include "kernels/quant/dequantize_fast.h"
#include "picolite/pl_kernel.h"

typedef struct pl_quant_kernels {
    /* out[i] = scale (float)(in[i] - zp), in of type t (INT8, UINT8, INT16): the portable
    ** per-tensor DEQUANTIZE while |in[i] - zp| < 2^24 (exact in float) */
    void (*dequantize)(pl_type t, const void *in, float scale, int32_t zp, float *out,
                       size_t n);
    /* the portable per-tensor QUANTIZE into type t: r = pl_fx_roundf(in[i] / scale), INT32_MIN
    ** when r is NaN or out of int32, plus zp wrapping, clamped to t */
    void (*quantize)(pl_type t, const float *in, float scale, int32_t zp, void *out, size_t n);
    /* the portable requantizing QUANTIZE (pl_quantize_requant) from type ti into type to
    ** (INT8, UINT8, INT16 each) while |p->output_zero_point| <= 2^16 */
    void (*requant)(const pl_requant_params *p, pl_type ti, const void *in, pl_type to,
                    void *out, size_t n);
} pl_quant_kernels;

/* NULL: isa keeps the portable kernels. */
const pl_quant_kernels *pl_quant_for(pl_isa isa);

extern const pl_quant_kernels pl_quant_avx2;

/* A DEQUANTIZE node's block starts with one of these (fold.c's or quant.c's plan). */
enum {
    PL_DEQUANTIZE_FOLDED = 1,  /* folded; no invoke yet */
    PL_DEQUANTIZE_RUNTIME = 2, /* a computed tensor: quant.c's loop */
    PL_DEQUANTIZE_COPIED = 3,  /* folded, copied into the arena at each invoke */
    PL_DEQUANTIZE_UNREAD = 4   /* folded, and every reader claimed the values: no copy */
};

/* DEQUANTIZE of a computed tensor (fold.c calls it when it folds nothing): false when the
** portable kernel keeps the node. */
bool pl_fast_dequantize_runtime_plan(pl_context *ctx, const pl_node *node);
pl_status pl_fast_dequantize_runtime_invoke(pl_context *ctx, pl_node *node);

pl_status pl_fast_quantize_prepare(pl_context *ctx, pl_node *node);
pl_status pl_fast_quantize_invoke(pl_context *ctx, pl_node *node);

#endif
