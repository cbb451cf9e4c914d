/* prelu.h - float PRELU's row loop for the fast path, one per instruction set: out[i] =
** pl_prelu_f32_one(x, alpha[i % period]) over n elements (alpha holds at least min(n,
** period)): the portable kernel's comparison, multiply and NaN rule on every lane. */
#ifndef PL_FAST_PRELU_H
#define PL_FAST_PRELU_H

#include <stddef.h>

#include "picolite/pl_fast.h"

typedef void (*pl_prelu_rows_fn)(const float *in, const float *alpha, size_t period, size_t n,
                                 float *out);

/* The loop for isa: AVX2's on x86-64 CPUs that run it, else the portable C one (which the
** compiler vectorizes for the baseline: SSE2, NEON). */
pl_prelu_rows_fn pl_prelu_rows_for(pl_isa isa);

void pl_prelu_rows_c(const float *in, const float *alpha, size_t period, size_t n, float *out);
void pl_prelu_rows_avx2(const float *in, const float *alpha, size_t period, size_t n,
                        float *out);

#endif
