/* exp_body.h - the kernels of exp.h written once over lane primitives, so every instruction
** set does the same operations in the same order. A file built for one instruction set
** defines, then includes this (and names its table from the statics here):
**   vf, fmask: W floats and a mask of them; vd, dmask: W/2 doubles and a mask of them
**   f_load f_store f_set f_add f_sub f_mul f_div f_neg (sign flip) f_abs
**   f_gt f_lt (ordered: false on NaN) f_nan f_select(m, a, b) = m ? a : b
**   d_lo d_hi (the low/high half of a vf widened) f_of(lo, hi) (narrowed, rounded to nearest)
**   d_set d_add d_sub d_mul d_div d_abs d_floor d_eq d_select
**   d_pow2(k): 2^k for integral k in [-1022, 1023], any bits otherwise (never trapping)
**   d_fma(a, b, c) = a b + c (fused where the set has it; the quick paths below only need
**   its accuracy, not its bits), d_recip(d): 1/d within 2^-52 for normal d,
**   d_scale16(t, k): the double whose bits are t[b mod 16] + b 2^48 (mod 2^64), b being k's
**   bit pattern, d_bits_zero(y, sub, mask): lanes whose bits minus sub have no bit of mask
**   set, f_not_within(x, lo, hi): lanes outside [lo, hi] or NaN, f_or, f_and, d_or, f_any
**   and d_any (some lane of the mask set)
** Lanes whose input the scalar code treats apart (NaN, out of range) are computed with the
** others, their results then replaced: the arithmetic on them never traps (IEEE masked). */
#ifndef PL_FAST_EXP_BODY_H
#define PL_FAST_EXP_BODY_H

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fast/exp.h"
#include "fast/fast.h"
#include "fast/inline.h"
#include "kernels/activation/logistic_tanh_fast.h"
#include "kernels/common/arith_fast.h"

/* Where the quick exp and tanh below cannot round otherwise than the scalar code's double:
** their margin to a rounding tie, in double ulps below a float's. The quick exp lies within
** 2^-42.4 of e^x and the scalar one within 2^-50: 2^12 ulps (2^-41 of the value) hold both.
** The quick tanh's expm1 loses up to 2^5.6 more near tanh's small arguments: 2^18 ulps. */
enum { EXP_TIE_ULPS = 1 << 12, TANH_TIE_ULPS = 1 << 18 };

/* fmath.c's reduce on each lane: e^y = 2^k (1 + return value) with k integral. */
PL_FAST_INLINE vd expm1_parts(vd y, vd *k_out)
{
    vd k = d_floor(d_add(d_mul(y, d_set(PL_FMATH_INV_LN2)), d_set(0.5)));
    vd r = d_sub(d_sub(y, d_mul(k, d_set(PL_FMATH_LN2_HI))), d_mul(k, d_set(PL_FMATH_LN2_LO)));
    vd p = d_set(pl_fmath_inverse_factorial[PL_FMATH_TERMS - 1]);
    PL_FAST_UNROLL
    for (int n = PL_FMATH_TERMS - 2; n >= 0; n--)
        p = d_add(d_mul(p, r), d_set(pl_fmath_inverse_factorial[n]));
    *k_out = k;
    return d_mul(p, r);
}

PL_FAST_INLINE vd exp_half(vd y)
{
    vd k, m = expm1_parts(y, &k);
    return d_mul(d_add(d_set(1.0), m), d_pow2(k));
}

/* 2^(j/16), j = 0..15, as bit patterns less j 2^48 (glibc's exp2 table, checked against
** 2^(j/16) to 60 digits): adding k's pattern shifted left by 48 to entry k mod 16 puts
** floor(k/16) into the exponent field and cancels the j. */
#define SIXTEENTH(j, bits) ((int64_t)(bits) - ((int64_t)(j) << 48))
static const int64_t exp2_sixteenths[16] = {
    SIXTEENTH(0, 0x3ff0000000000000), SIXTEENTH(1, 0x3ff0b5586cf9890f),
    SIXTEENTH(2, 0x3ff172b83c7d517b), SIXTEENTH(3, 0x3ff2387a6e756238),
    SIXTEENTH(4, 0x3ff306fe0a31b715), SIXTEENTH(5, 0x3ff3dea64c123422),
    SIXTEENTH(6, 0x3ff4bfdad5362a27), SIXTEENTH(7, 0x3ff5ab07dd485429),
    SIXTEENTH(8, 0x3ff6a09e667f3bcd), SIXTEENTH(9, 0x3ff7a11473eb0187),
    SIXTEENTH(10, 0x3ff8ace5422aa0db), SIXTEENTH(11, 0x3ff9c49182a3f090),
    SIXTEENTH(12, 0x3ffae89f995ad3ad), SIXTEENTH(13, 0x3ffc199bdd85529c),
    SIXTEENTH(14, 0x3ffd5818dcfba487), SIXTEENTH(15, 0x3ffea4afa2a490da),
};
#undef SIXTEENTH

