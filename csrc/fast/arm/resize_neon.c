/* resize_neon.c - RESIZE_BILINEAR's fused float pixel (resize_fma_body.h): fmaf is FMADD. */
#define PL_RESIZE_FMA_NAME pl_fast_bilinear_fma_neon
#include "fast/resize_fma_body.h"
