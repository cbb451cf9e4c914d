/* unary_body.h - pl_ew's unary_f32 (elementwise.h) written once over lane primitives, for
** the sets that run whole vectors and a zero-padded tail (x86/ew_sse41.c, x86/ew_avx2.c,
** arm/ew_neon.c; AVX-512 masks its tail instead). The includer defines U_LANES (floats a
** vector), vf, u_load u_store u_set u_floor u_ceil u_neg (sign flip) u_sqrt u_div u_mul,
** u_positive_or(x, y) = x > 0 ? x : y (ordered: y for NaN) and u_any_nan(x), then includes
** this. Each step is the portable kernel's one IEEE operation, so the bits are its own. */
#ifndef PL_FAST_UNARY_BODY_H
#define PL_FAST_UNARY_BODY_H

#include <string.h>

#include "fast/elementwise.h"

static inline vf unary_one(pl_ew_unary op, vf x, vf a)
{
    switch (op) {
    case PL_EW_FLOOR: return u_floor(x);
    case PL_EW_CEIL: return u_ceil(x);
    case PL_EW_NEG: return u_neg(x);
    case PL_EW_SQRT: return u_sqrt(x);
    case PL_EW_RSQRT: return u_div(u_set(1.0f), u_sqrt(x));
    case PL_EW_SQUARE: return u_mul(x, x);
    default: return u_positive_or(x, u_mul(x, a)); /* LEAKY */
    }
}

/* One loop per operation (unary_one inlined with a constant op in each); FLOOR and CEIL
** hand a vector with NaN lanes to pl_ew_unary_nans. */
#define EACH(o)                                                                             \
    case o:                                                                                 \
        for (; n - i >= U_LANES; i += U_LANES) {                                            \
            vf x = u_load(in + i);                                                          \
            u_store(out + i, unary_one(o, x, a));                                           \
            if (o <= PL_EW_CEIL && u_any_nan(x))                                            \
                pl_ew_unary_nans(o, in + i, out + i, U_LANES);                              \
        }                                                                                   \
        break

static void unary_f32(pl_ew_unary op, float alpha, const float *in, float *out, size_t n)
{
    const vf a = u_set(alpha);
    size_t i = 0;
    switch (op) {
        EACH(PL_EW_FLOOR); EACH(PL_EW_CEIL); EACH(PL_EW_NEG); EACH(PL_EW_SQRT);
        EACH(PL_EW_RSQRT); EACH(PL_EW_SQUARE); EACH(PL_EW_LEAKY);
    }
    if (i < n) {
        float t[U_LANES] = {0};
        memcpy(t, in + i, sizeof(float) * (n - i));
        u_store(t, unary_one(op, u_load(t), a));
        memcpy(out + i, t, sizeof(float) * (n - i));
        if (op <= PL_EW_CEIL)
            pl_ew_unary_nans(op, in + i, out + i, n - i);
    }
}
#undef EACH

#endif