/* e^y ~ *scale (1 + return value) for |y| <= 88: y = k ln2/16 + r with k rounded to nearest by
** adding 1.5 2^52 (k lands in the sum's low bits), |r| <= ln2/32; *scale = 2^(k/16) from the
** table; e^r - 1 by Taylor to r^5/5! (remainder below 2^-42.6), fused Horner. The rounding of
** ln2/16 moves r by up to 2^-46.4 (|k| <= 2054), the arithmetic adds a few 2^-53. */
PL_FAST_INLINE vd exp_quick_parts(vd y, vd *scale)
{
    const vd shifter = d_set(0x1.8p52);
    vd k_low = d_fma(y, d_set(0x1.71547652b82fep+4), shifter), k = d_sub(k_low, shifter);
    vd r = d_fma(k, d_set(-0x1.62e42fefa39efp-5), y);
    vd q = d_set(pl_fmath_inverse_factorial[4]);
    PL_FAST_UNROLL
    for (int n = 3; n >= 0; n--)
        q = d_fma(q, r, d_set(pl_fmath_inverse_factorial[n]));
    *scale = d_scale16(exp2_sixteenths, k_low);
    return d_mul(q, r);
}

/* Lanes whose rounding to float may differ between two doubles within `ulps` double ulps of
** each other: the 29 bits below a float's mantissa within `ulps` of the tie (1 followed by 28
** zeros). A normal float result only: the rounding of subnormals falls elsewhere. */
PL_FAST_INLINE dmask near_tie(vd y, int64_t ulps)
{
    const int64_t below = (INT64_C(1) << 29) - 1; /* the bits a float's mantissa drops */
    return d_bits_zero(y, (INT64_C(1) << 28) - ulps, below & ~(2 * ulps - 1));
}

/* The quick exp of every lane, and in *unsure whether some lane may round otherwise than
** exp_half's double: too near a tie (2^13 of the 2^29 patterns below a float's mantissa),
** out of [-87, 88] (its result not a normal float) or NaN. The caller then recomputes the
** vector with exp_lanes; no branch here, so a loop of guesses keeps its vectors in flight. */
PL_FAST_INLINE vf exp_guess(vf x, bool *unsure)
{
    vd s_lo, s_hi, p_lo = exp_quick_parts(d_lo(x), &s_lo), p_hi = exp_quick_parts(d_hi(x), &s_hi);
    vd lo = d_fma(s_lo, p_lo, s_lo), hi = d_fma(s_hi, p_hi, s_hi);
    const bool outside = f_any(f_not_within(x, -87.0f, 88.0f));
    const bool near = d_any(d_or(near_tie(lo, EXP_TIE_ULPS), near_tie(hi, EXP_TIE_ULPS)));
    *unsure = outside | near; /* no branch */
    return f_of(lo, hi);
}

/* pl_fmath_expf on each lane. */
PL_FAST_INLINE vf exp_lanes(vf x)
{
    bool unsure;
    vf e = exp_guess(x, &unsure);
    if (!unsure)
        return e;
    e = f_of(exp_half(d_lo(x)), exp_half(d_hi(x)));
    e = f_select(f_lt(x, f_set(-104.0f)), f_set(0.0f), e);
    e = f_select(f_gt(x, f_set(89.0f)), f_set(INFINITY), e);
    return f_select(f_nan(x), x, e);
}

/* tanh(|x|) in double: expm1(2a) / (expm1(2a) + 2). */
PL_FAST_INLINE vd tanh_half(vd x)
{
    vd k, m = expm1_parts(d_mul(d_set(2.0), d_abs(x)), &k);
    vd scaled = d_sub(d_mul(d_add(d_set(1.0), m), d_pow2(k)), d_set(1.0));
    vd em1 = d_select(d_eq(k, d_set(0.0)), m, scaled);
    return d_div(em1, d_add(em1, d_set(2.0)));
}

