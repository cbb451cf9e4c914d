/* minmax.h - MINIMUM and MAXIMUM: registrations and inner loops. */
#ifndef PL_KERNELS_MINMAX_H
#define PL_KERNELS_MINMAX_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/common/broadcast.h"
#include "kernels/elementwise/elementwise_fast.h" /* the registrations */
#include "picolite/pl_kernel.h"

/* out = maximum ? max(a, b) : min(a, b) over the broadcast walk bc (set up in prepare). */
void pl_minmax_f32(const pl_bcast *bc, bool maximum, const float *a, const float *b,
                   float *out);
void pl_minmax_s8(const pl_bcast *bc, bool maximum, const int8_t *a, const int8_t *b,
                  int8_t *out);
void pl_minmax_s16(const pl_bcast *bc, bool maximum, const int16_t *a, const int16_t *b,
                   int16_t *out);

#endif
