/* prelu.h - PRELU for float32 and int8, alpha broadcast against the input (TFLite
** reference_ops::BroadcastPrelu4DSlow / Prelu, activations.cc PreluPrepare). */
#ifndef PL_KERNELS_PRELU_H
#define PL_KERNELS_PRELU_H

#include <stdint.h>
#include <string.h>

#include "kernels/common/broadcast.h"
#include "kernels/activation/prelu_fast.h"
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

/* pl_prelu_f32_one over the broadcast walk bc (input is operand 1). */
void pl_prelu_f32(const pl_bcast *bc, const float *in, const float *alpha, float *out);
void pl_prelu_s8(const pl_prelu_params *p, const pl_bcast *bc, const int8_t *in,
                 const int8_t *alpha, int8_t *out);
/* Legacy uint8: the same arithmetic, clamped to 0..255. */
void pl_prelu_u8(const pl_prelu_params *p, const pl_bcast *bc, const uint8_t *in,
                 const uint8_t *alpha, uint8_t *out);

#endif