/* tanh(a) for a = |x| <= 10 from the quick exp's parts: expm1(2a) = scale p + (scale - 1),
** that difference exact below 2 and p alone (exact scale 1) at k = 0, so the quick exp's
** 2^-42.5 grows by at most e^2a / (e^2a - 1) <= 2^5.6 where k >= 1. The quotient's own
** rounding (d_recip within 2^-52) leaves it within 2^-36.7 of tanh(a). */
PL_FAST_INLINE vd tanh_quick_half(vd a)
{
    vd scale, p = exp_quick_parts(d_add(a, a), &scale);
    vd em1 = d_fma(scale, p, d_sub(scale, d_set(1.0)));
    return d_mul(em1, d_recip(d_add(em1, d_set(2.0))));
}

/* tanh's magnitude on every lane from tanh_quick_half, and in *unsure whether some lane may
** round otherwise than tanh_half: NaN, a tiny nonzero a (2^-60 and below: the result may be
** subnormal) or a lane near a tie. Lanes past 10 are computed at 10 and replaced by the
** caller. */
PL_FAST_INLINE vf tanh_guess(vf x, bool *unsure)
{
    vf a = f_abs(x);
    const bool odd = f_any(f_or(f_nan(a), f_and(f_lt(a, f_set(0x1p-60f)),
                                                 f_gt(a, f_set(0.0f)))));
    a = f_select(f_gt(a, f_set(10.0f)), f_set(10.0f), a);
    vd lo = tanh_quick_half(d_lo(a)), hi = tanh_quick_half(d_hi(a));
    const bool near = d_any(d_or(near_tie(lo, TANH_TIE_ULPS), near_tie(hi, TANH_TIE_ULPS)));
    *unsure = odd | near; /* no branch */
    return f_of(lo, hi);
}

/* pl_fmath_tanhf on each lane, from tanh_guess (guess: then *unsure as it says) or exactly:
** its negation in double then rounding to float gives the bits of rounding then negating
** (round to nearest is symmetric). */
PL_FAST_INLINE vf tanh_of(vf x, bool guess, bool *unsure)
{
    bool u;
    vf t = tanh_guess(x, &u);
    if (guess)
        *unsure = u;
    else if (u)
        t = f_of(tanh_half(d_lo(x)), tanh_half(d_hi(x)));
    t = f_select(f_lt(x, f_set(0.0f)), f_neg(t), t);
    vf one = f_set(1.0f), sat = f_select(f_gt(x, f_set(0.0f)), one, f_neg(one));
    t = f_select(f_gt(f_abs(x), f_set(10.0f)), sat, t);
    return f_select(f_nan(x), x, t);
}

/* pl_logistic_f32's element: e^v below the lower cutoff, 1 above the upper one, else
** 1 / (1 + e^-v) (NaN too): one exp per lane, of v or of -v, by exp (exp_lanes) or by
** exp_guess (then *unsure as it says). */
PL_FAST_INLINE vf logistic_of(vf v, bool guess, bool *unsure)
{
    fmask low = f_lt(v, f_set(PL_LOGISTIC_F32_LOWER));
    vf x = f_select(low, v, f_neg(v));
    vf e = guess ? exp_guess(x, unsure) : exp_lanes(x);
    vf one = f_set(1.0f);
    vf r = f_select(low, e, f_div(one, f_add(one, e)));
    return f_select(f_gt(v, f_set(PL_LOGISTIC_F32_UPPER)), one, r);
}

/* out[i] = f(in[i]), the last few through a zero-padded copy. */
PL_FAST_INLINE void map_lanes(vf (*f)(vf), const float *in, float *out, size_t n)
{
    size_t i = 0;
    for (; n - i >= W; i += W)
        f_store(out + i, f(f_load(in + i)));
    if (i < n) {
        float t[W] = {0};
        memcpy(t, in + i, sizeof(float) * (n - i));
        f_store(t, f(f_load(t)));
        memcpy(out + i, t, sizeof(float) * (n - i));
    }
}

/* The constants of a lanes function map_guessed runs: SiLU's clamp and operand order (exp,
** tanh and logistic read none). */
typedef struct lanes_args {
    vf lo, hi;
    bool x_first, clamp; /* clamp false: lo and hi infinite, a clamp that changes nothing */
} lanes_args;

/* A lanes function for map_guessed: f(x) exactly, or (guess) by exp_guess with *unsure. */
typedef vf lanes_by_fn(vf x, const lanes_args *args, bool guess, bool *unsure);

