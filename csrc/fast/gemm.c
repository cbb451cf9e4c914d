/* gemm.c - the matrix product tables by instruction set, and the int8 output stage setup. */
#include "fast/gemm.h"

#include <math.h>
#include <string.h>

#include "fast/isa_pick.h"

const pl_gemm_s8 *pl_gemm_s8_for(pl_isa isa)
{
    PL_FAST_PICK(isa, &pl_gemm_s8_avx512, &pl_gemm_s8_avx2, &pl_gemm_s8_sse41, &pl_gemm_s8_neon,
                 &pl_gemm_s8_neon_dot);
    return NULL;
}

const pl_gemm_f32 *pl_gemm_f32_for(pl_isa isa)
{
    PL_FAST_PICK(isa, &pl_gemm_f32_avx512, &pl_gemm_f32_avx2, &pl_gemm_f32_sse41,
                 &pl_gemm_f32_neon, &pl_gemm_f32_neon);
    return NULL;
}

float pl_fast_quick_limit(int32_t right, double extra)
{
    const double window = ldexp(1.0, -(right + 1)) + ldexp(1.0, -11) + extra;
    return window > PL_QUICK_WINDOW_MAX ? -1.0f : nextafterf((float)(0.5 - window), 0.0f);
}

void pl_fast_s8_quick_of(int32_t mult, int32_t left, int32_t right, int32_t least_right,
                         float *scale, float *limit)
{
    *scale = (float)ldexp((double)mult, -(31 + right));
    *limit = left != 0 || right < least_right ? -1.0f : pl_fast_quick_limit(right, 0.0);
}

float pl_fast_s8_tilt_of(int32_t mult, int32_t left, int32_t right)
{
    return mult == 0 ? 0.0f : left == 0 && right >= 1 ? ldexpf(1.0f, -(right + 1)) : -1.0f;
}

bool pl_fast_s8_stage_init(const pl_s8_requant *q, const int8_t *w, int32_t n, int32_t k,
                           const int32_t *bias, int32_t *arrays, int32_t lanes,
                           pl_s8_stage *st)
{
    int32_t *addend = arrays, *mult = arrays + lanes, *left = mult + lanes,
            *right = left + lanes;
    float *scale = (float *)(right + lanes), *limit = scale + lanes, *tilt = limit + lanes;
    memset(arrays, 0, sizeof(int32_t) * PL_S8_STAGE_ARRAYS * (size_t)lanes);
    for (int32_t c = n; c < lanes; c++)
        limit[c] = 0.5f; /* the lanes past n never go to the exact form */
    for (int32_t c = 0; c < n; c++) {
        int64_t sum = 0;
        for (int32_t i = 0; i < k; i++)
            sum += w[(size_t)c * (size_t)k + (size_t)i];
        uint32_t fold = (uint32_t)(int64_t)((q->input_offset - 128) * sum);
        addend[c] = (int32_t)((bias != NULL ? (uint32_t)bias[c] : 0u) + fold);
        int32_t shift = q->shift[c];
        mult[c] = q->multiplier[c];
        left[c] = shift > 0 ? shift : 0;
        right[c] = shift > 0 ? 0 : shift < -31 ? 31 : -shift;
        if (mult[c] == INT32_MIN)
            return false;
        pl_fast_s8_quick_of(mult[c], left[c], right[c], 0, &scale[c], &limit[c]);
        tilt[c] = pl_fast_s8_tilt_of(mult[c], left[c], right[c]);
    }
    *st = (pl_s8_stage){addend, mult, left, right, q->output_offset, q->act_min, q->act_max,
                        scale, limit, tilt};
    return true;
}
