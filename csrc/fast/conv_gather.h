/* conv_gather.h - CONV_2D's int8 windows gathered as rows (im2col) for the int8 matrix
** product (gemm.h), shared by the int8 and hybrid convolutions. */
#ifndef PL_FAST_CONV_GATHER_H
#define PL_FAST_CONV_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/conv/conv_fast.h"

/* Bytes past the gathered rows that a short run's whole copy (int8: 16 bytes, float: quads)
** or a short row's padding (16 bytes) may write into. */
#define PL_FAST_GATHER_SPILL 16

/* Where the rows go: rows of kp bytes (k taps x channels, then zeros), a padded tap holding
** pad (the input's zero point + 128). a has PL_FAST_GATHER_SPILL bytes of room past them. */
typedef struct pl_gather_s8 {
    uint8_t *a;
    int32_t k, kp;
    uint8_t pad;
} pl_gather_s8;

/* The windows of output points first.. first + rows - 1 (NHWC order) of in (in_bytes
** bytes), each tap as its value + 128 (an unsigned byte). */
void pl_fast_conv_gather_s8(const pl_conv_params *p, const pl_gather_s8 *g,
                            const int32_t *in_dims, const int8_t *in, size_t in_bytes,
                            const int32_t *f_dims, const int32_t *out_dims, size_t first,
                            int32_t rows);

#endif