PL_FAST_INLINE vf tanh_by(vf x, const lanes_args *args, bool guess, bool *unsure)
{
    (void)args;
    return tanh_of(x, guess, unsure);
}

PL_FAST_INLINE vf exp_by(vf x, const lanes_args *args, bool guess, bool *unsure)
{
    (void)args;
    return guess ? exp_guess(x, unsure) : exp_lanes(x);
}

PL_FAST_INLINE vf logistic_by(vf x, const lanes_args *args, bool guess, bool *unsure)
{
    (void)args;
    return logistic_of(x, guess, unsure);
}

/* x * logistic(x) as an elementwise MUL of x and a LOGISTIC of x computes it (f32_one in
** ew_avx2.c, ew_neon.c): the product in the node's operand order with the scalar product's
** NaN (x86: of two NaNs the first operand's, taken apart, since a compiler may swap a
** commutative product's operands; Arm: FMUL's own rule, a signaling NaN first), then the
** clamp (x < lo ? lo : x, then y > hi ? hi : y: NaN passes). A guess has no NaN lane
** (exp_guess is unsure of every vector with one), so neither the order nor a mend. */
PL_FAST_INLINE vf silu_by(vf x, const lanes_args *args, bool guess, bool *unsure)
{
    vf s = logistic_of(x, guess, unsure), r = f_mul(x, s);
    if (!guess) {
        vf a = args->x_first ? x : s, b = args->x_first ? s : x;
#if defined(__aarch64__)
        r = f_mul(a, b);
#else
        r = f_select(f_nan(a), f_add(a, a), f_mul(a, b));
#endif
    }
    if (args->clamp) {
        r = f_select(f_lt(r, args->lo), args->lo, r);
        r = f_select(f_gt(r, args->hi), args->hi, r);
    }
    return r;
}

/* Vectors guessed at a time by map_guessed before the unsure ones are recomputed. */
enum { GUESSED = 16 };

/* out[i] = f(in[i]) by guesses, GUESSED vectors at a time, the unsure ones then exactly
** (from a copy of their inputs: out may be in); the vectors left over exactly, the last few
** elements through a zero-padded copy. */
PL_FAST_INLINE void map_guessed(lanes_by_fn *f, const lanes_args *args, const float *in,
                                float *out, size_t n)
{
    size_t i = 0;
    for (; n - i >= GUESSED * W; i += GUESSED * W) {
        bool unsure[GUESSED], any = false;
        float kept[GUESSED * W];
        for (size_t j = 0; j < GUESSED; j++) {
            vf x = f_load(in + i + j * W);
            f_store(kept + j * W, x);
            f_store(out + i + j * W, f(x, args, true, &unsure[j]));
            any |= unsure[j];
        }
        for (size_t j = 0; any && j < GUESSED; j++)
            if (unsure[j])
                f_store(out + i + j * W, f(f_load(kept + j * W), args, false, NULL));
    }
    for (; n - i >= W; i += W)
        f_store(out + i, f(f_load(in + i), args, false, NULL));
    if (i < n) {
        float t[W] = {0};
        memcpy(t, in + i, sizeof(float) * (n - i));
        f_store(t, f(f_load(t), args, false, NULL));
        memcpy(out + i, t, sizeof(float) * (n - i));
    }
}

static void expf_n(const float *in, float *out, size_t n)
{
    map_guessed(exp_by, NULL, in, out, n);
}

/* out[i] = that MUL of in[i] and pl_logistic_f32(in[i]) (SiLU as EfficientNet writes it),
** without the logistic's own pass over memory. */
static void silu_n(const float *in, float *out, size_t n, float lo, float hi, bool x_first)
{
    /* two calls, so each loop is compiled for its clamp (skipping the infinite one: 221,184
    ** floats 163 -> 146 us on AVX-512) */
    const lanes_args args = {f_set(lo), f_set(hi), x_first, true},
                     unclamped = {f_set(lo), f_set(hi), x_first, false};
    if (lo == -INFINITY && hi == INFINITY)
        map_guessed(silu_by, &unclamped, in, out, n);
    else
        map_guessed(silu_by, &args, in, out, n);
}

static void tanhf_n(const float *in, float *out, size_t n)
{
    map_guessed(tanh_by, NULL, in, out, n);
}

static void logistic_n(const float *in, float *out, size_t n)
{
    map_guessed(logistic_by, NULL, in, out, n);
}

