/* transpose.c - TRANSPOSE's fast path, any element type. The portable kernel walks the output
** element by element (a memcpy and an odometer step each); here the walk is reduced at
** prepare (runs.h: axes of one index dropped, axes adjacent in the input too merged). When
** the innermost output axis reads consecutive input elements, rows are copied whole;
** otherwise the output axis that does (the input's innermost) and the output's innermost
** form a 2-D transpose done in 16 x 16 tiles (NHWC -> NCHW is one such transpose per batch),
** a whole tile of 1- or 4-byte elements by SSE2's unpacks and shuffles on x86 (bits moved as
** they are), the others element by element.
** Every output element is the input element the portable walk copies there (the walk is the
** op data's: CMSIS-NN's int8 permutation included): the portable kernel's bytes. */
#include <string.h>

#include "fast/fast.h"
#include "fast/runs.h"
#include "kernels/shape/transpose_fast.h"

#if defined(PL_FAST_X86)
#include <emmintrin.h>
#endif

typedef struct transpose_plan {
    pl_fast_runs runs;
    int32_t tile_axis; /* -1: runs; else the loop reading consecutive elements */
} transpose_plan;

static bool plan(pl_context *ctx, const pl_node *node)
{
    const pl_transpose_op *d = node->user_data;
    pl_tensor in;
    if (d->ndims < 1 || ctx->get_eval(ctx, pl_node_input(node, 0), &in) != PL_OK ||
        pl_type_size(in.type) == 0)
        return false;
    int32_t zero[PL_TRANSPOSE_MAX_DIMS] = {0}, one[PL_TRANSPOSE_MAX_DIMS];
    int64_t step[PL_TRANSPOSE_MAX_DIMS];
    for (int32_t a = 0; a < d->ndims; a++)
        one[a] = 1, step[a] = (int64_t)d->in_step[a];
    transpose_plan tp = {.tile_axis = -1};
    size_t esize = pl_type_size(in.type);
    if (!pl_fast_runs_plan(d->ndims, zero, one, d->out_dims, step, esize, &tp.runs))
        return false;
    const pl_fast_runs *r = &tp.runs;
    for (int32_t a = 0; r->run == esize && a + 1 < r->axes; a++)
        if (r->step[a] == (int64_t)esize)
            tp.tile_axis = a;
    return pl_fast_block_put(node, &tp, sizeof tp);
}

pl_status pl_fast_transpose_prepare(pl_context *ctx, pl_node *node)
{
    return pl_fast_prepare(ctx, node, plan);
}

enum { TILE = 16 };

/* A whole tile: dst[p * dst_row + q] = src[p + q * src_col] for p, q < TILE (in elements);
** NULL where no set has one. */
typedef void tile_fn(uint8_t *dst, const uint8_t *src, size_t dst_row, size_t src_col);

#if defined(PL_FAST_X86)
/* 16 x 16 bytes: four rounds of unpacks, each interleaving rows twice as far apart, leave
** column p in register bitrev(p). */
static void whole_tile_1(uint8_t *dst, const uint8_t *src, size_t dst_row, size_t src_col)
{
    static const uint8_t rev[TILE] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
    __m128i a[TILE], b[TILE];
    for (int k = 0; k < TILE; k++)
        a[k] = _mm_loadu_si128((const __m128i *)(const void *)(src + (size_t)k * src_col));
    for (int k = 0; k < TILE / 2; k++) {
        b[k] = _mm_unpacklo_epi8(a[2 * k], a[2 * k + 1]);
        b[k + 8] = _mm_unpackhi_epi8(a[2 * k], a[2 * k + 1]);
    }
    for (int k = 0; k < TILE / 2; k++) {
        a[k] = _mm_unpacklo_epi16(b[2 * k], b[2 * k + 1]);
        a[k + 8] = _mm_unpackhi_epi16(b[2 * k], b[2 * k + 1]);
    }
    for (int k = 0; k < TILE / 2; k++) {
        b[k] = _mm_unpacklo_epi32(a[2 * k], a[2 * k + 1]);
        b[k + 8] = _mm_unpackhi_epi32(a[2 * k], a[2 * k + 1]);
    }
    for (int k = 0; k < TILE / 2; k++) {
        a[k] = _mm_unpacklo_epi64(b[2 * k], b[2 * k + 1]);
        a[k + 8] = _mm_unpackhi_epi64(b[2 * k], b[2 * k + 1]);
    }
    for (int k = 0; k < TILE; k++)
        _mm_storeu_si128((__m128i *)(void *)(dst + (size_t)rev[k] * dst_row), a[k]);
}

