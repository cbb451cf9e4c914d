/* pool.h - the pooling windows the fast AVERAGE_POOL_2D and MAX_POOL_2D run, one table per
** instruction set. A call computes one output point, every channel, from its window clipped
** to the image: rows x cols pixels from x on (pixels depth apart, rows row_stride apart),
** visited row by row as the reference does.
**   max: int8, int16 and float32 maxima (float: m < x ? x : m from -FLT_MAX, NaN never
**        taken).
**   average: int8 and int16 sums exact in int32, then TFLite's division rounded half away
**            from zero (int8 in float, int16 in double: exact while rows * cols <=
**            PL_POOL_MAX_COUNT, see pool.c); float32 sums in the reference's order from
**            +0, then one IEEE division.
** Both clamp to the activation range as the reference does. */
#ifndef PL_FAST_POOL_H
#define PL_FAST_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "fast/isa_pick.h"
#include "picolite/pl_fast.h"

/* The largest window the fast average takes: int16 sums, count / 2 added, stay in int32. */
#define PL_POOL_MAX_COUNT 32768

typedef struct pl_pool_window {
    int32_t rows, cols, depth;
    size_t row_stride;
} pl_pool_window;

typedef struct pl_pool {
    void (*max_s8)(const pl_pool_window *w, const int8_t *x, int32_t lo, int32_t hi,
                   int8_t *out);
    void (*avg_s8)(const pl_pool_window *w, const int8_t *x, int32_t lo, int32_t hi,
                   int8_t *out);
    void (*max_s16)(const pl_pool_window *w, const int16_t *x, int32_t lo, int32_t hi,
                    int16_t *out);
    void (*avg_s16)(const pl_pool_window *w, const int16_t *x, int32_t lo, int32_t hi,
                    int16_t *out);
    void (*max_f32)(const pl_pool_window *w, const float *x, float lo, float hi, float *out);
    void (*avg_f32)(const pl_pool_window *w, const float *x, float lo, float hi, float *out);
} pl_pool;

/* NULL when isa has no such kernels in this build. */
const pl_pool *pl_pool_for(pl_isa isa);

PL_FAST_TABLES(pl_pool, pl_pool);

#endif
