/* intmath.h - the integer helpers of TFLM's Signal library: bit length, square roots and
** the fixed-point natural log, with TFLM's results for every input (including its
** most-significant-bit of 0 being 32, as its GCC build computes it). */
#ifndef PL_SIGNAL_INTMATH_H
#define PL_SIGNAL_INTMATH_H

#include <stdint.h>

/* 32 - count of leading zeros; 32 for 0 (TFLM's __builtin_clz path). */
uint32_t pl_intmath_msb32(uint32_t x);
/* 64 - count of leading zeros; 64 for 0. */
uint32_t pl_intmath_msb64(uint64_t x);
/* Rounded integer square roots (Sqrt32 saturates at 0xFFFF, Sqrt64 at 0xFFFFFFFF). */
uint16_t pl_intmath_sqrt32(uint32_t x);
uint32_t pl_intmath_sqrt64(uint64_t x);
/* round(ln(x) * out_scale) in TFLM's Q16 interpolation, for x >= 2. */
uint32_t pl_intmath_log32(uint32_t x, uint32_t out_scale);

#endif
