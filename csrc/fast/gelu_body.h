/* gelu_body.h - float GELU (pl_gelu_f32: 0.5 x erfc(-x / sqrt 2), and pl_gelu_approx_f32:
** 0.5 x (1 + tanh(c (x + 0.044715 x^3)))) on vector lanes, as the portable kernel's libm
** computes them when that libm is glibc 2.36's (the version checked) on an x86-64 CPU with
** FMA: fdlibm's float erfc (Sun's rational approximations on five intervals, in float
** arithmetic, unfused) whose tail calls expf twice, expf as glibc's FMA build runs it (a
** 32-entry table of 2^(i/32), a cubic in double, five fused multiply-adds), and fdlibm's
** float tanh over its float expm1. Every step here is one of theirs, in their order, so
** each lane gets their bits; fast/gelu.c compares with the host's libm before it uses
** these, so any other libm (or version) keeps the portable kernel. Lanes of NaN take the
** portable element.
**
** Included after exp_body.h by an instruction set with a fused d_fma, which also defines:
**   f_ge(a, b) and f_eq(a, b) (ordered), f_keep_bits(a, mask): a's bits and mask, f_trunc
**   (toward zero), f_pow2(k): 2^k for integral k in [-126, 127],
**   d_scale32(t, k): the double whose bits are t[b mod 32] + b 2^47 (mod 2^64), b being k's
**   bit pattern. */
#ifndef PL_FAST_GELU_BODY_H
#define PL_FAST_GELU_BODY_H

#include "kernels/activation/gelu_fast.h"

/* glibc's expf data: 2^(i/32) as bit patterns less i 2^47, 32/ln 2, the cubic's
** coefficients scaled for r = x 32/ln 2 - k, and the bounds of its result's range. */
static const int64_t expf_table[32] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
};
#define EXPF_INV_LN2_32 0x1.71547652b82fep+5
#define EXPF_C0 0x1.c6af84b912394p-20
#define EXPF_C1 0x1.ebfce50fac4f3p-13
#define EXPF_C2 0x1.62e42ff0c52d6p-6
#define EXPF_UNDERFLOW -0x1.9fe368p6f /* below: +0 */
#define EXPF_LEAST -0x1.9d1d9ep6f     /* below (to the above): the least subnormal */

/* glibc's expf's main path on a double lane: k = round(x 32/ln 2) by adding 1.5 2^52,
** r = x 32/ln 2 - k, then (1 + C2 r + r^2 (C1 + C0 r)) times the table entry k mod 32 scaled
** by 2^(k/32), fused where glibc's FMA build fuses. */
PL_FAST_INLINE vd glibc_expf_half(vd x)
{
    const vd shift = d_set(0x1.8p52), inv_ln2 = d_set(EXPF_INV_LN2_32);
    vd k_low = d_fma(inv_ln2, x, shift), k = d_sub(k_low, shift);
    vd r = d_fma(inv_ln2, x, d_mul(k, d_set(-1.0)));
    vd z = d_fma(d_set(EXPF_C0), r, d_set(EXPF_C1));
    vd y = d_fma(r, d_set(EXPF_C2), d_set(1.0));
    y = d_fma(z, d_mul(r, r), y);
    return d_mul(y, d_scale32(expf_table, k_low));
}

/* glibc's expf for the arguments erfcf gives it: none above 0; its first, -z^2 - 0.5625,
** down to about -785 (the low end underflowing as glibc's does), the second above -88. */
PL_FAST_INLINE vf glibc_expf_lanes(vf x)
{
    vf e = f_of(glibc_expf_half(d_lo(x)), glibc_expf_half(d_hi(x)));
    e = f_select(f_lt(x, f_set(EXPF_LEAST)), f_set(0x1p-149f), e);
    return f_select(f_lt(x, f_set(EXPF_UNDERFLOW)), f_set(0.0f), e);
}

/* c0 + v (c1 + v (c2 + ...)): Horner from the last coefficient, as fdlibm nests it. */
PL_FAST_INLINE vf horner(vf v, const float *c, int count)
{
    vf p = f_set(c[count - 1]);
    for (int i = count - 2; i >= 0; i--)
        p = f_add(f_set(c[i]), f_mul(v, p));
    return p;
}

/* fdlibm's float erf/erfc coefficients (their bit patterns, as its comments give them). */
static const float erfc_pp[5] = {0x1.06eba8p-3f, -0x1.4cd7d6p-2f, -0x1.d2a51ep-6f,
                                 -0x1.7a2912p-8f, -0x1.8ead62p-16f};
