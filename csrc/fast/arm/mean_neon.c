/* mean_neon.c - MEAN's channel sums and REDUCE_MAX/MIN's folds (mean_body.h) for NEON. */
#define PL_MEAN_NAME pl_fast_mean_sums_neon
#define PL_EXTREME_NAME pl_fast_extremes_neon
#define PL_MEAN_LANES 64
#include "fast/mean_body.h"
