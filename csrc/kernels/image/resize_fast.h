/* resize_fast.h - RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR's contract with the host fast
** path (fast/resize.c): their options and the source coordinates the portable kernels
** compute, so a fast path's tables hold exactly the portable kernel's indices and weights.
**
** The kernels keep no op data: a fast path reads the options from the node and the shapes
** from the tensors, after the portable prepare ran. */
#ifndef PL_KERNELS_RESIZE_FAST_H
#define PL_KERNELS_RESIZE_FAST_H

#include <stdbool.h>
#include <stdint.h>

#include "picolite/pl_kernel.h"

/* ResizeBilinearOptions and ResizeNearestNeighborOptions field ids (schema.fbs). */
enum {
    PL_RESIZE_BILINEAR_ALIGN_CORNERS = 2,
    PL_RESIZE_BILINEAR_HALF_PIXEL_CENTERS = 3,
    PL_RESIZE_NEAREST_ALIGN_CORNERS = 0,
    PL_RESIZE_NEAREST_HALF_PIXEL_CENTERS = 1
};

/* A bilinear source coordinate along one axis: float (FLOAT32, UINT8) or in 1/1024ths
** (INT8, INT16), with the two source indices it falls between. */
typedef struct pl_resize_axis_f {
    float at;
    int32_t lo, hi;
} pl_resize_axis_f;

typedef struct pl_resize_axis_q {
    int32_t at;
    int32_t lo, hi;
} pl_resize_axis_q;

/* TFLite's float scale and ComputeInterpolationValues (fused: the firmware's VFMA). */
float pl_resize_scale_f(int32_t in, int32_t out, bool align);
pl_resize_axis_f pl_resize_coord_f(int32_t v, float scale, bool half, bool fused, int32_t in);

/* TFLite's 10-bit scale and ComputeInterpolationValuesInteger. */
int32_t pl_resize_scale_q(int32_t in, int32_t out, bool align);
pl_resize_axis_q pl_resize_coord_q(int32_t v, int32_t scale_10, bool half, int32_t in);

/* RESIZE_NEAREST_NEIGHBOR's source index of output index v along an axis of in -> out. */
int32_t pl_resize_nearest_index(int32_t v, int32_t in, int32_t out, bool align, bool half);

const pl_registration *pl_resize_bilinear_registration(void);
const pl_registration *pl_resize_nearest_neighbor_registration(void);

#endif
