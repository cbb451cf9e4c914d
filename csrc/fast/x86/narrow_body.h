/* narrow_body.h - conv_narrow.h's row kernel for the wide x86 sets, written once (f32_body.h's
** pattern): a block of U vectors of consecutive points against all n channels, n x U sums,
** each summing its taps in the portable kernel's order (fy, fx, c) with a separate multiply
** and add, or with VFMADD for a target whose firmware fuses them. The includer is built with
** -ffp-contract=off and defines W (points per vector) as an enum, vf and PS(op) (its
** _mm*_<op>_ps intrinsic) before it, and store_points(dst, v, n, count) after it: the first
** count points of n channel vectors to dst, each point's n channels side by side (through
** memory with points_through_memory, or in registers where the set can). */
#include <string.h>

#include "fast/conv_narrow.h"
#include "fast/inline.h"

typedef pl_narrow_row narrow_row_t;

PL_FAST_INLINE vf madd(vf acc, vf x, vf w, bool fused)
{
    return fused ? PS(fmadd)(x, w, acc) : PS(add)(acc, PS(mul)(x, w));
}

/* store_points through memory, any n: the vectors stored, then each point's channels. */
PL_FAST_INLINE void points_through_memory(float *dst, const vf *v, int32_t n, int32_t count)
{
    float lanes[8][W];
    for (int32_t o = 0; o < n; o++)
        PS(storeu)(lanes[o], v[o]);
    for (int32_t x = 0; x < count; x++)
        for (int32_t o = 0; o < n; o++)
            dst[(size_t)x * (size_t)n + (size_t)o] = lanes[o][x];
}

static inline void store_points(float *dst, const vf *v, int32_t n, int32_t count);

/* Points [x0, x0 + U W) of rows [j0, j0 + R) (points past ow computed and dropped), N
** channels: N U R sums. */
PL_FAST_INLINE void block(const pl_narrow_row *r, int32_t N, int32_t U, int32_t R, int32_t j0,
                          int32_t x0, bool fused)
{
    vf acc[8 * 4 * 4];
    const int32_t k = r->fh * r->fw * r->c;
    PL_FAST_UNROLL
    for (int32_t i = 0; i < N * U * R; i++)
        acc[i] = PS(setzero)();
    const size_t row_step = (size_t)r->sh * (size_t)r->wp;
    const float *w = r->w;
    for (int32_t fy = 0; fy < r->fh; fy++) {
        const float *top = r->planes + (size_t)(r->y0 + j0 * r->sh + fy * r->dh) * (size_t)r->wp +
                           (size_t)x0;
        for (int32_t fx = 0; fx < r->fw; fx++, w += r->c) {
            const float *src = top + (size_t)(fx * r->dw);
            for (int32_t c = 0; c < r->c; c++, src += r->plane_size) {
                vf x[4 * 4];
                PL_FAST_UNROLL
                for (int32_t j = 0; j < R; j++)
                    PL_FAST_UNROLL
                    for (int32_t u = 0; u < U; u++)
                        x[j * U + u] = PS(loadu)(src + (size_t)j * row_step + (size_t)(u * W));
                PL_FAST_UNROLL
                for (int32_t o = 0; o < N; o++) {
                    const vf wv = PS(set1)(w[(size_t)o * (size_t)k + (size_t)c]);
                    PL_FAST_UNROLL
                    for (int32_t i = 0; i < U * R; i++)
                        acc[o * U * R + i] = madd(acc[o * U * R + i], x[i], wv, fused);
                }
            }
        }
    }
    /* + bias, then the clamp: MAXPS/MINPS give their second operand when one is NaN, so NaN
    ** passes the clamp as in the reference */
    const int32_t count = r->ow - x0 < U * W ? r->ow - x0 : U * W;
    PL_FAST_UNROLL
    for (int32_t j = 0; j < R; j++) {
        float *out = r->out + ((size_t)(j0 + j) * (size_t)r->ow + (size_t)x0) * (size_t)N;
        PL_FAST_UNROLL
        for (int32_t u = 0; u < U; u++) {
            if (count <= u * W) /* a block past the row's end */
                continue;
            vf v[8];
            PL_FAST_UNROLL
            for (int32_t o = 0; o < N; o++) {
                v[o] = PS(add)(acc[o * U * R + j * U + u], PS(set1)(r->bias != NULL ? r->bias[o]
                                                                                    : 0.0f));
                v[o] = PS(min)(PS(set1)(r->hi), PS(max)(PS(set1)(r->lo), v[o]));
            }
            /* the points' channels side by side, as the output stores them */
            store_points(out + (size_t)(u * W) * (size_t)N, v, N,
                         count - u * W < W ? count - u * W : W);
        }
    }
}

#include "fast/x86/narrow_tasks.h"

static void rows(const pl_narrow_row *r, bool fused)
{
    if (fused)
        task_any(r, true);
    else
        task_any(r, false);
}
