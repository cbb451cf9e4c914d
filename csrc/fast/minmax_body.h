/* minmax_body.h - pl_ew's minmax_int, MAXIMUM (max) or MINIMUM of int8 (es 1) or int16
** (es 2) elements as the portable kernel compares them: plain C the compiler vectorizes for
** the set of the file that includes it (x86/ew_sse41.c, x86/ew_avx2.c, arm/ew_neon.c; AVX-512
** writes its own, with masked tails), one loop per type and operation. */
#ifndef PL_FAST_MINMAX_BODY_H
#define PL_FAST_MINMAX_BODY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PL_MINMAX_LOOP(T, OP)                                                              \
    do {                                                                                   \
        const T *x = a, *y = b;                                                            \
        T *o = out;                                                                        \
        for (size_t i = 0; i < n; i++)                                                     \
            o[i] = x[i] OP y[i] ? x[i] : y[i];                                             \
    } while (0)

static void minmax_int(bool max, size_t es, const void *a, const void *b, size_t n, void *out)
{
    if (es == 1 && max)
        PL_MINMAX_LOOP(int8_t, >);
    else if (es == 1)
        PL_MINMAX_LOOP(int8_t, <);
    else if (max)
        PL_MINMAX_LOOP(int16_t, >);
    else
        PL_MINMAX_LOOP(int16_t, <);
}

#undef PL_MINMAX_LOOP

#endif
