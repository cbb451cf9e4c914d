/* mean_sse41.c - MEAN's channel sums and REDUCE_MAX/MIN's folds (mean_body.h) for the SSE4.1 set. */
#define PL_MEAN_NAME pl_fast_mean_sums_sse41
#define PL_EXTREME_NAME pl_fast_extremes_sse41
#define PL_MEAN_LANES 32
#include "fast/mean_body.h"
