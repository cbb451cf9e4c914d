/* floor_div.h - FLOOR_DIV and FLOOR_MOD with broadcasting (LiteRT floor_div.cc,
** floor_mod.cc). Integer types are divided as stored integers (quantization is ignored, as
** in LiteRT); a zero divisor is an error at invoke, as there. */
#ifndef PL_KERNELS_FLOOR_DIV_H
#define PL_KERNELS_FLOOR_DIV_H

#include <stdint.h>

#include "picolite/pl_kernel.h"

const pl_registration *pl_floor_div_registration(void);
const pl_registration *pl_floor_mod_registration(void);

/* floor(a / b), as LiteRT's FloorDiv computes it in double (exact for int32 operands: the
** quotient is at least 1/|b| from the next integer), here in integers; b != 0.
** INT32_MIN / -1 wraps. */
int32_t pl_floor_div_s32(int32_t a, int32_t b);
/* a - floor(a / b) b with the divisor's sign; b != 0. */
int64_t pl_floor_mod_s64(int64_t a, int64_t b);
float pl_floor_mod_f32(float a, float b);

#endif
