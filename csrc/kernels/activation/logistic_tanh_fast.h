/* logistic_tanh_fast.h - LOGISTIC and TANH's contract with the host fast paths
** (fast/logistic_tanh.c, exp_body.h, lut8.c, lstm16.c): the float sigmoid's cutoffs, the
** int16 functions and the int8/uint8 node's byte table. A fast path computes these
** functions' bits or calls them; it does not read the op data. */
#ifndef PL_KERNELS_LOGISTIC_TANH_FAST_H
#define PL_KERNELS_LOGISTIC_TANH_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* The reference's float sigmoid (TFLite's and TFLM's alike): 1 above the upper cutoff, e^x
** below the lower one, 1 / (1 + e^-x) between (NaN included). */
#define PL_LOGISTIC_F32_UPPER 16.619047164916992188f
#define PL_LOGISTIC_F32_LOWER -9.0f

/* multiplier 0 means a power-of-two input scale with the given left shift; otherwise
** the input is multiplied and rounding-shifted right by left_shift (TFLite's Prepare). */
void pl_logistic_s16(int32_t multiplier, int32_t left_shift, const int16_t *in, int16_t *out,
                     size_t n);
void pl_tanh_s16(int32_t multiplier, int32_t left_shift, const int16_t *in, int16_t *out,
                 size_t n);

/* A prepared int8 or uint8 LOGISTIC (is_tanh false) or TANH node's results on the 256 input
** bytes, indexed by the byte, for its input type and the context's arithmetic: the node's
** table, or (int8 in TFLM's arithmetic, which keeps none in the arena) the per-element
** arithmetic run on every byte. What the host fast path looks up. */
void pl_logistic_tanh_table(const pl_node *node, pl_type type, pl_arith arith, bool is_tanh,
                            uint8_t table[256]);

const pl_registration *pl_logistic_registration(void);
const pl_registration *pl_tanh_registration(void);

#endif
