/* resize_sse41.c - RESIZE_BILINEAR's pixel (resize_body.h) for the SSE4.1 set: no FMA, so a
** fused target's float keeps the portable kernel. */
#define PL_RESIZE_PX_NAME pl_fast_bilinear_px_sse41
#include "fast/resize_body.h"