static const float erfc_qq[6] = {1.0f, 0x1.97779cp-2f, 0x1.0a54c6p-4f, 0x1.4d022cp-8f,
                                 0x1.15dc92p-13f, -0x1.09c434p-18f};
static const float erfc_pa[7] = {-0x1.359b8cp-9f, 0x1.a8d00ap-2f, -0x1.7d241p-2f,
                                 0x1.45fca8p-2f, -0x1.c63984p-4f, 0x1.22a366p-5f,
                                 -0x1.1bf38p-9f};
static const float erfc_qa[7] = {1.0f, 0x1.b3e662p-4f, 0x1.14af0ap-1f, 0x1.2635cep-4f,
                                 0x1.02660ep-3f, 0x1.bedc26p-7f, 0x1.88b546p-7f};
static const float erfc_ra[8] = {-0x1.434126p-7f, -0x1.63416ep-1f, -0x1.51e044p+3f,
                                 -0x1.f300aep+5f, -0x1.44cb18p+7f, -0x1.7135cep+7f,
                                 -0x1.452656p+6f, -0x1.3a0efcp+3f};
static const float erfc_sa[9] = {1.0f, 0x1.3a6b9cp+4f, 0x1.1350c6p+7f, 0x1.b290dep+8f,
                                 0x1.42b192p+9f, 0x1.ad0216p+8f, 0x1.b28a3ep+6f,
                                 0x1.a47ef8p+2f, -0x1.eeff2ep-5f};
static const float erfc_rb[7] = {-0x1.434124p-7f, -0x1.993ba8p-1f, -0x1.1c2096p+4f,
                                 -0x1.4145d4p+7f, -0x1.3ec882p+9f, -0x1.004616p+10f,
                                 -0x1.e384eap+8f};
static const float erfc_sb[8] = {1.0f, 0x1.e568b2p+4f, 0x1.45cae2p+8f, 0x1.802eb2p+10f,
                                 0x1.8ffb76p+11f, 0x1.3f219cp+11f, 0x1.da874ep+8f,
                                 -0x1.670e24p+4f};
#define ERFC_ERX 0x1.b0ac16p-1f        /* erf(1) rounded to float's upper half */
#define ERFC_TAIL_SPLIT 0x1.6db6dap+1f /* 1/0.35, fdlibm's bits 0x4036db6d */

/* Each interval's rational is a quotient num/den of polynomials; a vector divides once, each
** lane by its own interval's (the same IEEE division the lane would make alone). */

/* |x| < 0.84375: 1 - erf(x) from erf's odd rational y; 1 - (x + x y) below 1/4 (negative x
** too), 1/2 - (x y + (x - 1/2)) above; 1 - x below 2^-56. */
PL_FAST_INLINE vf erfc_near_zero(vf x, vf ax, vf y)
{
    vf xy = f_mul(x, y), one = f_set(1.0f), half = f_set(0.5f);
    vf low = f_sub(one, f_add(x, xy));
    vf high = f_sub(half, f_add(xy, f_sub(x, half)));
    vf e = f_select(f_lt(x, f_set(0.25f)), low, high);
    return f_select(f_lt(ax, f_set(0x1p-56f)), f_sub(one, x), e);
}

/* 0.84375 <= |x| < 1.25: erf(1) and a rational pq in |x| - 1. */
PL_FAST_INLINE vf erfc_near_one(vf x, vf pq)
{
    vf positive = f_sub(f_set(1.0f - ERFC_ERX), pq);
    vf negative = f_add(f_set(1.0f), f_add(f_set(ERFC_ERX), pq));
    return f_select(f_lt(x, f_set(0.0f)), negative, positive);
}

/* 1.25 <= |x| < 28: e^(-z^2 - 0.5625) e^((z - |x|)(z + |x|) + R/S) / |x|, z being |x| with
** its 13 low bits cleared and rs = R/S a rational in 1/x^2; for negative x, 2 less that, and
** 2 from -6 down. */
PL_FAST_INLINE vf erfc_tail(vf x, vf ax, vf rs)
{
    vf z = f_keep_bits(ax, 0xffffe000u);
    vf first = f_sub(f_neg(f_mul(z, z)), f_set(0.5625f));
    vf second = f_add(f_mul(f_sub(z, ax), f_add(z, ax)), rs);
    vf r = f_mul(glibc_expf_lanes(first), glibc_expf_lanes(second));
    vf q = f_div(r, ax);
    vf e = f_select(f_gt(x, f_set(0.0f)), q, f_sub(f_set(2.0f), q));
    return f_select(f_ge(f_neg(x), f_set(6.0f)), f_set(2.0f), e);
}

