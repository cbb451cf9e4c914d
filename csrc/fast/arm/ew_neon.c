/* ew_neon.c - the flat elementwise loops with NEON (see elementwise.h): int8 and int16 8
** elements per step in two vectors, float32 4; the last few go through a zero-padded copy. */
#include <arm_neon.h>
#include <stdbool.h>
#include <string.h>

#include "fast/arm/s8_stage.h"
#include "fast/elementwise.h"

enum { L = 8 };

/* One rescale as pl_neon_rescale takes it: the left shift capped at 32, the right negated. */
typedef struct scale4 {
    int32x4_t mult, left, neg_right;
} scale4;

typedef struct q4 {
    int32x4_t off1, off2, left_shift, out_offset, act_min, act_max;
    scale4 in1, in2, out;
} q4;

static scale4 splat_scale(const pl_ew_scale *s)
{
    return (scale4){vdupq_n_s32(s->mult), vdupq_n_s32(s->left < 32 ? s->left : 32),
                    vdupq_n_s32(-s->right)};
}

static q4 splat(const pl_ew_q *q)
{
    return (q4){vdupq_n_s32(q->off1), vdupq_n_s32(q->off2),
                vdupq_n_s32(q->left_shift < 32 ? q->left_shift : 32),
                vdupq_n_s32(q->out_offset), vdupq_n_s32(q->act_min), vdupq_n_s32(q->act_max),
                splat_scale(&q->in1), splat_scale(&q->in2), splat_scale(&q->out)};
}

static inline int32x4_t rescale(int32x4_t x, const scale4 *s)
{
    return pl_neon_rescale(x, s->mult, s->left, s->neg_right);
}

/* 8 elements widened to two int32 vectors. */
static inline void load_s8(const int8_t *p, int32x4_t *lo, int32x4_t *hi)
{
    int16x8_t w = vmovl_s8(vld1_s8(p));
    *lo = vmovl_s16(vget_low_s16(w));
    *hi = vmovl_s16(vget_high_s16(w));
}

static inline void load_s16(const int16_t *p, int32x4_t *lo, int32x4_t *hi)
{
    int16x8_t w = vld1q_s16(p);
    *lo = vmovl_s16(vget_low_s16(w));
    *hi = vmovl_s16(vget_high_s16(w));
}

/* Narrowed with saturation (the lanes are clamped to the activation range already). */
static inline void store_s8(int8_t *out, int32x4_t lo, int32x4_t hi)
{
    vst1_s8(out, vqmovn_s16(vcombine_s16(vqmovn_s32(lo), vqmovn_s32(hi))));
}

static inline void store_s16(int16_t *out, int32x4_t lo, int32x4_t hi)
{
    vst1q_s16(out, vcombine_s16(vqmovn_s32(lo), vqmovn_s32(hi)));
}

/* + the output offset, clamp. */
static inline int32x4_t finish(const q4 *v, int32x4_t raw)
{
    return vminq_s32(vmaxq_s32(vaddq_s32(raw, v->out_offset), v->act_min), v->act_max);
}

static inline int32x4_t add4(const q4 *v, int32x4_t a, int32x4_t b)
{
    int32x4_t x = vshlq_s32(vaddq_s32(a, v->off1), v->left_shift);
    int32x4_t y = vshlq_s32(vaddq_s32(b, v->off2), v->left_shift);
    return finish(v, rescale(vaddq_s32(rescale(x, &v->in1), rescale(y, &v->in2)), &v->out));
}

static inline int32x4_t mul4(const q4 *v, int32x4_t a, int32x4_t b)
{
    return finish(v, rescale(vmulq_s32(vaddq_s32(a, v->off1), vaddq_s32(b, v->off2)),
                             &v->out));
}

/* OP4 on 8 elements of a and b, in two vectors, stored to out. */
#define STEP(LOAD, STORE, OP4, a, b, out)                                                   \
    do {                                                                                    \
        int32x4_t a0_, a1_, b0_, b1_;                                                       \
        LOAD(a, &a0_, &a1_);                                                                \
        LOAD(b, &b0_, &b1_);                                                                \
        STORE(out, OP4(&v, a0_, b0_), OP4(&v, a1_, b1_));                                   \
    } while (0)

/* Runs OP4 on every whole step of T, then on a zero-padded copy of the rest. */
#define FLAT(T, LOAD, STORE, OP4)                                                           \
    do {                                                                                    \
        const q4 v = splat(q);                                                              \
        size_t i = 0;                                                                       \
        for (; n - i >= L; i += L)                                                          \
            STEP(LOAD, STORE, OP4, a + i, b + i, out + i);                                  \
        if (i < n) {                                                                        \
            T ta[L] = {0}, tb[L] = {0}, to[L];                                              \
            memcpy(ta, a + i, sizeof(T) * (n - i));                                         \
            memcpy(tb, b + i, sizeof(T) * (n - i));                                         \
            STEP(LOAD, STORE, OP4, ta, tb, to);                                             \
            memcpy(out + i, to, sizeof(T) * (n - i));                                       \
        }                                                                                   \
    } while (0)

static void add_s8(const pl_ew_q *q, const int8_t *a, const int8_t *b, size_t n, int8_t *out)
{
    FLAT(int8_t, load_s8, store_s8, add4);
}

