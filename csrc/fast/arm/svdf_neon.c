/* svdf_neon.c - SVDF's integer kernels built for NEON (see fast/svdf.c). */
#include <string.h>

#include "kernels/common/fixedpoint.h"
#include "kernels/recurrent/svdf.h"

#define PL_SVDF_INT(name) name
#define PL_SVDF_INT_API static
#include "kernels/recurrent/svdf_int_body.h"

const pl_svdf_int_kernels pl_svdf_int_neon = {s8_s16, s8_s8, s8_s8_cmsis};