/* 16 x 16 of 4 bytes: 4 x 4 blocks, each by _MM_TRANSPOSE4_PS (shuffles: any bits). */
static void whole_tile_4(uint8_t *dst, const uint8_t *src, size_t dst_row, size_t src_col)
{
    for (size_t p = 0; p < TILE; p += 4)
        for (size_t q = 0; q < TILE; q += 4) {
            const float *s = (const float *)(const void *)src + p + q * src_col;
            float *d = (float *)(void *)dst + p * dst_row + q;
            __m128 r0 = _mm_loadu_ps(s), r1 = _mm_loadu_ps(s + src_col);
            __m128 r2 = _mm_loadu_ps(s + 2 * src_col), r3 = _mm_loadu_ps(s + 3 * src_col);
            _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
            _mm_storeu_ps(d, r0);
            _mm_storeu_ps(d + dst_row, r1);
            _mm_storeu_ps(d + 2 * dst_row, r2);
            _mm_storeu_ps(d + 3 * dst_row, r3);
        }
}
#else
#define whole_tile_1 NULL
#define whole_tile_4 NULL
#endif

/* dst[p * dst_row + q] = src[p + q * src_col] for p < rows, q < cols, in tiles; elements of
** ES bytes, each one memcpy (a load and a store: any alignment, any type), a whole tile by
** WHOLE where there is one. */
#define TILED(NAME, ES, WHOLE)                                                             \
    static void NAME(uint8_t *dst, const uint8_t *src, size_t rows, size_t cols,           \
                     size_t dst_row, size_t src_col)                                       \
    {                                                                                      \
        tile_fn *whole = WHOLE;                                                            \
        for (size_t p0 = 0; p0 < rows; p0 += TILE) {                                       \
            size_t p1 = p0 + TILE < rows ? p0 + TILE : rows;                               \
            for (size_t q0 = 0; q0 < cols; q0 += TILE) {                                   \
                size_t q1 = q0 + TILE < cols ? q0 + TILE : cols;                           \
                if (whole != NULL && p1 - p0 == TILE && q1 - q0 == TILE) {                 \
                    whole(dst + (p0 * dst_row + q0) * ES, src + (p0 + q0 * src_col) * ES,  \
                          dst_row, src_col);                                               \
                    continue;                                                              \
                }                                                                          \
                for (size_t p = p0; p < p1; p++)                                           \
                    for (size_t q = q0; q < q1; q++)                                       \
                        memcpy(dst + (p * dst_row + q) * ES, src + (p + q * src_col) * ES, \
                               ES);                                                        \
            }                                                                              \
        }                                                                                  \
    }

TILED(tile_1, 1, whole_tile_1)
TILED(tile_2, 2, NULL)
TILED(tile_4, 4, whole_tile_4)
TILED(tile_8, 8, NULL)
TILED(tile_16, 16, NULL)

/* One 2-D transpose of plane t at byte offsets src and dst. */
static void tile_plane(const pl_fast_runs *r, int32_t t, uint8_t *dst, const uint8_t *src,
                       size_t dst_row)
{
    size_t rows = (size_t)r->count[t], cols = (size_t)r->count[r->axes - 1];
    size_t src_col = (size_t)r->step[r->axes - 1] / r->run;
    switch (r->run) {
    case 1: tile_1(dst, src, rows, cols, dst_row, src_col); break;
    case 2: tile_2(dst, src, rows, cols, dst_row, src_col); break;
    case 4: tile_4(dst, src, rows, cols, dst_row, src_col); break;
    case 8: tile_8(dst, src, rows, cols, dst_row, src_col); break;
    default: tile_16(dst, src, rows, cols, dst_row, src_col); break;
    }
}

/* The tiled walk: every index of the loops other than the plane's two, as an odometer. */
static void tiled(const transpose_plan *tp, const uint8_t *in, uint8_t *out)
{
    const pl_fast_runs *r = &tp->runs;
    int64_t out_step[PL_MAX_DIMS], s = (int64_t)r->run; /* output bytes per index */
    for (int32_t a = r->axes - 1; a >= 0; a--) {
        out_step[a] = s;
        s *= r->count[a];
    }
    const int32_t t = tp->tile_axis, last = r->axes - 1;
    const size_t dst_row = (size_t)(out_step[t] / (int64_t)r->run);
    int32_t at[PL_MAX_DIMS] = {0};
    int64_t src = r->first, dst = 0;
    for (;;) {
        tile_plane(r, t, out + dst, in + src, dst_row);
        int32_t a = last - 1;
        for (; a >= 0; a--) {
            if (a == t)
                continue;
            src += r->step[a], dst += out_step[a];
            if (++at[a] < r->count[a])
                break;
            src -= r->step[a] * r->count[a], dst -= out_step[a] * r->count[a];
            at[a] = 0;
        }
        if (a < 0)
            return;
    }
}

pl_status pl_fast_transpose_invoke(pl_context *ctx, pl_node *node)
{
    const transpose_plan *tp = pl_fast_block(node);
    if (tp == NULL)
        return pl_fast_reg_of(node)->base->invoke(ctx, node);
    pl_tensor in, out;
    PL_TRY(ctx->get_eval(ctx, pl_node_input(node, 0), &in));
    PL_TRY(ctx->get_eval(ctx, pl_node_output(node, 0), &out));
    if (tp->tile_axis < 0)
        pl_fast_runs_copy(&tp->runs, in.data, out.data);
    else
        tiled(tp, in.data, out.data);
    return PL_OK;
}
