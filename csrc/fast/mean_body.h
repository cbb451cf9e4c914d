/* mean_body.h - MEAN's sums and REDUCE_MAX's and REDUCE_MIN's folds of a block of channels,
** written once and built for each set (mean.c plain, x86/mean_sse41.c, x86/mean_avx2.c,
** arm/mean_neon.c: the compiler keeps a full block's sums in vector registers). The sums:
** out[c] is the sum over r of x[r * inner + c], for c < n <= PL_MEAN_LANES, in r order:
** float32 into float (each channel's sum in input order, as the portable kernel's), INT8,
** UINT8 and INT16 into int32 wrapping as the portable kernel's int32 sums. The folds: below.
** Define PL_MEAN_NAME, PL_EXTREME_NAME and PL_MEAN_LANES, then include. */
#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fast/fast.h"

/* A full block (N = PL_MEAN_LANES, constant) or the last one (N = n). */
#define PL_MEAN_SUM(TYPE, ACC, WIDEN, N)                                                   \
    do {                                                                                   \
        ACC acc[PL_MEAN_LANES] = {0};                                                      \
        const TYPE *p = x;                                                                 \
        for (size_t r = 0; r < reduced; r++, p += inner)                                   \
            for (size_t c = 0; c < (N); c++)                                               \
                acc[c] += WIDEN(p[c]);                                                     \
        memcpy(out, acc, (N) * sizeof(ACC));                                               \
    } while (0)

#define PL_MEAN_AS_IS(v) (v)
#define PL_MEAN_AS_U32(v) ((uint32_t)(v))

#define PL_MEAN_BY_WIDTH(TYPE, ACC, WIDEN)                                                 \
    do {                                                                                   \
        if (n == PL_MEAN_LANES)                                                            \
            PL_MEAN_SUM(TYPE, ACC, WIDEN, PL_MEAN_LANES);                                  \
        else                                                                               \
            PL_MEAN_SUM(TYPE, ACC, WIDEN, n);                                              \
    } while (0)

void PL_MEAN_NAME(const void *x, size_t reduced, size_t inner, size_t n, pl_type type,
                  void *out)
{
    switch (type) {
    case PL_FLOAT32: PL_MEAN_BY_WIDTH(float, float, PL_MEAN_AS_IS); break;
    case PL_INT8: PL_MEAN_BY_WIDTH(int8_t, uint32_t, PL_MEAN_AS_U32); break;
    case PL_UINT8: PL_MEAN_BY_WIDTH(uint8_t, uint32_t, PL_MEAN_AS_U32); break;
    default: PL_MEAN_BY_WIDTH(int16_t, uint32_t, PL_MEAN_AS_U32); break;
    }
}

/* REDUCE_MAX's (OP >) and REDUCE_MIN's (OP <) fold: out[c], in the input's type, starts at
** INIT (the type's lowest or highest value) and takes each x[r * inner + c] in r order as the
** portable kernel's `x OP cur ? x : cur`: a NaN never replaces the running value, and of
** equal values (+0 and -0) the first stays (for floats, MAXPS and MINPS exactly). */
#define PL_EXTREME_FOLD(TYPE, OP, INIT, N)                                                 \
    do {                                                                                   \
        TYPE acc[PL_MEAN_LANES];                                                           \
        const TYPE *p = x;                                                                 \
        for (size_t c = 0; c < (N); c++)                                                   \
            acc[c] = (INIT);                                                               \
        for (size_t r = 0; r < reduced; r++, p += inner)                                   \
            for (size_t c = 0; c < (N); c++)                                               \
                acc[c] = p[c] OP acc[c] ? p[c] : acc[c];                                   \
        memcpy(out, acc, (N) * sizeof(TYPE));                                              \
    } while (0)

#define PL_EXTREME_BY_WIDTH(TYPE, OP, INIT)                                                \
    do {                                                                                   \
        if (n == PL_MEAN_LANES)                                                            \
            PL_EXTREME_FOLD(TYPE, OP, INIT, PL_MEAN_LANES);                                \
        else                                                                               \
            PL_EXTREME_FOLD(TYPE, OP, INIT, n);                                            \
    } while (0)

void PL_EXTREME_NAME(const void *x, size_t reduced, size_t inner, size_t n, pl_type type,
                     bool is_max, void *out)
{
    switch (type) {
    case PL_FLOAT32:
        if (is_max)
            PL_EXTREME_BY_WIDTH(float, >, -FLT_MAX);
        else
            PL_EXTREME_BY_WIDTH(float, <, FLT_MAX);
        break;
    case PL_INT8:
        if (is_max)
            PL_EXTREME_BY_WIDTH(int8_t, >, INT8_MIN);
        else
            PL_EXTREME_BY_WIDTH(int8_t, <, INT8_MAX);
        break;
    case PL_UINT8:
        if (is_max)
            PL_EXTREME_BY_WIDTH(uint8_t, >, 0);
        else
            PL_EXTREME_BY_WIDTH(uint8_t, <, UINT8_MAX);
        break;
    default:
        if (is_max)
            PL_EXTREME_BY_WIDTH(int16_t, >, INT16_MIN);
        else
            PL_EXTREME_BY_WIDTH(int16_t, <, INT16_MAX);
        break;
    }
}

#undef PL_MEAN_SUM
#undef PL_MEAN_AS_IS
#undef PL_MEAN_AS_U32
#undef PL_MEAN_BY_WIDTH
#undef PL_EXTREME_FOLD
#undef PL_EXTREME_BY_WIDTH
