/* gemm.h - the matrix products the fast paths share, one table per instruction set.
**
** int8: out[m][n] = stage(sum_k a[m][k] * w[n][k]) where a holds the input plus 128 as
** unsigned bytes (the zero point folded into a per-channel addend: integer sums are exact,
** so this gives the reference's bits) and rows of kp bytes (k rounded up to 4, w zero past k).
** float32: out[m][n] = clamp(sum_k a[m][k] * w[n][k] + bias[n]), each lane summing k in
** order with a multiply and an add (run) or, for a target whose firmware fuses them
** (ctx->fused_madd), a fused multiply-add (run_fused): the portable kernel's arithmetic. */
#ifndef PL_FAST_GEMM_H
#define PL_FAST_GEMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fast/inline.h"
#include "kernels/conv/fully_connected_fast.h"
#include "picolite/pl_fast.h"

/* Channel arrays are padded to this many entries (the widest vector). */
#define PL_FAST_LANES 16

static inline int32_t pl_fast_round_up(int32_t x, int32_t to)
{
    return (x + to - 1) / to * to;
}

/* TFLite's MultiplyByQuantizedMultiplier per channel, split for vectors: acc + addend,
** shifted left by left, doubled high multiply by mult, rounding right shift by right; then
** + out_offset and the clamp. Arrays padded to PL_FAST_LANES.
**
** The quick form a vector set may take first: y = (acc + addend) * scale + out_offset in
** float, rounded to nearest, is that result wherever |y - round(y)| <= limit. The exact
** result rounds twice: to an integer after the high multiply, then after the shift, which
** moves the value at most 2^-(right+1) from x * mult / 2^(31+right); the float y lies within
** 2^-13 of it while |y| < 512 (and past 512 both clamp). So a value farther than
** 2^-(right+1) + 2^-11 from a rounding tie rounds alike both ways; limit is 0.5 minus that.
** A channel with a left shift (x * 2^left wraps in int32) or a window above
** PL_QUICK_WINDOW_MAX (right < 6: too near a tie too often) has limit -1: its panel takes
** the exact form. The AVX-512 products take a tilted quick form instead
** (rescale_avx512.h), by tilt (pl_fast_s8_tilt_of). */
typedef struct pl_s8_stage {
    const int32_t *addend, *mult, *left, *right;
    int32_t out_offset, act_min, act_max;
    const float *scale, *limit, *tilt; /* NULL: no quick form (a stage made by hand) */
} pl_s8_stage;

/* The widest tie window the quick form takes: 2^-6 (each side) sends about 3% of a lane's
** values to the exact form. */
#define PL_QUICK_WINDOW_MAX 0x1p-6

/* The limit of a quick form whose exact result rounds twice, the second time after a right
** shift: 0.5 less the window 2^-(right+1) + 2^-11 + extra (extra: what else the float may be
** off), rounded toward 0 in float; -1 for a window above PL_QUICK_WINDOW_MAX. */
float pl_fast_quick_limit(int32_t right, double extra);

/* A channel's quick-form operands (scale and limit, as above) from its split rescale; limit
** -1 with a left shift or below a right shift of least_right. */
void pl_fast_s8_quick_of(int32_t mult, int32_t left, int32_t right, int32_t least_right,
                         float *scale, float *limit);

/* A channel's tilt for the tilted quick form (rescale_avx512.h): 2^-(right+1) with a right
** shift of 1 or more and no left shift, 0 for a multiplier of 0 (x * 0 rounds to 0 exactly;
** the padding lanes past the last channel), else -1 (no tilted form). */
float pl_fast_s8_tilt_of(int32_t mult, int32_t left, int32_t right);

/* The int32 arrays pl_fast_s8_stage_init fills, each of `lanes` entries. */
#define PL_S8_STAGE_ARRAYS 7

/* The stage of channels n0.. (the arrays offset). */
static inline pl_s8_stage pl_s8_stage_from(const pl_s8_stage *st, int32_t n0)
{
    pl_s8_stage s = *st;
    s.addend += n0, s.mult += n0, s.left += n0, s.right += n0;
    if (s.scale != NULL)
        s.scale += n0, s.limit += n0, s.tilt += n0;
    return s;
}

/* What a quantized convolution's output stage needs, from the portable op data. */
typedef struct pl_s8_requant {
    int32_t input_offset;
    const int32_t *multiplier, *shift; /* per output channel */
    int32_t output_offset, act_min, act_max;
} pl_s8_requant;

/* The stage of n channels over weights w (n rows of k): the input zero point folded into the
** bias (bias may be NULL), the rescale split into vector operands in arrays
** (PL_S8_STAGE_ARRAYS * lanes int32, lanes >= n a PL_FAST_LANES multiple). False when a
** multiplier could saturate (never from TFLite's rounding): the portable kernel runs the
** node. */
bool pl_fast_s8_stage_init(const pl_s8_requant *q, const int8_t *w, int32_t n, int32_t k,
                           const int32_t *bias, int32_t *arrays, int32_t lanes,
                           pl_s8_stage *st);

