/* exp_body.h - the kernels of exp.h written once over lane primitives, so every instruction
** set does the same operations in the same order. A file built for one instruction set
** defines, then includes this (and names its table from the statics here):
**   vf, fmask: W floats and a mask of them; vd, dmask: W/2 doubles and a mask of them
**   f_load f_store f_set f_add f_sub f_mul f_div f_neg (sign flip) f_abs
**   f_gt f_lt (ordered: false on NaN) f_nan f_select(m, a, b) = m ? a : b
**   d_lo d_hi (the low/high half of a vf widened) f_of(lo, hi) (narrowed, rounded to nearest)
**   d_set d_add d_sub d_mul d_div d_abs d_floor d_eq d_select
**   d_pow2(k): 2^k for integral k in [-1022, 1023], any bits otherwise (never trapping)
**   d_fma(a, b, c) = a b + c (fused where the set has it; the quick exp below only needs
**   its accuracy, not its bits), d_times_pow2_low(x, k): x 2^j for normal x and results,
**   with j in the low 12 bits of k's bit pattern (k's exponent field added to x's),
**   d_bits_zero(y, sub, mask): lanes whose bits minus sub have no bit of mask set,
**   f_or, f_any and d_any (some lane of the mask set)
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
#include "fast/inline.h"
#include "kernels/activation/logistic_tanh_fast.h"
#include "kernels/common/arith_fast.h"

/* The quick exp's terms (to r^11/11!) and its margin to a rounding tie, in double ulps below a
** float's: 2^10 of them are 2^-43 of the value, 11 times the two exps' errors together. */
enum { QUICK_TERMS = 11, TIE_ULPS = 1 << 10 };

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

/* e^y to within 2^-46.8 of its value (|y| <= 88): y = k ln2 + r with k rounded to nearest by
** adding 1.5 2^52 (k lands in the sum's low bits), Taylor to r^11/11! (its remainder is below
** 2^-47 for |r| <= ln2/2) by fused Horner, and 2^k added to the result's exponent field. */
PL_FAST_INLINE vd exp_quick_half(vd y)
{
    const vd shifter = d_set(0x1.8p52);
    vd k_low = d_fma(y, d_set(PL_FMATH_INV_LN2), shifter), k = d_sub(k_low, shifter);
    vd r = d_fma(k, d_set(-PL_FMATH_LN2_HI), y);
    r = d_fma(k, d_set(-PL_FMATH_LN2_LO), r);
    vd p = d_set(pl_fmath_inverse_factorial[QUICK_TERMS - 1]);
    PL_FAST_UNROLL
    for (int n = QUICK_TERMS - 2; n >= 0; n--)
        p = d_fma(p, r, d_set(pl_fmath_inverse_factorial[n]));
    return d_times_pow2_low(d_fma(p, r, d_set(1.0)), k_low);
}

/* Lanes whose rounding to float may differ between two doubles within 2^-43 of each other:
** the 29 bits below a float's mantissa within TIE_ULPS of the tie (1 followed by 28 zeros).
** A normal float result only: the rounding of subnormals falls elsewhere. */
PL_FAST_INLINE dmask near_tie(vd y)
{
    const int64_t below = (INT64_C(1) << 29) - 1; /* the bits a float's mantissa drops */
    return d_bits_zero(y, (INT64_C(1) << 28) - TIE_ULPS, below & ~(2 * TIE_ULPS - 1));
}

/* pl_fmath_expf's float on every lane from exp_quick_half, when that is sure to round as
** exp_half's double does: both lie within 2^-46 of e^x (exp_half's error is below 2^-50), so
** unless the quick one lies within 2^-43 of a rounding tie they round alike. False when a lane
** is too near a tie (a window of 2^11 of the 2^29 patterns below a float's mantissa) or its
** result is not a normal float. */
PL_FAST_INLINE bool exp_quick(vf x, vf *out)
{
    if (f_any(f_or(f_lt(x, f_set(-87.0f)), f_gt(x, f_set(88.0f)))))
        return false;
    vd lo = exp_quick_half(d_lo(x)), hi = exp_quick_half(d_hi(x));
    if (d_any(near_tie(lo)) || d_any(near_tie(hi)))
        return false;
    *out = f_of(lo, hi);
    return true;
}

/* pl_fmath_expf on each lane. */
PL_FAST_INLINE vf exp_lanes(vf x)
{
    vf e;
    if (!exp_quick(x, &e))
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

/* pl_fmath_tanhf on each lane: its negation in double then rounding to float gives the
** bits of rounding then negating (round to nearest is symmetric). */
PL_FAST_INLINE vf tanh_lanes(vf x)
{
    vf t = f_of(tanh_half(d_lo(x)), tanh_half(d_hi(x)));
    t = f_select(f_lt(x, f_set(0.0f)), f_neg(t), t);
    vf one = f_set(1.0f), sat = f_select(f_gt(x, f_set(0.0f)), one, f_neg(one));
    t = f_select(f_gt(f_abs(x), f_set(10.0f)), sat, t);
    return f_select(f_nan(x), x, t);
}

/* pl_logistic_f32's element: e^v below the lower cutoff, 1 above the upper one, else
** 1 / (1 + e^-v) (NaN too): one exp per lane, of v or of -v. */
PL_FAST_INLINE vf logistic_lanes(vf v)
{
    fmask low = f_lt(v, f_set(PL_LOGISTIC_F32_LOWER));
    vf e = exp_lanes(f_select(low, v, f_neg(v)));
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

static void expf_n(const float *in, float *out, size_t n)
{
    map_lanes(exp_lanes, in, out, n);
}

static void tanhf_n(const float *in, float *out, size_t n)
{
    map_lanes(tanh_lanes, in, out, n);
}

static void logistic_n(const float *in, float *out, size_t n)
{
    map_lanes(logistic_lanes, in, out, n);
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

/* pl_softmax_f32's rows: exps of (x - max) * beta by lanes, their sum in element order, then
** each divided by it by lanes. */
static void softmax_rows(float beta, const float *in, float *out, size_t outer, size_t depth)
{
    const vf b = f_set(beta);
    for (size_t i = 0; i < outer; i++, in += depth, out += depth) {
        const vf max = f_set(row_max(in, depth));
        float sum = 0.0f, t[W] = {0};
        size_t c = 0;
        for (; depth - c >= W; c += W) {
            f_store(out + c, exp_lanes(f_mul(f_sub(f_load(in + c), max), b)));
            for (int j = 0; j < W; j++) /* overlaps the next vector's exps */
                sum += out[c + (size_t)j];
        }
        size_t tail = depth - c;
        if (tail > 0) {
            memcpy(t, in + c, sizeof(float) * tail);
            f_store(t, exp_lanes(f_mul(f_sub(f_load(t), max), b)));
            memcpy(out + c, t, sizeof(float) * tail);
        }
        for (; c < depth; c++)
            sum += out[c];
        const vf s = f_set(sum);
        for (c = 0; depth - c >= W; c += W)
            f_store(out + c, f_div(f_load(out + c), s));
        if (tail > 0) {
            memcpy(t, out + c, sizeof(float) * tail);
            f_store(t, f_div(f_load(t), s));
            memcpy(out + c, t, sizeof(float) * tail);
        }
    }
}

#endif
