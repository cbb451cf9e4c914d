/* elementwise.h - the flat elementwise loops the fast ADD, SUB and MUL run (two inputs and
** an output of n elements each; elementwise.c repeats a broadcast input into a buffer), one
** table per instruction set.
**
** int8 and int16 ADD/SUB are TFLite's AddElementwise on every lane: (x + offset) <<
** left_shift (20 for int8, 15 for int16), each input rescaled, summed, rescaled to the
** output, + its offset, clamped; SUB is ADD with input 2's multiplier negated, as the
** portable kernel does. MUL rescales (x + off1) * (y + off2). Every rescale is TFLite's
** MultiplyByQuantizedMultiplier, bit for bit. float32 is one IEEE operation per element,
** then the clamp, as the reference; float HARD_SWISH (lut8.c's float case) the portable
** kernel's operations in its order. */
#ifndef PL_FAST_ELEMENTWISE_H
#define PL_FAST_ELEMENTWISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fast/isa_pick.h"
#include "picolite/pl_fast.h"

/* A rescale split for vectors: multiplier, left shift, rounding right shift. */
typedef struct pl_ew_scale {
    int32_t mult, left, right;
} pl_ew_scale;

/* The int8 quick form (gemm.h's pl_s8_stage, for two inputs): y = a qa + b qb + qc (ADD,
** SUB) or y = (a + off1)(b + off2) qa + qc (MUL) in float, its rounding kept where y lies
** farther than 0.5 - limit from a tie (elementwise.c bounds the error); limit < 0: none. */
typedef struct pl_ew_quick {
    float qa, qb, qc, limit;
    float tilt; /* MUL: its rescale's tilt (gemm.h's pl_fast_s8_tilt_of), made at prepare */
} pl_ew_quick;

typedef struct pl_ew_q {
    int32_t off1, off2, left_shift; /* ADD: left_shift; MUL: 0 */
    pl_ew_scale in1, in2, out;      /* MUL: out only */
    int32_t out_offset, act_min, act_max;
    pl_ew_quick quick;              /* int8 only */
} pl_ew_q;

/* Whether an int8 MUL can take the tilted quick form (rescale_avx512.h; AVX-512's
** mul_s8): its one rescale (out) has a tilt above 0. */
static inline bool pl_ew_mul_tilted(const pl_ew_q *q)
{
    return q->quick.tilt > 0.0f;
}

/* Float ADD, SUB, MUL, DIV (a / b), SQUARED_DIFFERENCE ((a - b) (a - b)), MAXIMUM (a > b ?
** a : b) and MINIMUM (a < b ? a : b), as the portable kernels write them. Of two NaN
** operands x86 and Arm return the first one's, and a compiler may swap a commutative add's
** or multiply's operands: the kernels give a NaN a its place back (a + a: a, quieted).
** MAXPS/MINPS select as the comparisons do (the second operand on NaN or equal values). */
typedef enum pl_ew_f32_op {
    PL_EW_ADD, PL_EW_SUB, PL_EW_MUL, PL_EW_DIV, PL_EW_SQDIFF, PL_EW_MAX, PL_EW_MIN
} pl_ew_f32_op;

/* Float FLOOR, CEIL, NEG, SQRT, RSQRT, SQUARE (math.c) and LEAKY_RELU (pl_leaky_relu_f32). */
typedef enum pl_ew_unary {
    PL_EW_FLOOR, PL_EW_CEIL, PL_EW_NEG, PL_EW_SQRT, PL_EW_RSQRT, PL_EW_SQUARE, PL_EW_LEAKY
} pl_ew_unary;

typedef struct pl_ew {
    void (*add_s8)(const pl_ew_q *q, const int8_t *a, const int8_t *b, size_t n, int8_t *out);
    void (*mul_s8)(const pl_ew_q *q, const int8_t *a, const int8_t *b, size_t n, int8_t *out);
    void (*add_s16)(const pl_ew_q *q, const int16_t *a, const int16_t *b, size_t n,
                    int16_t *out);
    void (*mul_s16)(const pl_ew_q *q, const int16_t *a, const int16_t *b, size_t n,
                    int16_t *out);
    void (*f32)(pl_ew_f32_op op, const float *a, const float *b, size_t n, float lo, float hi,
                float *out);
    /* pl_hard_swish_f32: r = x + 3, r = 0 < r ? r : 0, r = r < 6 ? r : 6, x * r / 6 */
    void (*hard_swish_f32)(const float *in, float *out, size_t n);
    /* out[i] = pairs[(uint8_t)a[i] * 256 + (uint8_t)b[i]] (pairs holds 3 bytes past its
    ** 65536 for 4-byte gathers); NULL: elementwise.c's scalar loop */
    void (*pairs_s8)(const int8_t *pairs, const int8_t *a, const int8_t *b, size_t n,
                     int8_t *out);
    /* the portable kernels' float unary steps, each one IEEE operation a lane: floorf,
    ** ceilf, -x, sqrtf(x), 1.0f / sqrtf(x), x * x, x > 0 ? x : x * alpha (the same bits,
    ** NaN payloads included) */
    void (*unary_f32)(pl_ew_unary op, float alpha, const float *in, float *out, size_t n);
    /* int8 (es 1) or int16 (es 2) MAXIMUM (max) or MINIMUM of the stored integers */
    void (*minmax_int)(bool max, size_t es, const void *a, const void *b, size_t n, void *out);
    /* add_s8 and mul_s8 take pl_ew_quick's float form where its limit allows; tilted_mul_s8:
    ** mul_s8 takes the tilted one wherever pl_ew_mul_tilted */
    bool quick_s8, tilted_mul_s8;
} pl_ew;

/* NULL when isa has no such kernels in this build. */
const pl_ew *pl_ew_for(pl_isa isa);

/* FLOOR and CEIL again on in[0..n)'s NaNs, by the portable kernel's own libm call: the vector
** rounding quiets a signaling NaN, glibc's floorf returns it as it is (other C libraries may
** not). unary_f32 calls it for a vector with a NaN lane. */
void pl_ew_unary_nans(pl_ew_unary op, const float *in, float *out, size_t n);

PL_FAST_TABLES(pl_ew, pl_ew);

#endif
