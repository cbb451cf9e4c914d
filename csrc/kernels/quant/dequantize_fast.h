/* dequantize_fast.h - DEQUANTIZE's and QUANTIZE's contract with the host fast paths
** (fast/fold.c, fast/quant.c): the registrations, and the per-tensor scale and zero point
** prepare kept. The fold runs the portable prepare and invoke as they are (its output
** redirected to host memory). */
#ifndef PL_KERNELS_DEQUANTIZE_FAST_H
#define PL_KERNELS_DEQUANTIZE_FAST_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

const pl_registration *pl_dequantize_registration(void);
const pl_registration *pl_quantize_registration(void);

/* A prepared DEQUANTIZE of an integer input or QUANTIZE of a float one: its scale and zero
** point when they are per tensor (true), as its invoke uses them. */
bool pl_quant_per_tensor(const pl_node *node, float *scale, int32_t *zp);

#endif
