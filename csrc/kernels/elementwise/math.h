/* math.h - the unary math ops (LiteRT elementwise.cc, exp.cc, floor.cc, ceil.cc, round.cc,
** neg.cc, zeros_like.cc): CEIL, COS, EXP, FLOOR, LOG, NEG, ROUND, RSQRT, SIN, SQRT, SQUARE,
** ZEROS_LIKE.
**
** float32 for all; int8 EXP and LOG through a 256-entry table of the float function and
** int16 EXP, LOG, RSQRT through TFLite's interpolated 513-entry table (LUTPopulate), whose
** two entries each lookup reads are computed on the fly rather than stored; int8
** and int16 SQRT in float with truncation; int8 RSQRT in fixed point
** (GetInvSqrtQuantizedMultiplierExp); NEG on int8, int16, int32, int64 and ZEROS_LIKE on
** int8 (TFLM's), int32, int64 as stored integers. */
#ifndef PL_KERNELS_MATH_H
#define PL_KERNELS_MATH_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/elementwise/math_fast.h" /* FLOOR, CEIL, NEG, SQRT, RSQRT, SQUARE */
#include "picolite/pl_kernel.h"

const pl_registration *pl_cos_registration(void);
const pl_registration *pl_exp_registration(void);
const pl_registration *pl_log_registration(void);
const pl_registration *pl_round_registration(void);
const pl_registration *pl_sin_registration(void);
const pl_registration *pl_zeros_like_registration(void);

/* TFLite RoundToNearest: half to even. */
float pl_math_round_f32(float x);

/* One int8 RSQRT: q - input_zp (>= 0) through 1/sqrt, rescaled by 1 / (sqrt(s_in) s_out). */
int8_t pl_math_rsqrt_s8(int32_t q, int32_t input_zp, int32_t output_zp, int32_t multiplier,
                        int32_t shift);

#endif
