/* hybrid_fast.h - what the host fast paths share with the hybrid (dynamic-range) kernels'
** on-the-fly quantization (hybrid.h): the scale and zero point of a batch row from its
** range. The fast paths find the range with vectors and quantize the values themselves
** with the rule hybrid.h documents; these give the parameters, so both agree bit for bit. */
#ifndef PL_KERNELS_HYBRID_FAST_H
#define PL_KERNELS_HYBRID_FAST_H

#include <stdbool.h>
#include <stdint.h>

/* The parameters both take from the values' least lo and greatest hi, which they find
** walking from x[0] and taking a later value only when strictly less (greater): a NaN
** first value gives NaN, a later one is never taken. false: the range is empty, every value
** quantizes to 0 (scale 1, zero point 0) and inv is not set. (The host fast paths vectorize
** the walk and the values' rule around these.) */
bool pl_hybrid_symmetric_params(float lo, float hi, float *scale, float *inv);
bool pl_hybrid_asymmetric_params(float lo, float hi, float *scale, int32_t *zero_point,
                                 float *inv);

#endif
