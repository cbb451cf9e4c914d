/* mean_avx2.c - MEAN's channel sums and REDUCE_MAX/MIN's folds (mean_body.h) for the AVX2 and AVX-512 sets. */
#define PL_MEAN_NAME pl_fast_mean_sums_avx2
#define PL_EXTREME_NAME pl_fast_extremes_avx2
#define PL_MEAN_LANES 64
#include "fast/mean_body.h"
