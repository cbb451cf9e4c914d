/* narrow_tasks.h - how conv_narrow.h's rows are blocked, written once for the float
** (narrow_body.h) and int8 (narrow_s8_avx512.c) kernels. The includer defines W (points per
** vector), narrow_row_t (its row struct: rows, ow, n) and block(r, N, U, R, j0, x0, fused):
** points [x0, x0 + U W) of rows [j0, j0 + R) against N channels (fused: the float sums'
** multiply-adds fused; int8 ignores it). */
#include <stdbool.h>
#include <stdint.h>

#include "fast/inline.h"

/* Rows [j0, j1) in blocks of U vectors and R rows. */
PL_FAST_INLINE void rows_by(const narrow_row_t *r, int32_t N, int32_t U, int32_t R,
                            int32_t j0, int32_t j1, bool fused)
{
    for (int32_t j = j0; j < j1; j += R)
        for (int32_t x0 = 0; x0 < r->ow; x0 += U * W)
            block(r, N, U, R, j, x0, fused);
}

/* The task with N channels and about ACC sums a block: U vectors (no more than the row has
** points for: a row of 32 points in blocks of 64 wasted half), then as many rows as fill
** the sums (one row's two vectors waited on their multiply-adds' latency; 16 sums instead of
** 8 made a 1-channel head 11 -> 15 us), the last rows one at a time. */
enum { ACC = 8 };

PL_FAST_INLINE void task_by(const narrow_row_t *r, int32_t N, int32_t U, bool fused)
{
    const int32_t R = ACC / (N * U) >= 4 ? 4 : ACC / (N * U) >= 2 ? 2 : 1;
    const int32_t whole = r->rows / R * R;
    if (R > 1)
        rows_by(r, N, U, R, 0, whole, fused);
    rows_by(r, N, U, 1, R > 1 ? whole : 0, r->rows, fused);
}

PL_FAST_INLINE void task_n(const narrow_row_t *r, int32_t N, bool fused)
{
    const int32_t vectors = (r->ow + W - 1) / W, most = ACC / N;
    if (most >= 4 && vectors >= 4)
        task_by(r, N, 4, fused);
    else if (most >= 2 && vectors >= 2)
        task_by(r, N, 2, fused);
    else
        task_by(r, N, 1, fused);
}

/* The task, its channel count a constant in each case. */
PL_FAST_INLINE void task_any(const narrow_row_t *r, bool fused)
{
    switch (r->n) {
    case 1: task_n(r, 1, fused); break;
    case 2: task_n(r, 2, fused); break;
    case 3: task_n(r, 3, fused); break;
    case 4: task_n(r, 4, fused); break;
    case 5: task_n(r, 5, fused); break;
    case 6: task_n(r, 6, fused); break;
    case 7: task_n(r, 7, fused); break;
    default: task_n(r, 8, fused); break;
    }
}
