/* prelu.h - PRELU for float32 and int8, alpha broadcast against the input (TFLite
** reference_ops::BroadcastPrelu4DSlow / Prelu, activations.cc PreluPrepare). */
#ifndef PL_KERNELS_PRELU_H
#define PL_KERNELS_PRELU_H

#include <stdint.h>
#include <string.h>

#include "kernels/common/broadcast.h"
#include "picolite/pl_kernel.h"

typedef struct pl_prelu_params {
    int32_t input_offset; /* -input zero point */
    int32_t alpha_offset; /* -alpha zero point */
    int32_t output_offset;
    int32_t multiplier_1; /* x >= 0: input scale / output scale */
    int32_t shift_1;
    int32_t multiplier_2; /* x < 0: input scale * alpha scale / output scale */
    int32_t shift_2;
} pl_prelu_params;

/* The quiet-NaN bit of a float32. */
#define PL_PRELU_QUIET_BIT 0x00400000u

/* x >= 0 ? x : x * alpha, whose NaN is fixed here rather than by the build: a NaN x comes
** back quieted, as the product's first operand is returned from two NaNs on x86 and Arm;
** a compiler may swap a product's operands (at one optimisation level, not at another), so
** that case is not left to the multiply. A NaN alpha times a number returns alpha quieted
** on every CPU. */
static inline float pl_prelu_f32_one(float x, float alpha)
{
    if (x >= 0.0f)
        return x;
    if (x == x)
        return x * alpha;
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits |= PL_PRELU_QUIET_BIT;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* pl_prelu_f32_one over the broadcast walk bc (input is operand 1). */
void pl_prelu_f32(const pl_bcast *bc, const float *in, const float *alpha, float *out);
void pl_prelu_s8(const pl_prelu_params *p, const pl_bcast *bc, const int8_t *in,
                 const int8_t *alpha, int8_t *out);
/* Legacy uint8: the same arithmetic, clamped to 0..255. */
void pl_prelu_u8(const pl_prelu_params *p, const pl_bcast *bc, const uint8_t *in,
                 const uint8_t *alpha, uint8_t *out);

#endif