/* The row maximum as the portable kernel takes it (x > max ? x : max from -FLT_MAX: NaNs
** never win). Lane by lane, then across: the order only decides which zero (+0 or -0) wins
** among equal zeros, and x - (+0) and x - (-0) differ only for x = -0, whose exp is 1 both
** ways. */
static float row_max(const float *in, size_t depth)
{
    vf m = f_set(-FLT_MAX);
    size_t c = 0;
    for (; depth - c >= W; c += W) {
        vf x = f_load(in + c);
        m = f_select(f_gt(x, m), x, m);
    }
    float lanes[W], max = -FLT_MAX;
    f_store(lanes, m);
    for (int j = 0; j < W; j++)
        max = lanes[j] > max ? lanes[j] : max;
    for (; c < depth; c++)
        max = in[c] > max ? in[c] : max;
    return max;
}

/* Rows summed at a time by pl_fast_sum_rows_f32 (side by side) in softmax_rows. */
enum { SUM_ROWS = 8 };

/* e^((x - max) beta) of a lone row, by lanes, and their sum in element order (the adds
** overlap the next vector's exps; writing the scaled row first, as softmax_rows does for
** several, made a 1000-class row 8% slower). */
static float row_exps(vf b, const float *in, float *out, size_t depth)
{
    const vf max = f_set(row_max(in, depth));
    float acc = 0.0f, t[W] = {0};
    size_t c = 0;
    for (; depth - c >= W; c += W) {
        f_store(out + c, exp_lanes(f_mul(f_sub(f_load(in + c), max), b)));
        for (int j = 0; j < W; j++)
            acc += out[c + (size_t)j];
    }
    if (c < depth) {
        memcpy(t, in + c, sizeof(float) * (depth - c));
        f_store(t, exp_lanes(f_mul(f_sub(f_load(t), max), b)));
        memcpy(out + c, t, sizeof(float) * (depth - c));
        for (; c < depth; c++)
            acc += out[c];
    }
    return acc;
}

static void divide_row(float *out, size_t depth, float sum)
{
    const vf s = f_set(sum);
    size_t c = 0;
    for (; depth - c >= W; c += W)
        f_store(out + c, f_div(f_load(out + c), s));
    if (c < depth) {
        float t[W] = {0};
        memcpy(t, out + c, sizeof(float) * (depth - c));
        f_store(t, f_div(f_load(t), s));
        memcpy(out + c, t, sizeof(float) * (depth - c));
    }
}

/* out = (in - max) * beta for one row, by lanes (the last few through a padded copy). */
static void row_scaled(vf b, const float *in, float *out, size_t depth)
{
    const vf max = f_set(row_max(in, depth));
    size_t c = 0;
    for (; depth - c >= W; c += W)
        f_store(out + c, f_mul(f_sub(f_load(in + c), max), b));
    if (c < depth) {
        float t[W] = {0};
        memcpy(t, in + c, sizeof(float) * (depth - c));
        f_store(t, f_mul(f_sub(f_load(t), max), b));
        memcpy(out + c, t, sizeof(float) * (depth - c));
    }
}

/* pl_softmax_f32's rows: exps of (x - max) * beta by lanes, their sum in element order, then
** each divided by it by lanes. A lone row sums as it goes; more first write every row's
** scaled differences, then take the exps of the whole tensor by guesses (map_guessed: 16
** vectors a batch, none half empty at a row's end; by rows, attention's 50-element rows
** spent a vector of 16 lanes on 2 values and branched on every vector: 4 x 50 x 50 16.8 ->
** 13.2 us, 49 x 10 3.0 -> 2.2 us), then sum SUM_ROWS rows at a time. */
static void softmax_rows(float beta, const float *in, float *out, size_t outer, size_t depth)
{
    const vf b = f_set(beta);
    if (outer == 1) {
        divide_row(out, depth, row_exps(b, in, out, depth));
        return;
    }
    for (size_t r = 0; r < outer; r++)
        row_scaled(b, in + r * depth, out + r * depth, depth);
    map_guessed(exp_by, NULL, out, out, outer * depth);
    for (size_t i = 0; i < outer; i += SUM_ROWS) {
        size_t rows = outer - i < SUM_ROWS ? outer - i : SUM_ROWS;
        float sums[SUM_ROWS];
        pl_fast_sum_rows_f32(out + i * depth, rows, depth, sums);
        for (size_t r = 0; r < rows; r++)
            divide_row(out + (i + r) * depth, depth, sums[r]);
    }
}

#endif