static void mul_s8(const pl_ew_q *q, const int8_t *a, const int8_t *b, size_t n, int8_t *out)
{
    FLAT(int8_t, load_s8, store_s8, mul4);
}

static void add_s16(const pl_ew_q *q, const int16_t *a, const int16_t *b, size_t n,
                    int16_t *out)
{
    FLAT(int16_t, load_s16, store_s16, add4);
}

static void mul_s16(const pl_ew_q *q, const int16_t *a, const int16_t *b, size_t n,
                    int16_t *out)
{
    FLAT(int16_t, load_s16, store_s16, mul4);
}

/* The operation (one IEEE operation), then the reference's clamp as it compares (x < lo ?
** lo : x, then y > hi ? hi : y): NaN passes, FMAX/FMIN's own rules never apply. */
static inline float32x4_t f32_one(pl_ew_f32_op op, float32x4_t x, float32x4_t y,
                                  float32x4_t lo, float32x4_t hi)
{
    float32x4_t r;
    switch (op) {
    case PL_EW_ADD: r = vaddq_f32(x, y); break;
    case PL_EW_SUB: r = vsubq_f32(x, y); break;
    case PL_EW_MUL: r = vmulq_f32(x, y); break;
    case PL_EW_DIV: r = vdivq_f32(x, y); break;
    case PL_EW_MAX: r = vbslq_f32(vcgtq_f32(x, y), x, y); break; /* not FMAX's NaN rule */
    case PL_EW_MIN: r = vbslq_f32(vcltq_f32(x, y), x, y); break;
    default: r = vsubq_f32(x, y), r = vmulq_f32(r, r); break;
    }
    /* two NaNs: FADD and FMUL's own rule is the portable a op b's (a signaling NaN first,
    ** then a's); x86 takes a's apart (ew_avx2.c) */
    r = vbslq_f32(vcltq_f32(r, lo), lo, r);
    return vbslq_f32(vcgtq_f32(r, hi), hi, r);
}

static void f32(pl_ew_f32_op op, const float *a, const float *b, size_t n, float act_lo,
                float act_hi, float *out)
{
    const float32x4_t lo = vdupq_n_f32(act_lo), hi = vdupq_n_f32(act_hi);
    size_t i = 0;
    for (; n - i >= 4; i += 4)
        vst1q_f32(out + i, f32_one(op, vld1q_f32(a + i), vld1q_f32(b + i), lo, hi));
    if (i < n) {
        float ta[4] = {0}, tb[4] = {0}, to[4];
        memcpy(ta, a + i, sizeof(float) * (n - i));
        memcpy(tb, b + i, sizeof(float) * (n - i));
        vst1q_f32(to, f32_one(op, vld1q_f32(ta), vld1q_f32(tb), lo, hi));
        memcpy(out + i, to, sizeof(float) * (n - i));
    }
}

/* The portable kernel's comparisons as written (FMAX/FMIN's NaN rules differ). */
static inline float32x4_t hard_swish_one(float32x4_t x)
{
    const float32x4_t zero = vdupq_n_f32(0.0f), six = vdupq_n_f32(6.0f);
    float32x4_t r = vaddq_f32(x, vdupq_n_f32(3.0f));
    r = vbslq_f32(vcltq_f32(zero, r), r, zero);
    r = vbslq_f32(vcltq_f32(r, six), r, six);
    return vdivq_f32(vmulq_f32(x, r), six);
}

static void hard_swish_f32(const float *in, float *out, size_t n)
{
    size_t i = 0;
    for (; n - i >= 4; i += 4)
        vst1q_f32(out + i, hard_swish_one(vld1q_f32(in + i)));
    if (i < n) {
        float t[4] = {0};
        memcpy(t, in + i, sizeof(float) * (n - i));
        vst1q_f32(t, hard_swish_one(vld1q_f32(t)));
        memcpy(out + i, t, sizeof(float) * (n - i));
    }
}

enum { U_LANES = 4 };
typedef float32x4_t vf;
static inline vf u_load(const float *p) { return vld1q_f32(p); }
static inline void u_store(float *p, vf v) { vst1q_f32(p, v); }
static inline vf u_set(float x) { return vdupq_n_f32(x); }
static inline vf u_floor(vf x) { return vrndmq_f32(x); }
static inline vf u_ceil(vf x) { return vrndpq_f32(x); }
static inline vf u_neg(vf x) { return vnegq_f32(x); }
static inline vf u_sqrt(vf x) { return vsqrtq_f32(x); }
static inline vf u_div(vf x, vf y) { return vdivq_f32(x, y); }
static inline vf u_mul(vf x, vf y) { return vmulq_f32(x, y); }
static inline vf u_positive_or(vf x, vf y)
{
    return vbslq_f32(vcgtq_f32(x, vdupq_n_f32(0.0f)), x, y);
}
static inline bool u_any_nan(vf x) { return vminvq_u32(vceqq_f32(x, x)) == 0; }

#include "fast/unary_body.h"

#include "fast/minmax_body.h"

const pl_ew pl_ew_neon = {add_s8,         mul_s8, add_s16,   mul_s16, f32,
                          hard_swish_f32, NULL,   unary_f32, minmax_int, false, false};
