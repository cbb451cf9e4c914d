/* resize_avx2.c - RESIZE_BILINEAR's pixel (resize_body.h) for the AVX2 and AVX-512 sets, with
** FMA3 for a fused target's float. */
#define PL_RESIZE_PX_NAME pl_fast_bilinear_px_avx2
#define PL_RESIZE_FMA
#include "fast/resize_body.h"