/* erfcf on lanes without NaN: +0 from 28 up (+inf too), 2 from -28 down, the intervals
** above between; an interval is computed when some lane falls in it (the tail's two sets of
** R/S, split at 1/0.35, likewise). */
PL_FAST_INLINE vf erfc_lanes(vf x)
{
    const vf one = f_set(1.0f), split = f_set(ERFC_TAIL_SPLIT);
    vf ax = f_abs(x);
    fmask zero = f_lt(ax, f_set(0.84375f));
    fmask near_one = f_and(f_ge(ax, f_set(0.84375f)), f_lt(ax, f_set(1.25f)));
    fmask tail = f_and(f_ge(ax, f_set(1.25f)), f_lt(ax, f_set(28.0f)));
    const bool any_zero = f_any(zero), any_one = f_any(near_one), any_tail = f_any(tail);
    vf num = one, den = one;
    if (any_tail) {
        vf s = f_div(one, f_mul(ax, ax));
        fmask nearer = f_lt(ax, split);
        if (f_any(f_and(tail, nearer))) {
            num = horner(s, erfc_ra, 8);
            den = horner(s, erfc_sa, 9);
        }
        if (f_any(f_and(tail, f_ge(ax, split)))) {
            num = f_select(nearer, num, horner(s, erfc_rb, 7));
            den = f_select(nearer, den, horner(s, erfc_sb, 8));
        }
    }
    if (any_one) {
        vf s = f_sub(ax, one);
        num = f_select(near_one, horner(s, erfc_pa, 7), num);
        den = f_select(near_one, horner(s, erfc_qa, 7), den);
    }
    if (any_zero) {
        vf z = f_mul(x, x);
        num = f_select(zero, horner(z, erfc_pp, 5), num);
        den = f_select(zero, horner(z, erfc_qq, 6), den);
    }
    vf q = f_div(num, den);
    vf e = f_select(f_gt(x, f_set(0.0f)), f_set(0.0f), f_set(2.0f));
    if (any_tail)
        e = f_select(tail, erfc_tail(x, ax, q), e);
    if (any_one)
        e = f_select(near_one, erfc_near_one(x, q), e);
    if (any_zero)
        e = f_select(zero, erfc_near_zero(x, ax, q), e);
    return e;
}

/* fdlibm's float expm1 (glibc's expm1f): ln 2 split so that k ln2_hi is exact, 1/ln 2, and
** the scaled coefficients of its rational. */
#define EXPM1_LN2_HI 0x1.62e3p-1f
#define EXPM1_LN2_LO 0x1.2fefa2p-17f
#define EXPM1_INV_LN2 0x1.715476p+0f
static const float expm1_q[6] = {1.0f, -0x1.111112p-5f, 0x1.a01a02p-10f, -0x1.4ce19ap-14f,
                                 0x1.0cfca8p-18f, -0x1.afdb76p-23f};

