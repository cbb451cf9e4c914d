/* resize_neon.c - RESIZE_BILINEAR's pixel (resize_body.h) for NEON: fmaf is FMADD, used only
** for a fused target's float. */
#define PL_RESIZE_PX_NAME pl_fast_bilinear_px_neon
#define PL_RESIZE_FMA
#include "fast/resize_body.h"
