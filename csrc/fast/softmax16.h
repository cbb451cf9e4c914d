/* softmax16.h - int16 SOFTMAX rows (and int8's) with gathers (AVX2, AVX-512): the row
** maximum, the exps gathered from the host table (pl_softmax_s16_exp_table, one entry of
** padding after its n) and summed, and the final scaling, by lanes; the reciprocal is the
** portable kernel's. Integer sums are exact in any order, so the bytes are
** pl_softmax_s16_exps'. Needs every table entry >= 0 (then each product fits 32 bits); other
** instruction sets read the table in the portable row. */
#ifndef PL_FAST_SOFTMAX16_H
#define PL_FAST_SOFTMAX16_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/activation/softmax_fast.h"

typedef void (*pl_softmax16_rows)(const pl_softmax_params *p, const int16_t *exps, int32_t n,
                                  const int16_t *in, int16_t *out, size_t outer, size_t depth);

void pl_softmax16_avx2(const pl_softmax_params *p, const int16_t *exps, int32_t n,
                       const int16_t *in, int16_t *out, size_t outer, size_t depth);
void pl_softmax16_avx512(const pl_softmax_params *p, const int16_t *exps, int32_t n,
                         const int16_t *in, int16_t *out, size_t outer, size_t depth);

/* int8 in and out, the same way (x86/softmax8_avx2.c): exps is the int8 table
** (pl_softmax_exp_table, which holds diff_min too); the bytes are pl_softmax_s8_exps'. AVX2
** and AVX-512 CPUs. */
typedef void (*pl_softmax8_rows)(const int32_t *exps, const int8_t *in, int8_t *out,
                                 size_t outer, size_t depth);
void pl_softmax8_avx2(const int32_t *exps, const int8_t *in, int8_t *out, size_t outer,
                      size_t depth);

#endif