/* expm1f for the arguments tanhf gives it: 2|x| in [2, 44) or -2|x| in (-2, 0). x = k ln2 +
** (hi - lo) with k = +-1 below 1.5 ln2, else k = invln2 x +- 0.5 truncated; 0 below 0.5
** ln2 (and x itself below 2^-25). The exponent fdlibm adds to a float's bits is a product
** by 2^k here: the same bits, every such float being normal before and after. */
PL_FAST_INLINE vf expm1_lanes(vf x)
{
    const vf one = f_set(1.0f), half = f_set(0.5f), two = f_set(2.0f);
    vf ax = f_abs(x);
    fmask neg = f_lt(x, f_set(0.0f));
    fmask reduced = f_gt(ax, f_set(0x1.62e43p-2f)), near = f_lt(ax, f_set(0x1.0a2b24p+0f));
    vf k = f_trunc(f_add(f_mul(f_set(EXPM1_INV_LN2), x), f_select(neg, f_neg(half), half)));
    k = f_select(near, f_select(neg, f_neg(one), one), k);
    k = f_select(reduced, k, f_set(0.0f));
    /* near: x -+ ln2_hi and +-ln2_lo, as k ln2_hi and k ln2_lo are for k = +-1 */
    vf hi = f_sub(x, f_mul(k, f_set(EXPM1_LN2_HI))), lo = f_mul(k, f_set(EXPM1_LN2_LO));
    vf r = f_select(reduced, f_sub(hi, lo), x);
    vf c = f_sub(f_sub(hi, r), lo);
    vf hfx = f_mul(half, r), hxs = f_mul(r, hfx);
    vf r1 = horner(hxs, expm1_q, 6);
    vf t = f_sub(f_set(3.0f), f_mul(r1, hfx));
    vf e = f_mul(hxs, f_div(f_sub(r1, t), f_sub(f_set(6.0f), f_mul(r, t))));
    vf at_zero = f_sub(r, f_sub(f_mul(r, e), hxs));
    e = f_sub(f_sub(f_mul(r, f_sub(e, c)), c), hxs);
    vf at_minus_one = f_sub(f_mul(half, f_sub(r, e)), half);
    vf at_one = f_select(f_lt(r, f_set(-0.25f)), f_mul(f_set(-2.0f), f_sub(e, f_add(r, half))),
                         f_add(one, f_mul(two, f_sub(r, e))));
    vf scale = f_pow2(k), inverse = f_pow2(f_neg(k));
    vf outer = f_sub(f_mul(f_sub(one, f_sub(e, r)), scale), one); /* k <= -2 or k > 56 */
    vf low = f_mul(f_sub(f_sub(one, inverse), f_sub(e, r)), scale); /* k < 23 */
    vf high = f_mul(f_add(f_sub(r, f_add(e, inverse)), one), scale);
    vf y = f_select(f_lt(k, f_set(23.0f)), low, high);
    y = f_select(f_or(f_lt(k, f_set(-1.0f)), f_gt(k, f_set(56.0f))), outer, y);
    y = f_select(f_eq(k, one), at_one, y);
    y = f_select(f_eq(k, f_neg(one)), at_minus_one, y);
    y = f_select(f_eq(k, f_set(0.0f)), at_zero, y);
    return f_select(f_lt(ax, f_set(0x1p-25f)), x, y);
}

/* tanhf on lanes without NaN: +-1 from 22 up, x below 2^-55, else 1 - 2/(expm1(2|x|) + 2)
** from 1 up and -t/(t + 2), t = expm1(-2|x|), below; the sign of x put back. */
PL_FAST_INLINE vf tanh_glibc_lanes(vf x)
{
    const vf one = f_set(1.0f), two = f_set(2.0f);
    vf ax = f_abs(x);
    fmask large = f_ge(ax, one);
    vf twice = f_mul(two, ax);
    vf t = expm1_lanes(f_select(large, twice, f_neg(twice)));
    vf q = f_div(f_select(large, two, f_neg(t)), f_add(t, two)); /* one division a lane */
    vf z = f_select(large, f_sub(one, q), q);
    z = f_select(f_ge(ax, f_set(22.0f)), one, z);
    z = f_select(f_lt(x, f_set(0.0f)), f_neg(z), z);
    return f_select(f_lt(ax, f_set(0x1p-55f)), x, z);
}

/* GELU on lanes; a vector holding a NaN takes the portable element on each lane (which NaN
** comes back is its libm's choice). */
PL_FAST_INLINE vf gelu_lanes(vf x, bool approximate)
{
    if (f_any(f_nan(x))) {
        float t[W];
        f_store(t, x);
        for (int j = 0; j < W; j++)
            t[j] = approximate ? pl_gelu_approx_f32(t[j]) : pl_gelu_f32(t[j]);
        return f_load(t);
    }
    vf g;
    if (approximate) {
        vf cube = f_mul(f_mul(f_mul(f_set(PL_GELU_CUBIC), x), x), x);
        vf t = tanh_glibc_lanes(f_mul(f_set(PL_GELU_SQRT_2_OVER_PI), f_add(x, cube)));
        g = f_add(f_set(1.0f), t);
    } else {
        g = erfc_lanes(f_mul(x, f_set((float)-PL_GELU_SQRT1_2)));
    }
    return f_mul(f_mul(f_set(0.5f), x), g);
}

/* pl_gelu_f32 and pl_gelu_approx_f32 on every lane. */
PL_FAST_INLINE vf gelu_exact_lanes(vf x)
{
    return gelu_lanes(x, false);
}

PL_FAST_INLINE vf gelu_tanh_lanes(vf x)
{
    return gelu_lanes(x, true);
}

static void gelu_n(const float *in, float *out, size_t n)
{
    map_lanes(gelu_exact_lanes, in, out, n);
}

static void gelu_tanh_n(const float *in, float *out, size_t n)
{
    map_lanes(gelu_tanh_lanes, in, out, n);
}

#endif
