/* mean_sse41.c - MEAN's channel sums (mean_body.h) for the SSE4.1 set. */
#define PL_MEAN_NAME pl_fast_mean_sums_sse41
#define PL_MEAN_LANES 32
#include "fast/mean_body.h"
