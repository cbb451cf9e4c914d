/* exp.h - float32 SOFTMAX, LOGISTIC and TANH with vector copies of pl_fmath_expf and
** pl_fmath_tanhf (kernels/common/fmath.c), and GELU with copies of glibc's erfcf and tanhf
** (gelu_body.h), one table per instruction set.
**
** The vector exp and tanh repeat the scalar ones' double arithmetic operation for operation
** (a double lane per float, Cody-Waite reduction, Horner on 1/n!, no fused multiply-add:
** built with -ffp-contract=off), so every float input gives the scalar's bits, NaN payloads
** included (tests/c/test_fast_exp.c checks every float bit pattern). The exp first tries a
** shorter fused polynomial and keeps it where it cannot round otherwise (exp_body.h).
** Around them each kernel does the portable kernel's float steps in its order: elementwise
** steps per lane, the softmax sum sequentially. */
#ifndef PL_FAST_EXP_H
#define PL_FAST_EXP_H

#include <stdbool.h>
#include <stddef.h>

#include "fast/isa_pick.h"
#include "picolite/pl_fast.h"

typedef struct pl_exp_kernels {
    /* out[i] = pl_fmath_expf(in[i]) */
    void (*expf)(const float *in, float *out, size_t n);
    /* out[i] = pl_fmath_tanhf(in[i]) (pl_tanh_f32) */
    void (*tanhf)(const float *in, float *out, size_t n);
    /* pl_logistic_f32 */
    void (*logistic)(const float *in, float *out, size_t n);
    /* pl_softmax_f32: outer rows of depth values */
    void (*softmax)(float beta, const float *in, float *out, size_t outer, size_t depth);
    /* out[i] = pl_gelu_f32(in[i]), pl_gelu_approx_f32(in[i]) where the host's libm is the
    ** one gelu_body.h copies (fast/gelu.c checks); NULL where no copy is built */
    void (*gelu)(const float *in, float *out, size_t n);
    void (*gelu_tanh)(const float *in, float *out, size_t n);
    /* out[i] = an elementwise MUL of in[i] and pl_logistic_f32(in[i]) (SiLU), in[i] its
    ** first operand or (x_first false) its second, clamped to [lo, hi] as the MUL does */
    void (*silu)(const float *in, float *out, size_t n, float lo, float hi, bool x_first);
} pl_exp_kernels;

/* NULL when isa has no such kernels in this build. */
const pl_exp_kernels *pl_exp_for(pl_isa isa);

PL_FAST_TABLES(pl_exp_kernels, pl_exp);

#endif
