/* pad_fast.h - PAD and PADV2's contract with the host fast path (fast/pad.c): the op data
** prepare leaves for invoke and the pad value's rule.
**
** A fast path reads these after the portable prepare ran and never writes them; the pad
** value is pl_pad_value's, from the same inputs as the portable invoke. */
#ifndef PL_KERNELS_PAD_FAST_H
#define PL_KERNELS_PAD_FAST_H

#include <stdint.h>

#include "picolite/pl_kernel.h"

/* Ranks accepted (TFLite's reference pads up to 5-D). */
#define PL_PAD_MAX_DIMS 6

/* Room for the largest element (COMPLEX128). */
#define PL_PAD_MAX_ELEMENT 16

/* The op data prepare fills: input placed at `before` inside the output, per dim. */
typedef struct pl_pad_op {
    int32_t ndims;
    int32_t before[PL_PAD_MAX_DIMS];
    int32_t in_dims[PL_PAD_MAX_DIMS];
    int32_t out_dims[PL_PAD_MAX_DIMS];
    int32_t zero_point; /* default pad value of quantized types */
} pl_pad_op;

/* The pad value of an output of type (the element in value's first bytes): PADV2's
** constant_values (v, of the eval view; absent: data NULL) when given, else the output zero
** point for INT8, UINT8 and INT16 and 0 otherwise. */
void pl_pad_value(const pl_pad_op *d, pl_type type, const pl_tensor *v,
                  uint8_t value[PL_PAD_MAX_ELEMENT]);

const pl_registration *pl_pad_registration(void);
const pl_registration *pl_padv2_registration(void);

#endif
