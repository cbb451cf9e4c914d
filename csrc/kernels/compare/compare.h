/* compare.h - EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL (LiteRT
** comparisons.cc): bool output, broadcasting inputs of one type.
**
** float32, int32, int64 and bool (EQUAL/NOT_EQUAL only) compare stored values. int8 and
** uint8 compare rescaled values: (q - zero_point) << 8, times the tensor's own scale as a
** Q31 multiplier, so inputs of different quantizations compare by the reals they hold.
** int16 follows LiteRT: EQUAL/NOT_EQUAL rescale quantized tensors, the ordering ops compare
** the stored integers. */
#ifndef PL_KERNELS_COMPARE_H
#define PL_KERNELS_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/common/broadcast.h"
#include "picolite/pl_kernel.h"

typedef enum pl_compare_op {
    PL_CMP_EQUAL = 71,
    PL_CMP_NOT_EQUAL = 72,
    PL_CMP_GREATER = 61,
    PL_CMP_GREATER_EQUAL = 62,
    PL_CMP_LESS = 58,
    PL_CMP_LESS_EQUAL = 63
} pl_compare_op;

/* TFLite ComparisonParams for the rescaled path (left shift 8). */
typedef struct pl_compare_params {
    int32_t offset1, offset2;         /* minus the zero points */
    int32_t multiplier1, multiplier2; /* each input's scale, Q31 */
    int32_t shift1, shift2;           /* <= 0 */
} pl_compare_params;

const pl_registration *pl_equal_registration(void);
const pl_registration *pl_not_equal_registration(void);
const pl_registration *pl_greater_registration(void);
const pl_registration *pl_greater_equal_registration(void);
const pl_registration *pl_less_registration(void);
const pl_registration *pl_less_equal_registration(void);

/* The rescaled value TFLite compares for a quantized q. */
int32_t pl_compare_scaled(int32_t q, int32_t offset, int32_t multiplier, int32_t shift);

void pl_compare_s8(pl_compare_op op, const pl_compare_params *p, const pl_bcast *bc,
                   const int8_t *a, const int8_t *b, bool *out);
void pl_compare_f32(pl_compare_op op, const pl_bcast *bc, const float *a, const float *b,
                    bool *out);

#endif
