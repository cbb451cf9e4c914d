/* svdf_avx2.c - SVDF's integer kernels built with the AVX2 flags (see fast/svdf.c). */
#include <string.h>

#include "kernels/common/fixedpoint.h"
#include "kernels/recurrent/svdf.h"

#define PL_SVDF_INT(name) name
#define PL_SVDF_INT_API static
#include "kernels/recurrent/svdf_int_body.h"

const pl_svdf_int_kernels pl_svdf_int_avx2 = {s8_s16, s8_s8, s8_s8_cmsis};
