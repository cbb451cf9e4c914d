/* svdf.h - SVDF (singular value decomposition filter) as LiteRT's reference computes it.
**
** Each invocation shifts the state (batch x filters x memory, the newest column last) left
** by one over the whole buffer, writes the feature matmul of the input into the newest
** column, then reduces state x weights_time over memory and rank into units. float32, and
** full integer: int8 input/weights_feature, int32 bias, int8 output, with int16
** weights_time and state (LiteRT's EvalIntegerSVDF) or int8 ones with a state zero point
** (TFLM's int8 variant). The integer output is not clamped by the ReLU: LiteRT requires the
** ReLU and leaves it to the output zero point. */
#ifndef PL_KERNELS_SVDF_H
#define PL_KERNELS_SVDF_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

typedef struct pl_svdf_params {
    int32_t batches, input_size, filters, units, rank, memory;
    int32_t activation; /* float: fused activation code */
    int32_t input_zp, state_zp, output_zp;
    int32_t mult1, shift1; /* input x weights_feature -> state */
    int32_t mult2, shift2; /* state x weights_time -> output */
} pl_svdf_params;

const pl_registration *pl_svdf_registration(void);

/* bias may be NULL. state is updated in place. fused: each product fused into its sum
** (ctx->fused_madd). */
void pl_svdf_f32(const pl_svdf_params *p, const float *in, const float *wf, const float *wt,
                 const float *bias, bool fused, float *state, float *out);
/* int16 weights_time and state (state zero point 0). */
void pl_svdf_s8_s16(const pl_svdf_params *p, const int8_t *in, const int8_t *wf,
                    const int16_t *wt, const int32_t *bias, int16_t *state, int8_t *out);
/* int8 weights_time and state with the state's zero point. */
void pl_svdf_s8_s8(const pl_svdf_params *p, const int8_t *in, const int8_t *wf,
                   const int8_t *wt, const int32_t *bias, int8_t *state, int8_t *out);
/* The same as TFLM + CMSIS-NN computes it (svdf.c); mve: Helium's build. */
void pl_svdf_s8_s8_cmsis(const pl_svdf_params *p, bool mve, const int8_t *in, const int8_t *wf,
                         const int8_t *wt, const int32_t *bias, int8_t *state, int8_t *out);

/* The integer kernels of one build: the portable ones, or a fast instruction set's
** (svdf_int_body.h built with its flags). */
typedef struct pl_svdf_int_kernels {
    void (*s8_s16)(const pl_svdf_params *p, const int8_t *in, const int8_t *wf,
                   const int16_t *wt, const int32_t *bias, int16_t *state, int8_t *out);
    void (*s8_s8)(const pl_svdf_params *p, const int8_t *in, const int8_t *wf,
                  const int8_t *wt, const int32_t *bias, int8_t *state, int8_t *out);
    void (*s8_s8_cmsis)(const pl_svdf_params *p, bool mve, const int8_t *in, const int8_t *wf,
                        const int8_t *wt, const int32_t *bias, int8_t *state, int8_t *out);
} pl_svdf_int_kernels;

/* The SVDF registration's invoke, its integer state run by k (float: the portable kernel). */
pl_status pl_svdf_invoke_with(pl_context *ctx, pl_node *node, const pl_svdf_int_kernels *k);

/* Whether a prepared SVDF node runs an integer state (k's kernels would run it). */
bool pl_svdf_is_integer(const pl_node *node);

#endif
