/* mean_neon.c - MEAN's channel sums (mean_body.h) for NEON. */
#define PL_MEAN_NAME pl_fast_mean_sums_neon
#define PL_MEAN_LANES 64
#include "fast/mean_body.h"