/* FULLY_CONNECTED's int8 output, rounded in double as LiteRT's reference does (the vector
** versions of pl_fully_connected_s8_output, which their last few units call): out[u] =
** clamp(offset + round_half_away((double)(sums[u] + fold[u] + bias[u]) * scale[u])) for
** u < n, the int32 additions wrapping (bias may be NULL); scale holds p's scale for every
** unit, per-tensor or not. Saturating the rounded value to int32 before the offset, as the
** reference does, changes nothing once it is clamped to an 8-bit range. */
typedef struct pl_fc_output {
    const pl_fully_connected_params *p;
    const int32_t *fold, *bias;
    const double *scale;
} pl_fc_output;

static inline int8_t pl_fc_output_one(const pl_fc_output *o, int32_t sum, int32_t u)
{
    return pl_fully_connected_s8_output(o->p, (int32_t)((uint32_t)sum + (uint32_t)o->fold[u]),
                                        o->bias, u);
}

/* A convolution's windows where they lie, for run_taps: row r's k-th byte is
** origin[r][tap[k]]. */
typedef struct pl_s8_windows {
    const uint8_t *const *origin;
    const int32_t *tap;
} pl_s8_windows;

typedef struct pl_gemm_s8 {
    size_t (*packed_bytes)(int32_t n, int32_t kp);
    void (*pack)(const int8_t *w, int32_t n, int32_t k, int32_t kp, void *packed);
    /* st NULL: raw int32 sums into raw (row stride ldo) instead of int8 into out. */
    void (*run)(int32_t m, int32_t n, int32_t kp, const uint8_t *a, size_t lda,
                const void *packed, const pl_s8_stage *st, int8_t *out, int32_t *raw,
                size_t ldo);
    /* pl_fc_output over one row of n sums */
    void (*fc_output)(const pl_fc_output *o, const int32_t *sums, int32_t n, int8_t *out);
    /* run with row r's k-th byte at win->origin[r][win->tap[k]] (k a multiple of 4: each
    ** group of 4 bytes lies together), into out (st NULL: raw sums into raw); NULL: gather
    ** the windows, then run */
    void (*run_taps)(int32_t m, int32_t n, int32_t kp, const pl_s8_windows *win,
                     const void *packed, const pl_s8_stage *st, int8_t *out, int32_t *raw,
                     size_t ldo);
} pl_gemm_s8;

/* out = clamp(a x packed + bias): bias may be NULL; out rows of stride ldo. */
typedef void pl_gemm_f32_fn(int32_t m, int32_t n, int32_t k, const float *a, size_t lda,
                            const void *packed, const float *bias, float act_min,
                            float act_max, float *out, size_t ldo);

/* The same with row r's i-th value at a[r lda + tap[i]]: a convolution's windows read where
** they lie, lda apart (the points of one output row), tap[i] the offsets of their taps. */
typedef void pl_gemm_f32_taps_fn(int32_t m, int32_t n, int32_t k, const float *a, size_t lda,
                                 const int32_t *tap, const void *packed, const float *bias,
                                 float act_min, float act_max, float *out, size_t ldo);

typedef struct pl_gemm_f32 {
    size_t (*packed_bytes)(int32_t n, int32_t k);
    void (*pack)(const float *w, int32_t n, int32_t k, void *packed);
    /* the same panels from w[i ldw + channel] (stored by depth) */
    void (*pack_by_depth)(const float *w, int32_t n, int32_t k, size_t ldw, void *packed);
    pl_gemm_f32_fn *run;
    pl_gemm_f32_fn *run_fused; /* each product fused into its sum; NULL without FMA */
    pl_gemm_f32_taps_fn *run_taps, *run_taps_fused; /* NULL: gather the windows, then run */
} pl_gemm_f32;

/* gf's product for a node whose target fuses its multiply-adds (ctx->fused_madd) or not;
** NULL (no gf, or no FMA) when the portable kernel must run the node. */
static inline pl_gemm_f32_fn *pl_gemm_f32_run(const pl_gemm_f32 *gf, bool fused)
{
    return gf == NULL ? NULL : fused ? gf->run_fused : gf->run;
}

/* gf's product of windows in place, as pl_gemm_f32_run; NULL: gather them. */
static inline pl_gemm_f32_taps_fn *pl_gemm_f32_run_taps(const pl_gemm_f32 *gf, bool fused)
{
    return gf == NULL ? NULL : fused ? gf->run_taps_fused : gf->run_taps;
}

/* NULL when isa has no such kernels in this build. */
const pl_gemm_s8 *pl_gemm_s8_for(pl_isa isa);
const pl_gemm_f32 *pl_gemm_f32_for(pl_isa isa);

extern const pl_gemm_s8 pl_gemm_s8_avx512;
extern const pl_gemm_s8 pl_gemm_s8_avx2;
extern const pl_gemm_s8 pl_gemm_s8_sse41;
extern const pl_gemm_f32 pl_gemm_f32_avx512;
extern const pl_gemm_f32 pl_gemm_f32_avx2;
extern const pl_gemm_f32 pl_gemm_f32_sse41;
extern const pl_gemm_s8 pl_gemm_s8_neon_dot;
extern const pl_gemm_s8 pl_gemm_s8_neon;
extern const pl_gemm_f32 pl_gemm_f32_neon; /* NEON_DOT's too: SDOT is integer only */
void pl_fc_output_neon(const pl_fc_output *o, const int32_t *sums, int32_t n, int8_t *out);

#endif
