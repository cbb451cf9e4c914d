/* resize_avx2.c - RESIZE_BILINEAR's fused float pixel (resize_fma_body.h) with FMA3: AVX2 and
** AVX-512 sets. */
#define PL_RESIZE_FMA_NAME pl_fast_bilinear_fma_avx2
#include "fast/resize_fma_body.h"
