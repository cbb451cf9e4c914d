/* elementwise.h - the elementwise fast paths' per-instruction-set loops. */
#ifndef PL_FAST_ELEMENTWISE_H
#define PL_FAST_ELEMENTWISE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/elementwise/elementwise.h"
#include "picolite/pl_fast.h"

/* TFLite's int8 AddElementwise over n elements of equal-shaped a and b (p's multipliers
** are never INT32_MIN: the caller checks). */
typedef void (*pl_fast_add_s8_fn)(const pl_add_params *p, const int8_t *a, const int8_t *b,
                                  int8_t *out, size_t n);

/* NULL when isa has none in this build. */
pl_fast_add_s8_fn pl_fast_add_s8_for(pl_isa isa);

void pl_fast_add_s8_avx512(const pl_add_params *p, const int8_t *a, const int8_t *b,
                           int8_t *out, size_t n);
void pl_fast_add_s8_avx2(const pl_add_params *p, const int8_t *a, const int8_t *b,
                         int8_t *out, size_t n);

#endif
